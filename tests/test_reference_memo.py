"""Peer references kept between runs (tests/reference_memo.py): computed with the library
when the cache is cold, off or out of date, read back otherwise."""

from __future__ import annotations

import numpy as np
from scipy import stats

from estimation.core import intervals
from tests import reference_memo
from tests.reference_memo import reference_kept

CALLS: list[tuple[float, ...]] = []


def _scipy_norm_sf(values):
    CALLS.append(tuple(values))
    return stats.norm.sf(values)


class _Cache:
    def __init__(self, root):
        self.root = root

    def mkdir(self, name):
        (self.root / name).mkdir(exist_ok=True)
        return self.root / name


def _fresh_process(monkeypatch):
    monkeypatch.setattr(reference_memo, "_VALUES", {})
    monkeypatch.setattr(reference_memo, "_VERSIONS", {})
    monkeypatch.setattr(reference_memo, "_READY", set())


def test_a_reference_is_computed_once_then_read_back_by_another_process(tmp_path, monkeypatch):
    cache, values = _Cache(tmp_path), np.array([0.5, 1.5])
    CALLS.clear()
    first = reference_kept(cache, "norm", _scipy_norm_sf, values, under_test=intervals)
    np.testing.assert_array_equal(first, stats.norm.sf(values))
    _fresh_process(monkeypatch)
    again = reference_kept(cache, "norm", _scipy_norm_sf, values.copy(), under_test=intervals)
    np.testing.assert_array_equal(again, first)
    assert CALLS == [(0.5, 1.5)]  # read back, not computed
    reference_kept(cache, "norm", _scipy_norm_sf, values + 1, under_test=intervals)
    assert len(CALLS) == 2  # other arguments, another value
    assert len(list(tmp_path.glob("*/norm/*/*/*.pickle"))) == 2


def test_another_library_version_or_cpu_setting_computes_again(tmp_path, monkeypatch):
    cache, values = _Cache(tmp_path), np.array([0.25])
    CALLS.clear()
    reference_kept(cache, "norm", _scipy_norm_sf, values, under_test=intervals)
    _fresh_process(monkeypatch)
    monkeypatch.setenv("NPY_DISABLE_CPU_FEATURES", "AVX512F")
    reference_kept(cache, "norm", _scipy_norm_sf, values, under_test=intervals)
    _fresh_process(monkeypatch)
    real = reference_memo.metadata.version
    monkeypatch.setattr(
        reference_memo.metadata, "version", lambda name: "0.0" if name == "scipy" else real(name)
    )
    reference_kept(cache, "norm", _scipy_norm_sf, values, under_test=intervals)
    assert len(CALLS) == 3
    # the out-of-date versions' folders are gone: one left
    assert len(list(tmp_path.glob("*/norm/*/*"))) == 1


def test_without_a_cache_every_reference_is_computed(tmp_path):
    CALLS.clear()
    for _ in range(2):
        reference_kept(None, "norm", _scipy_norm_sf, np.array([2.0]), under_test=intervals)
    assert len(CALLS) == 2


def _scipy_norm_cdf(values):
    CALLS.append(tuple(values))
    return stats.norm.cdf(values)


def test_two_modules_keeping_one_kind_of_reference_keep_both(tmp_path, monkeypatch):
    cache, values = _Cache(tmp_path), np.array([1.0])
    CALLS.clear()
    for compute in (_scipy_norm_sf, _scipy_norm_cdf, _scipy_norm_sf, _scipy_norm_cdf):
        _fresh_process(monkeypatch)
        reference_kept(cache, "norm", compute, values, under_test=intervals)
    assert len(CALLS) == 2
