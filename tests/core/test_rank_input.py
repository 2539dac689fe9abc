"""One rule for a rank matrix at every public function that takes one (``_ranks_iv``):
2-D, at least one dataset and one algorithm, finite (``NaN`` only where a function reads
the pairs present), within ``[1, m]``; the win-probability estimators need two
algorithms. Each rule is checked with its exact message at every entry point."""

from __future__ import annotations

import re

import numpy as np
import pytest

from estimation.core import aggregates, significance
from estimation.core.advisor import advise
from estimation.core.intervals import win_intervals
from estimation.core.rankings import prepare_rankings
from estimation.core.resampling import bootstrap, evaluate_schemes, scheme_estimates
from estimation.core.table import ResultTable
from estimation.core.win_probability import (
    fit_loo,
    fit_loo_batch,
    fit_loo_kl,
    fit_loo_tv,
    fit_minimax,
    mle,
    win_probabilities,
)

NOT_2D = "ranks must be a 2-D array (datasets x algorithms), got 1-D"
EMPTY = "ranks must have at least one dataset and one algorithm, got (0, 3)"
NOT_FINITE = (
    "ranks must be finite; resolve missing results first (complete block or 'worst' "
    "policy, see rankings)"
)
OUT_OF_RANGE = "ranks must lie in [1, m] = [1, 3]"
ONE_ALGORITHM = "at least 2 algorithms are needed to estimate win probabilities, got 1"


def _counts(ranks):
    return np.ones((1, np.shape(ranks)[0]))


AGGREGATES = {
    "mean_rank": aggregates.mean_rank,
    "borda_probabilities": aggregates.borda_probabilities,
    "plackett_luce": aggregates.plackett_luce,
    "plackett_luce_probabilities": aggregates.plackett_luce_probabilities,
}
SIGNIFICANCE = {
    "friedman": significance.friedman,
    "nemenyi": significance.nemenyi,
    "rank_test_not_applicable": significance.rank_test_not_applicable,
}
WIN_PROBABILITY = {
    "win_probabilities": lambda r: win_probabilities(r, [1.0]),
    "mle": mle,
    "fit_minimax": lambda r: fit_minimax(r, K=1),
    "fit_loo_kl": lambda r: fit_loo_kl(r, K=1),
    "fit_loo_tv": lambda r: fit_loo_tv(r, K=1),
    "fit_loo": lambda r: fit_loo(r, K=1),
    "fit_loo_batch": lambda r: fit_loo_batch(r, _counts(r), K=1),
    "scheme_estimates": lambda r: scheme_estimates(r, _counts(r), K=1),
    "bootstrap": lambda r: bootstrap(r, rng=0, n_boot=2, K=1),
    "evaluate_schemes": lambda r: evaluate_schemes(r, rng=0, n_folds=2, n_repeats=1, K=1),
    "win_intervals": win_intervals,
}
ADVISOR = {"advise": lambda r: advise(r, rng=0, K=1, n_simulations=2)}
COMPLETE = {**AGGREGATES, **SIGNIFICANCE, **WIN_PROBABILITY, **ADVISOR}
EVERY = {**COMPLETE, "pairwise_win_matrix": aggregates.pairwise_win_matrix}

NAN = np.nan
INF = np.inf


def _raises(function, ranks, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        function(np.array(ranks, dtype=float))


@pytest.mark.parametrize("name", sorted(EVERY))
def test_shape_and_size_at_every_entry_point(name):
    _raises(EVERY[name], [1.0, 2.0], NOT_2D)
    _raises(EVERY[name], np.empty((0, 3)), EMPTY)


@pytest.mark.parametrize("name", sorted(EVERY))
def test_ranks_outside_one_to_m_at_every_entry_point(name):
    for row in ([0.5, 2.0, 3.5], [1.0, 2.0, 4.0]):
        _raises(EVERY[name], [row, [1.0, 2.0, 3.0]], OUT_OF_RANGE)


@pytest.mark.parametrize("name", sorted(COMPLETE))
def test_missing_and_infinite_ranks_at_every_entry_point(name):
    for bad in (NAN, INF, -INF):
        _raises(COMPLETE[name], [[1.0, bad, 3.0], [1.0, 2.0, 3.0]], NOT_FINITE)


def test_pairwise_win_matrix_reads_nan_as_missing_but_not_infinity():
    matrix = aggregates.pairwise_win_matrix(np.array([[1.0, NAN, 2.0], [1.0, 2.0, 3.0]]))
    assert matrix[0, 1] == 1.0 and matrix[0, 2] == 1.0  # from the datasets both have
    for bad in (INF, -INF):
        _raises(
            aggregates.pairwise_win_matrix,
            [[1.0, bad, 2.0], [1.0, 2.0, 3.0]],
            "ranks must be finite or NaN (missing)",
        )


@pytest.mark.parametrize("name", sorted(WIN_PROBABILITY))
def test_win_probabilities_need_two_algorithms(name):
    _raises(WIN_PROBABILITY[name], np.ones((3, 1)), ONE_ALGORITHM)


def test_one_algorithm_is_a_valid_rank_matrix_elsewhere():
    ranks = np.ones((3, 1))
    assert aggregates.mean_rank(ranks).tolist() == [1.0]
    assert aggregates.borda_probabilities(ranks).tolist() == [1.0]
    reason = "needs at least two algorithms, got 1"
    assert significance.rank_test_not_applicable(ranks) == reason
    assert significance.friedman(ranks).not_applicable == reason
    assert significance.nemenyi(ranks).not_applicable == reason
    # the advisor says why it has nothing to advise rather than refusing the table
    advice = advise(ranks, rng=0, K=1, n_simulations=2)
    assert advice.not_applicable == "a single algorithm: there is no winner to predict"


def test_a_rank_table_lists_positions_from_one_and_every_winner():
    """The other kind of rank input, a rank table's listed positions, has its own helper
    (``_listed_positions_iv``) at its one entry point, ``prepare_rankings``."""
    algorithms = ("a", "b", "c")

    def table(values):
        return ResultTable(("d1", "d2"), algorithms, np.array(values, dtype=float), kind="rank")

    with pytest.raises(ValueError, match=r"^rank tables must hold positions >= 1$"):
        prepare_rankings(table([[0.0, 1.0, 2.0], [1.0, 2.0, 3.0]]))
    with pytest.raises(
        ValueError, match=r"^every dataset of a rank table must list at least its winner$"
    ):
        prepare_rankings(table([[1.0, NAN, NAN], [NAN, NAN, NAN]]))
    assert prepare_rankings(table([[1.0, NAN, NAN], [2.0, 1.0, NAN]])).known_positions == 1
