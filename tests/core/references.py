"""Comparing computed numbers with stored references on any CPU.

Floats differ in their last bits between CPUs, SIMD kernels (numpy dispatches AVX-512,
AVX2 or SSE loops at run time) and BLAS builds, so a stored reference holds its exact
parts (keys, strings, integers, booleans, shapes) to the letter and its floats within a
tolerance stated per kind of quantity. Each tolerance says why it is wide enough for
any machine and narrow enough that a changed method fails.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Tolerance:
    rtol: float
    atol: float
    why: str
    # Integers compared as numbers within the tolerance (counts found by a simulated search).
    integers: bool = False


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
    why="studentized-range p-values stored from the engine before its batch-independent "
    "studentized range came from scipy "
    "or, for more than 40 statistics in one call, from an interpolant checked to 1e-7 "
    "absolute at its knot midpoints only (measured: up to 2.4e-7 from scipy between them); "
    "today's interpolant is within 1e-7 sf + 1e-13 of scipy for every batch (measured on "
    "the scale reference: 8.2e-9), so 3e-7 bounds the two",
)


# --- Monte-Carlo fields ----------------------------------------------------------------
#
# The generators' bit streams are integers, the same on every CPU, but the continuous draws
# built from them (numpy's gamma, normal tails, Student t) call libm's log, exp and pow,
# which may differ in the last bit. Where a result is a share of independent draws, such a
# difference can move only a draw whose outcome is within ulps of a boundary, so the share
# moves by a few draws at most; where a chain's accept step flips, every later state
# changes and the result moves by its full Monte-Carlo error. So those fields compare
# within a tolerance from their Monte-Carlo error, and sentences that print them compare
# with their numbers masked (the numbers are checked in their own fields).

MC_SE_FACTOR = 6.0
"""A chain's probability compares within 6 of its stated Monte-Carlo standard errors:
two independent runs differ by sqrt(2) SE in standard deviation, so 6 SE is 4.2 sigma
(a false alarm below 3e-5 per field); a change of model or of ROPE moves the
probabilities by far more than the measured errors (0.002-0.02 on the demo)."""

MC_SE_OF_SE = Tolerance(
    rtol=0.6,
    atol=2e-3,
    why="the standard error is itself estimated from 40 batch means (relative spread about "
    "1/sqrt(78) = 0.11 for the largest of three), so another chain's differs by up to 0.6 "
    "relative (5 sigma); 2e-3 absolute for errors near zero",
)

SIGNED_RANK_DRAWS = Tolerance(
    rtol=1e-6,
    atol=6 / 4000,
    why="the signed-rank probabilities are shares of 4000 independent Dirichlet draws "
    "(numpy's gamma variates: libm log/exp); a last-bit difference moves only a draw "
    "whose two largest masses are within ulps, so 6 such draws (1.5e-3) bound it; a "
    "changed prior, ROPE or seed moves them by the Monte-Carlo error, 0.008",
)

FOLDS_POWER = Tolerance(
    rtol=0.0,
    atol=0.15,
    why="the folds power is simulated from the posterior medians of the chain, so it moves "
    "with the chain: measured on the simulated demo over 24 sampler seeds, standard "
    "deviation 0.025-0.034 in two sets of seeds (values 0.05-0.25); 0.15 is 4.4 of the larger",
)

ADVISOR_POWER_SHARE = Tolerance(
    rtol=0.0,
    atol=6 / 500,
    why="the advisor's power is a share of 500 simulated benchmarks resampled by integer "
    "indices (exact on every CPU); only a p-value within ulps of alpha can flip, so 6 "
    "simulations bound it",
)

ADVISOR_POWER_SEARCH = Tolerance(
    rtol=0.02,
    atol=0.0,
    integers=True,
    why="the detectable difference and the datasets needed end bisections that stop at "
    "1e-3 and 1 % of their value; a flipped simulation at one step moves them within "
    "those widths, so 2 % relative",
)

_CHAIN_PROBABILITIES = ("leader_better", "equivalent", "other_better")
_SIGNED_RANK = re.compile(
    r"^(/board)?/practical/(versus\[\d+\]/(leader_better|equivalent|other_better)"
    r"|(better|equivalent)/(lower|upper)\[\d+\])$"
)
_BY_PATH: tuple[tuple[re.Pattern[str], Tolerance], ...] = (
    (re.compile(r"/folds_power/power_at_current$"), FOLDS_POWER),
    (re.compile(r"/hierarchical/versus\[\d+\]/mc_se$"), MC_SE_OF_SE),
    (_SIGNED_RANK, SIGNED_RANK_DRAWS),
    (re.compile(r"^/advisor/power/power_at_observed$"), ADVISOR_POWER_SHARE),
    (
        re.compile(r"^/advisor/power/(detectable_difference|datasets_needed(_low|_high)?)$"),
        ADVISOR_POWER_SEARCH,
    ),
)
_MASKED_TEXT = re.compile(r"(/folds_power|^/advisor/power)/sentence$")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def _tolerance_at(where: str, default: Tolerance) -> Tolerance:
    return next((t for pattern, t in _BY_PATH if pattern.search(where)), default)


def _chain_tolerance(expected: dict[str, Any], default: Tolerance) -> Tolerance | None:
    """A dict that states its Monte-Carlo error (``mc_se``) compares its probabilities
    within :data:`MC_SE_FACTOR` of it."""
    se = expected.get("mc_se")
    if not isinstance(se, float):
        return None
    return Tolerance(
        rtol=default.rtol,
        atol=MC_SE_FACTOR * se + default.atol,
        why=f"a chain's probabilities within {MC_SE_FACTOR:g} of their Monte-Carlo "
        f"standard error ({se:.3g}): see MC_SE_FACTOR",
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
    numbers, since JSON does not keep the distinction); Monte-Carlo fields within their
    own tolerances (above), their sentences with the numbers masked."""
    if isinstance(expected, dict):
        if not isinstance(got, dict) or got.keys() != expected.keys():
            keys = sorted(set(got) ^ set(expected)) if isinstance(got, dict) else []
            return [f"{where}: keys differ {keys}"]
        chain = _chain_tolerance(expected, tolerance)
        return [
            problem
            for key in expected
            for problem in reference_mismatches(
                got[key],
                expected[key],
                chain if chain is not None and key in _CHAIN_PROBABILITIES else tolerance,
                f"{where}/{key}",
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
    tolerance = _tolerance_at(where, tolerance)
    if (
        _is_number(expected)
        and _is_number(got)
        and (isinstance(expected, float) or isinstance(got, float) or tolerance.integers)
    ):
        if math.isclose(got, expected, rel_tol=tolerance.rtol, abs_tol=tolerance.atol):
            return []
        return [f"{where}: {got!r} != {expected!r} (rtol {tolerance.rtol:g})"]
    if isinstance(expected, str) and isinstance(got, str) and _MASKED_TEXT.search(where):
        if _NUMBER.sub("#", got) == _NUMBER.sub("#", expected):
            return []
        return [f"{where}: {got!r} != {expected!r} (numbers masked)"]
    if got != expected or type(got) is not type(expected):
        return [f"{where}: {got!r} != {expected!r}"]
    return []


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
