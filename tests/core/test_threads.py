"""Threads in the numerical core: the same numbers to the bit, and the looser
refit tolerance of large bootstraps stays far inside the bootstrap's own noise."""

from __future__ import annotations

import time

import numpy as np
import pytest

from estimation.core import aggregates, resampling, significance
from estimation.core.rankings import rank_scores
from estimation.core.threads import MAX_THREADS, analysis_threads, run_interleaved


def scores_table(n: int, m: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.linspace(1.0, 0.0, m)[None, :] + rng.normal(scale=0.7, size=(n, m))


def test_the_thread_count_comes_from_the_setting_or_the_cpus(monkeypatch):
    monkeypatch.delenv("PODIUM_ANALYSIS_THREADS", raising=False)
    assert 1 <= analysis_threads() <= MAX_THREADS
    monkeypatch.setenv("PODIUM_ANALYSIS_THREADS", "3")
    assert analysis_threads() == 3
    for bad in ("0", "-2", "two"):
        monkeypatch.setenv("PODIUM_ANALYSIS_THREADS", bad)
        with pytest.raises(ValueError, match="PODIUM_ANALYSIS_THREADS"):
            analysis_threads()


def test_every_item_is_run_once_and_errors_propagate(monkeypatch):
    monkeypatch.setenv("PODIUM_ANALYSIS_THREADS", "3")
    seen: list[int] = []
    run_interleaved(lambda items: seen.extend(items), range(10))
    assert sorted(seen) == list(range(10))

    def fail(items):
        if 4 in items:
            raise RuntimeError("batch 4 failed")

    with pytest.raises(RuntimeError, match="batch 4 failed"):
        run_interleaved(fail, range(10))


def test_threaded_signed_rank_tests_equal_the_serial_ones_to_the_bit(monkeypatch):
    # Small batches so that the 435 pairs make 44 of them, a missing value so that pairs
    # differ in size, and rounded scores so that some rows have ties.
    monkeypatch.setattr(significance.signed_rank, "_PAIR_CHUNK_ELEMENTS", 1000)
    scores = np.round(scores_table(100, 30), 1)
    scores[3, 7] = np.nan
    results = {}
    for threads in ("1", "4"):
        monkeypatch.setenv("PODIUM_ANALYSIS_THREADS", threads)
        results[threads] = significance.wilcoxon_pairwise(scores)
    serial, threaded = results["1"], results["4"]
    for field in ("pvalues", "pvalues_corrected", "statistic", "effect_size", "n_nonzero"):
        np.testing.assert_array_equal(getattr(serial, field), getattr(threaded, field))
    assert (serial.method == threaded.method).all()


def test_threaded_refits_equal_the_serial_ones_to_the_bit(monkeypatch):
    # A chunk smaller than one table sends every replicate down the one-at-a-time path.
    monkeypatch.setattr(aggregates, "_PL_CHUNK_ELEMENTS", 10)
    ranks = rank_scores(scores_table(60, 12))
    counts = np.random.default_rng(1).multinomial(60, np.full(60, 1 / 60), size=9)
    fits = {}
    for threads in ("1", "3"):
        monkeypatch.setenv("PODIUM_ANALYSIS_THREADS", threads)
        fits[threads] = aggregates.plackett_luce_probabilities(
            ranks, dataset_weights=counts.astype(float), tol=1e-8
        )
    np.testing.assert_array_equal(fits["1"], fits["3"])


def test_large_tables_use_the_looser_refit_tolerance():
    assert resampling.resampled_pl_tol(5000, 500) == resampling.PL_LARGE_RESAMPLED_TOL
    assert resampling.resampled_pl_tol(1000, 100) == resampling.PL_RESAMPLED_TOL
    assert resampling.resampled_pl_tol(10_000, 100) == resampling.PL_RESAMPLED_TOL


def test_the_large_table_tolerance_stays_within_one_percent_of_the_bootstrap_spread():
    """Refits stopped at PL_LARGE_RESAMPLED_TOL against fits converged to 1e-12, on the
    same 200 bootstrap replicates: the largest gap, in units of each algorithm's
    bootstrap standard deviation, and the gap of the 95 % interval's ends."""
    n, m = 400, 40
    ranks = rank_scores(scores_table(n, m, seed=2))
    counts = np.random.default_rng(3).multinomial(n, np.full(n, 1 / n), size=200).astype(float)
    loose, converged = (
        aggregates.plackett_luce_probabilities(ranks, dataset_weights=counts, tol=tol)
        for tol in (resampling.PL_LARGE_RESAMPLED_TOL, 1e-12)
    )
    spread = converged.std(axis=0)
    assert (np.abs(loose - converged) / spread).max() < 0.01
    ends = np.quantile(loose, [0.025, 0.975], axis=0)
    converged_ends = np.quantile(converged, [0.025, 0.975], axis=0)
    assert (np.abs(ends - converged_ends) / spread).max() < 0.01


def test_the_bootstrap_refits_a_large_table_at_the_looser_tolerance(monkeypatch):
    ranks = rank_scores(scores_table(80, 10, seed=4))
    exact = resampling.bootstrap(ranks, rng=5, n_boot=200, schemes=["plackett_luce"])
    monkeypatch.setattr(resampling, "PL_LARGE_REFIT_CELLS", 0)
    loose = resampling.bootstrap(ranks, rng=5, n_boot=200, schemes=["plackett_luce"])
    before, after = exact.schemes["plackett_luce"], loose.schemes["plackett_luce"]
    assert not np.array_equal(before.lower, after.lower)
    width = before.upper - before.lower
    # The bias correction reads the share of replicates below the estimate, which the
    # looser refits can move by a replicate or two (1.3 % of the width measured here),
    # against a Monte Carlo error of the ends near 10 % of it at B = 200.
    assert (np.abs(after.lower - before.lower) / width).max() < 0.02
    assert (np.abs(after.upper - before.upper) / width).max() < 0.02


def test_cross_validation_refits_a_large_table_to_the_resampled_tolerance(monkeypatch):
    ranks = rank_scores(scores_table(60, 8, seed=6))
    exact = resampling.evaluate_schemes(ranks, rng=7, n_folds=5, n_repeats=2)
    monkeypatch.setattr(resampling, "PL_LARGE_REFIT_CELLS", 0)
    loose = resampling.evaluate_schemes(ranks, rng=7, n_folds=5, n_repeats=2)
    before = exact.mean_log_loss["plackett_luce"]
    after = loose.mean_log_loss["plackett_luce"]
    assert before != after
    assert abs(after - before) < 1e-6 * before
    assert loose.mean_log_loss["mle"] == exact.mean_log_loss["mle"]
    assert loose.best_log == exact.best_log


def test_an_interruption_stops_every_thread_after_its_current_item(monkeypatch):
    """A soft time limit raises in the waiting thread: the others must not go on through
    their whole share (the hard limit would kill the task before it records why)."""
    monkeypatch.setenv("PODIUM_ANALYSIS_THREADS", "2")
    done: list[int] = []

    def work(items):
        for item in items:
            if item == 1:
                raise RuntimeError("interrupted")
            time.sleep(0.01)
            done.append(item)

    with pytest.raises(RuntimeError, match="interrupted"):
        run_interleaved(work, range(200))
    assert len(done) < 10
