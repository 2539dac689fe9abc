"""The set of the best and the rank intervals of expected ranks: sharp where
the data are, monotone, and never a candidate that a test on the same page finds worse."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from estimation.core.analysis import analyze
from estimation.core.contract import AnalysisSettings, ControlComparison, NemenyiSummary, Verdict
from estimation.core.mean_rank_inference import mean_rank_inference, sign_agreement_needed
from estimation.core.table import ResultTable
from tests.core.demo_tables import DEMO_TABLES

SETTINGS = AnalysisSettings(bootstrap=200, evaluation_repeats=1)


def _ranks(scores: np.ndarray) -> np.ndarray:
    """Average ranks, 1 = the largest score of each row."""
    return np.apply_along_axis(lambda row: stats.rankdata(-row), 1, scores)


def _thurstone(means: np.ndarray, n: int, seed: int, noise: float = 1.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return means + noise * rng.standard_normal((n, means.size))


def _board(scores: np.ndarray, *, folds: np.ndarray | None = None, **settings):
    n, m = scores.shape
    table = ResultTable(
        datasets=tuple(f"d{i}" for i in range(n)),
        algorithms=tuple(f"a{j:03d}" for j in range(m)),
        values=scores,
        fold_values=folds,
    )
    chosen = AnalysisSettings(bootstrap=200, evaluation_repeats=1, **settings)
    return analyze(table, chosen, advisor=False).payload.board


def test_an_algorithm_behind_the_leader_on_every_fold_of_every_dataset_is_no_candidate():
    """Five algorithms with folds: one 0.08 below the leader on every fold (win rate 0)
    is not starred, whatever the others do."""
    rng = np.random.default_rng(3)
    n, f, m = 10, 5, 5
    base = rng.uniform(0.6, 0.8, size=(n, 1, 1))
    folds = base + rng.normal(scale=0.05, size=(n, f, m))
    folds[:, :, 1] = folds[:, :, 0] - 0.08  # a1 trails a0 by 0.08 everywhere
    board = _board(folds.mean(axis=1), folds=folds)
    ranks = board.ranks
    assert "a001" not in ranks.plausible_winners
    assert ranks.question == "best_on_average"


def test_a_clear_large_board_is_sharp():
    """130 algorithms in a clear order on 60 datasets: one best, and rank intervals a
    quarter of m wide at most on average (the P(win) ranks were [2, 130] nearly all)."""
    m, n = 130, 60
    ranks = _ranks(_thurstone(np.r_[16.0, np.linspace(13, 0, m - 1)], n, seed=1))
    result = mean_rank_inference(ranks)
    assert result.best.tolist() == [True] + [False] * (m - 1)
    width = (result.upper - result.lower + 1).mean()
    assert width <= m / 4, width


def test_a_helm_like_board_leaves_at_most_half_as_candidates():
    """90 models on 9 scenarios, models spread as on HELM Lite: the leader beats most on
    every scenario, and at most half remain candidates for best."""
    m, n = 90, 9
    ranks = _ranks(_thurstone(np.linspace(3, 0, m), n, seed=2, noise=0.6))
    result = mean_rank_inference(ranks)
    assert result.best.sum() <= m // 2, result.best.sum()
    assert result.best[np.argmin(ranks.mean(axis=0))]


def test_too_few_datasets_separate_nothing():
    """Below five datasets no sign test can agree at 0.05: nothing is separated, however
    consistent the order (the paired t of a constant difference is infinite)."""
    assert sign_agreement_needed(0.05, 4) is None
    assert sign_agreement_needed(0.05, 5) == 5
    ranks = np.tile(np.arange(1.0, 6.0), (4, 1))
    result = mean_rank_inference(ranks)
    assert result.best.all() and (result.lower == 1).all() and (result.upper == 5).all()
    result = mean_rank_inference(np.tile(np.arange(1.0, 6.0), (8, 1)))
    assert result.best.tolist() == [True, False, False, False, False]


@pytest.mark.parametrize("seed", range(20))
def test_more_evidence_never_enlarges_the_set_or_widens_an_interval(seed):
    """The same datasets seen twice (every paired t grows by about sqrt(2), the sign
    counts double): the set of the best and every interval are nested in the first."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(3, 12))
    n = int(rng.integers(5, 25))
    ranks = _ranks(_thurstone(np.sort(rng.normal(size=m))[::-1] * 0.8, n, seed=seed))
    once = mean_rank_inference(ranks)
    twice = mean_rank_inference(np.vstack([ranks, ranks]))
    assert not (twice.best & ~once.best).any()
    assert (twice.lower >= once.lower).all() and (twice.upper <= once.upper).all()


def test_a_tie_in_every_dataset_is_never_separated():
    ranks = np.array([[1.5, 1.5, 3.0]] * 12)
    result = mean_rank_inference(ranks)
    assert result.best.tolist() == [True, True, False]
    assert result.lower.tolist() == [1, 1, 3] and result.upper.tolist() == [2, 2, 3]


def test_the_interval_holds_each_place_by_mean_rank():
    rng = np.random.default_rng(7)
    ranks = _ranks(_thurstone(np.linspace(2, 0, 12), 15, seed=7))
    ranks[rng.integers(0, 15, 3)] = 6.5  # a few datasets where all tie
    result = mean_rank_inference(ranks)
    mean = ranks.mean(axis=0)
    places = 1 + (mean[None, :] < mean[:, None] - 1e-9).sum(axis=1)
    assert (result.lower <= places).all() and (places <= result.upper).all()


@pytest.mark.parametrize("demo", sorted(DEMO_TABLES))
def test_no_candidate_is_significantly_worse_than_the_leader_on_the_same_page(demo):
    """Nemenyi's critical difference and the comparison with a control (when the control
    is the best mean rank) never call a starred algorithm worse than the leader."""
    board = analyze(DEMO_TABLES[demo](), SETTINGS, advisor=False).payload.board
    ranks = board.ranks
    if board.input.known_positions < len(board.algorithms):
        # top-K lists: the lower ranks are unknown, the set answers the P(win) question
        assert ranks.question == "next_win"
        return
    assert ranks.question == "best_on_average"
    mean_rank = np.array(board.mean_rank, dtype=float)
    leader = int(np.argmin(mean_rank))
    starred = [board.algorithms.index(name) for name in ranks.plausible_winners]
    assert leader in starred
    if isinstance(board.nemenyi, NemenyiSummary):
        cd = board.nemenyi.critical_difference
        assert all(mean_rank[j] - mean_rank[leader] <= cd for j in starred)
    control = board.control
    if isinstance(control, ControlComparison) and control.control == board.algorithms[leader]:
        assert not any(control.significant_holm[j] for j in starred)


@pytest.mark.parametrize("estimator", ["borda", "plackett_luce", "minimax"])
def test_a_score_that_is_no_win_probability_is_never_called_p_win(estimator):
    board = analyze(
        DEMO_TABLES["demsar"](),
        AnalysisSettings(bootstrap=200, evaluation_repeats=1, default_estimator=estimator),
        advisor=False,
    ).payload.board
    verdict = board.verdict
    assert isinstance(verdict, Verdict)
    number = verdict.sentences[1]
    assert "P(win)" not in number
    assert {"borda": "Borda score", "plackett_luce": "PL worth share"}.get(
        estimator, "minimax share"
    ) in number


def test_the_headline_p_win_has_a_confidence_interval_not_a_point():
    """A leader that wins all 12 datasets: its estimate's bootstrap spread is a point,
    the exact confidence interval of the true P(win) beside it is not."""
    rng = np.random.default_rng(11)
    scores = rng.normal(size=(12, 5))
    scores[:, 0] = scores.max(axis=1) + 1.0
    board = _board(scores)
    number = board.verdict.sentences[1]
    assert "confidence interval of the true P(win)" in number
    exact = board.win_interval
    assert exact.lower[0] < exact.upper[0] - 0.1


def test_sensitivity_compares_huge_mean_scores_without_overflow():
    """Scores above 1.8e296 overflowed np.round(x, 12) to infinity, so
    the panel said 'tied for first under mean score' and tau was null; scipy gives 1."""
    from estimation.core.sensitivity import method_sensitivity

    names = ("a", "b", "c")
    huge = np.array([3e300, 2e300, 1e300])
    result = method_sensitivity(
        [("mean_score", huge), ("mle", np.array([0.5, 0.3, 0.2]))],
        mean_rank=np.array([1.0, 2.0, 3.0]),
        names=names,
    )
    assert result.tied_first == (False, False)
    assert result.tau[0, 1] == pytest.approx(stats.kendalltau(huge, [0.5, 0.3, 0.2])[0])


@pytest.mark.parametrize("seed", range(40))
def test_the_datasets_said_to_separate_the_leader_do(seed):
    """Where validity keeps the set large, the page says roughly how many
    datasets would single out the leader. The same datasets repeated to that many (10 %
    more: the sign test's counts are whole numbers, so its p-value is not monotone in
    the size) leave it alone in the set (the differences then are as observed)."""
    m, n = 6, 12
    ranks = _ranks(_thurstone(np.linspace(1.0, 0.0, m), n, seed=seed))
    result = mean_rank_inference(ranks)
    needed = result.separating_datasets
    if result.best.sum() == 1:
        assert needed is None
        return
    if needed is None:  # some member is not behind the leader on the whole
        return
    assert needed > n
    copies = -(-int(1.1 * needed) // n)
    repeated = mean_rank_inference(np.tile(ranks, (copies, 1)))
    leader = int(np.argmin(ranks.mean(axis=0)))
    assert repeated.best.tolist() == [j == leader for j in range(m)]
