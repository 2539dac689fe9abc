"""Comparing computed numbers with stored references on any CPU.

Floats differ in their last bits between CPUs, SIMD kernels (numpy dispatches AVX-512,
AVX2 or SSE loops at run time) and BLAS builds, so a stored reference holds its exact
parts (keys, strings, integers, booleans, shapes) to the letter and its floats within a
tolerance stated per kind of quantity. Each tolerance says why it is wide enough for
any machine and narrow enough that a changed method fails.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Tolerance:
    rtol: float
    atol: float
    why: str


CLOSED_FORM = Tolerance(
    rtol=1e-10,
    atol=1e-14,
    why="p-values, effect sizes and corrections come from a few dozen elementary and "
    "special-function calls; numpy's SIMD loops (AVX-512, AVX2, SSE) and libm differ by "
    "a few ulps per call, which compounds to about 1e-14 relative (measured: 2.2e-14 "
    "between AVX-512 and SSE builds); 1e-10 leaves four orders of magnitude for other "
    "CPUs, and any change of formula moves a value by far more",
)

ITERATIVE = Tolerance(
    rtol=1e-6,
    atol=1e-12,
    why="Plackett-Luce MM fits and the leave-one-out and minimax weights are iterative: a "
    "last-bit difference can stop a fit one step earlier or later, and the bootstrap "
    "quantiles of such fits moved by up to 9.7e-10 relative on an AVX2 CPU (3.3e-12 here "
    "between AVX-512 and SSE); the fits stop at steps of 1e-5 or less, so 1e-6 stays "
    "below any change of method or stopping rule",
)


STUDENTIZED_RANGE = Tolerance(
    rtol=0.0,
    atol=3e-7,
    why="studentized-range p-values stored from the engine before issue 24 came from scipy "
    "or, for more than 40 statistics in one call, from an interpolant checked to 1e-7 "
    "absolute at its knot midpoints only (measured: up to 2.4e-7 from scipy between them); "
    "today's interpolant is within 1e-7 sf + 1e-13 of scipy for every batch (measured on "
    "the scale reference: 8.2e-9), so 3e-7 bounds the two",
)


def assert_close_arrays(got: Any, expected: Any, tolerance: Tolerance, where: str) -> None:
    """Equal shapes and missing values; finite values within ``tolerance``."""
    got_array = np.asarray(got, dtype=float)
    expected_array = np.asarray(expected, dtype=float)
    assert got_array.shape == expected_array.shape, where
    np.testing.assert_array_equal(np.isnan(got_array), np.isnan(expected_array), err_msg=where)
    np.testing.assert_allclose(
        got_array,
        expected_array,
        rtol=tolerance.rtol,
        atol=tolerance.atol,
        equal_nan=True,
        err_msg=f"{where} ({tolerance.why})",
    )


def reference_mismatches(
    got: Any, expected: Any, tolerance: Tolerance, where: str = ""
) -> list[str]:
    """Where a JSON-like value differs from its reference: exact parts to the letter,
    floats within ``tolerance`` (an int in one and a float in the other compare as
    numbers, since JSON does not keep the distinction)."""
    if isinstance(expected, dict):
        if not isinstance(got, dict) or got.keys() != expected.keys():
            keys = sorted(set(got) ^ set(expected)) if isinstance(got, dict) else []
            return [f"{where}: keys differ {keys}"]
        return [
            problem
            for key in expected
            for problem in reference_mismatches(
                got[key], expected[key], tolerance, f"{where}/{key}"
            )
        ]
    if isinstance(expected, list):
        if not isinstance(got, list) or len(got) != len(expected):
            return [f"{where}: length or type differs"]
        return [
            problem
            for index, (g, e) in enumerate(zip(got, expected, strict=True))
            for problem in reference_mismatches(g, e, tolerance, f"{where}[{index}]")
        ]
    if (
        _is_number(expected)
        and _is_number(got)
        and (isinstance(expected, float) or isinstance(got, float))
    ):
        if math.isclose(got, expected, rel_tol=tolerance.rtol, abs_tol=tolerance.atol):
            return []
        return [f"{where}: {got!r} != {expected!r} (rtol {tolerance.rtol:g})"]
    if got != expected or type(got) is not type(expected):
        return [f"{where}: {got!r} != {expected!r}"]
    return []


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
