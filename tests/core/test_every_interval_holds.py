"""Every interval a reader sees belongs to the number beside it.

On the four demos and 200 seeded random tables (ties, missing cells, folds, top-K
rankings), for every estimator of the registry: its own interval contains its P(win),
carries the registry's kind and label, and is the one the verdict quotes; the rank
intervals hold each algorithm's shared position, and the plausible winners are exactly
the algorithms whose rank interval starts at 1, in the board's order, named by the
verdict's first sentence.
"""

from __future__ import annotations

import numpy as np
import pytest

from estimation.core.analysis import UNCERTAINTY_DEFERRED, analyze
from estimation.core.contract import (
    AnalysisSettings,
    Board,
    BootstrapSummary,
    NotApplicable,
    RankIntervals,
    Verdict,
    WinInterval,
)
from estimation.core.rank_inference import rank_intervals
from estimation.core.registry import (
    ESTIMATOR_KEYS,
    WIN_RATE_INTERVAL_KIND,
    estimator_get,
    interval_label,
)
from estimation.core.resampling import bias_corrected_interval
from estimation.core.table import ResultTable
from estimation.core.verdict import board_order, shared_positions, win_band
from tests.core.demo_tables import DEMO_TABLES, SETTINGS

# The exact interval contains x/n in real arithmetic; its closed form is evaluated
# in floats, so an end may pass the point by a few ulps (at x = 0 or x = n).
WILSON_ROUNDING = 1e-12


def _check_board(board: Board) -> None:
    m = len(board.algorithms)
    exact = board.win_interval
    for result in board.estimators:
        boot = result.bootstrap
        p = np.array(result.p, dtype=float)
        if isinstance(boot, BootstrapSummary):
            lower, upper = np.array(boot.lower, float), np.array(boot.upper, float)
            shown = ~np.isnan(lower)  # a worth share that never varied shows no interval
            assert result.key == "plackett_luce" or shown.all(), result.key
            # the construction takes the point as an end when needed: exact, no tolerance
            assert np.all(lower[shown] <= p[shown]) and np.all(p[shown] <= upper[shown])
            assert np.all(lower[shown] >= 0.0) and np.all(upper[shown] <= 1.0), result.key
            kind = estimator_get(result.key).interval_kind
            assert boot.kind == kind and boot.label == interval_label(kind, boot.level)
        band = win_band(board, result.key)
        if band is None:
            assert isinstance(boot, NotApplicable)
            continue
        entry = estimator_get(result.key)
        if result.key != "mle" and entry.quantity == "P(win)" and isinstance(exact, WinInterval):
            # an estimate of P(win) beside the exact interval of the true P(win), its own
            # spread secondary (the estimate need not lie inside: another quantity)
            assert band.of_true_p_win and band.lower == exact.lower
            assert band.label == f"{exact.label} of the true P(win)"
            assert band.spread == (boot if isinstance(boot, BootstrapSummary) else None)
            continue
        assert not band.of_true_p_win
        slack = WILSON_ROUNDING if result.key == "mle" else 0.0
        low, high = np.array(band.lower, float), np.array(band.upper, float)
        shown = ~np.isnan(low)
        assert np.all(low[shown] <= p[shown] + slack), result.key
        assert np.all(p[shown] <= high[shown] + slack), result.key
        if board.input.n_datasets_used >= 10:  # never a point where the data say more
            assert np.all(high[shown] - low[shown] > 1e-9), result.key
        if result.key != "mle":  # the exact interval belongs to the win rate only
            assert isinstance(boot, BootstrapSummary) and band.lower == boot.lower
        elif isinstance(exact, WinInterval):
            assert (
                band.label
                == exact.label
                == interval_label(WIN_RATE_INTERVAL_KIND, band.level, source="exact")
            )

    verdict = board.verdict
    assert isinstance(verdict, Verdict)
    key = board.recommended
    band = win_band(board, key)
    order = board_order(board, key)
    assert verdict.leader == board.algorithms[order[0]]
    if band is None:
        assert verdict.lower is None and verdict.interval == ""
    else:
        assert verdict.interval == band.label
        assert (verdict.lower, verdict.upper) == (band.lower[order[0]], band.upper[order[0]])
        slack = WILSON_ROUNDING if key == "mle" else 0.0
        assert verdict.probability is not None
        if not band.of_true_p_win and verdict.lower is not None and verdict.upper is not None:
            assert verdict.lower - slack <= verdict.probability <= verdict.upper + slack

    ranks = board.ranks
    first = verdict.sentences[0]
    if isinstance(ranks, NotApplicable):
        assert "the best is" not in first and "no rank intervals" in first
        return
    assert isinstance(ranks, RankIntervals)
    lower, upper = np.array(ranks.lower), np.array(ranks.upper)
    assert np.all(1 <= lower) and np.all(lower <= upper) and np.all(upper <= m)
    if ranks.question == "best_on_average":
        # the target is the expected rank: each interval holds the algorithm's place by
        # mean rank, every place of its tie group included
        assert ranks.estimator == "borda"
        mean_rank = np.array(board.mean_rank, dtype=float)
        places = 1 + (mean_rank[None, :] < mean_rank[:, None] - 1e-9).sum(axis=1)
        last = (mean_rank[None, :] <= mean_rank[:, None] + 1e-9).sum(axis=1)
        assert np.all(lower <= places) and np.all(last <= upper)
        leader = board.algorithms[int(np.argmin(mean_rank))]
    else:
        assert ranks.estimator == key
        positions = np.empty(m, dtype=int)
        positions[order] = shared_positions(board, key, order)
        # the shared position (1 + the number of larger estimates) and every position of
        # its tie group lie inside the interval
        for i in range(m):
            group = np.flatnonzero(positions == positions[i])
            assert lower[i] <= positions[i] and positions[i] + len(group) - 1 <= upper[i]
        leader = verdict.leader
    winners = ranks.plausible_winners
    assert all(lower[board.algorithms.index(name)] == 1 for name in winners)
    assert leader in winners
    assert [board.algorithms.index(w) for w in winners] == [
        i for i in order if board.algorithms[i] in winners
    ]
    if len(winners) == 1:
        assert f"{winners[0]} is the {ranks.question_words}:" in first
    else:
        assert "the data cannot" in first or "datasets like these would single out" in first
        shown = winners if len(winners) <= 6 else winners[:5]
        assert all(name in first for name in shown)


@pytest.mark.parametrize("demo", sorted(DEMO_TABLES))
@pytest.mark.parametrize("estimator", ESTIMATOR_KEYS)
def test_every_interval_holds_its_point_on_the_demos(demo, estimator):
    settings = AnalysisSettings(
        bootstrap=SETTINGS.bootstrap, default_estimator=estimator, evaluation_repeats=1
    )
    _check_board(analyze(DEMO_TABLES[demo](), settings, advisor=False).payload.board)


def _random_table(rng: np.random.Generator) -> ResultTable:
    """A small table with what real ones have: ties, gaps, folds or only the top K."""
    n, m = int(rng.integers(2, 41)), int(rng.integers(2, 9))
    datasets = tuple(f"d{i}" for i in range(n))
    algorithms = tuple(f"a{j}" for j in range(m))
    skill = rng.normal(scale=rng.choice([0.0, 0.3, 1.0]), size=m)
    style = rng.choice(["scores", "folds", "top_k"])
    if style == "top_k":
        k = int(rng.integers(1, m + 1))
        order = np.argsort(-(skill + rng.gumbel(size=(n, m))), axis=1)
        values = np.full((n, m), np.nan)
        for i in range(n):
            values[i, order[i, :k]] = np.arange(1, k + 1)
        return ResultTable(datasets, algorithms, values, kind="rank")
    folds = None
    if style == "folds":
        f = int(rng.integers(2, 6))
        folds = skill + rng.normal(size=(n, 1, m)) * 0.5 + rng.normal(size=(n, f, m))
        folds = np.round(folds, int(rng.integers(0, 3)))  # ties within folds and means
        values = folds.mean(axis=1)
    else:
        values = np.round(skill + rng.normal(size=(n, m)), int(rng.integers(0, 3)))
    if rng.random() < 0.5:  # missing cells, sometimes a whole algorithm
        gaps = rng.random((n, m)) < rng.choice([0.05, 0.2])
        gaps[:, 0] = False  # keep some complete datasets
        values = np.where(gaps, np.nan, values)
        if folds is not None:
            folds = np.where(gaps[:, None, :], np.nan, folds)
    return ResultTable(
        datasets,
        algorithms,
        values,
        higher_is_better=bool(rng.random() < 0.7),
        fold_values=folds,
    )


@pytest.mark.parametrize("block", range(4))
def test_every_interval_holds_its_point_on_random_tables(block):
    """200 tables in four blocks of 50; the recommended estimator cycles through the
    registry, so every estimator's rank intervals are checked."""
    rng = np.random.default_rng(2100 + block)
    checked = 0
    for t in range(50):
        table = _random_table(rng)
        settings = AnalysisSettings(
            bootstrap=100,
            evaluation_folds=3,
            evaluation_repeats=1,
            seed=t,
            default_estimator=ESTIMATOR_KEYS[(block * 50 + t) % len(ESTIMATOR_KEYS)],
            missing="worst" if rng.random() < 0.3 else "complete",
        )
        try:
            analysis = analyze(table, settings, advisor=False)
        except ValueError:  # too few algorithms or datasets left: said, not analysed
            continue
        _check_board(analysis.payload.board)
        checked += 1
    assert checked >= 40  # the generator makes analysable tables


def test_a_deferred_board_has_the_set_of_the_best_at_once():
    """Whole rankings: the set of the best and the rank intervals need no bootstrap, so
    the board served before its bootstrap already has them, as the completed one does."""
    table = DEMO_TABLES["demsar"]()
    board = analyze(table, SETTINGS, advisor=False, uncertainty=False).payload.board
    assert board.evaluation == NotApplicable(UNCERTAINTY_DEFERRED)
    whole = analyze(table, SETTINGS, advisor=False).payload.board
    assert isinstance(board.ranks, RankIntervals) and board.ranks == whole.ranks
    _check_board(board)


# --- the two pure functions, on cases worked by hand ------------------------------------


def test_bias_corrected_interval_is_the_percentile_one_when_the_point_is_the_median():
    replicates = np.arange(1.0, 102.0)[:, None]  # 1..101, the point 51 is the median
    lower, upper = bias_corrected_interval(np.array([51.0]), replicates, level=0.9)
    np.testing.assert_allclose(
        [lower[0], upper[0]], np.quantile(replicates, [0.05, 0.95]), rtol=1e-12
    )


def test_bias_corrected_interval_takes_the_point_at_the_edge_or_with_no_spread():
    replicates = np.array([[0.2, 0.0, 0.5], [0.3, 0.0, 0.5], [0.4, 0.0, 0.5]])
    lower, upper = bias_corrected_interval(np.array([0.1, 0.0, 0.5]), replicates)
    assert lower[0] == 0.1 and 0.1 <= upper[0] <= 0.4  # every replicate above the point
    assert lower[1] == upper[1] == 0.0  # p = 0 in every replicate
    assert lower[2] == upper[2] == 0.5  # all replicates equal to the point


def test_rank_intervals_separate_clear_gaps_and_keep_ties_together():
    rng = np.random.default_rng(0)
    theta = np.array([0.6, 0.3, 0.3, 0.1])
    replicates = theta + rng.normal(scale=0.01, size=(1000, 4))
    for pairwise_max in (60, 1):  # the pairwise stepdown, and the marginal construction
        result = rank_intervals(theta, replicates, n_datasets=100, pairwise_max=pairwise_max)
        assert result.lower.tolist() == [1, 2, 2, 4]
        assert result.upper.tolist() == [1, 3, 3, 4]
        assert result.best.tolist() == [True, False, False, False]


@pytest.mark.parametrize("pairwise_max", [60, 1])
def test_a_difference_without_spread_is_not_taken_as_certain_from_few_datasets(pairwise_max):
    """One algorithm first in every resample: no bootstrap spread, so the pair is judged
    as a sign test of a win on all n datasets (z = sqrt(n)) against Bonferroni's
    one-sided bound over the 6 ordered pairs (2.39) in the stepdown, the 6 pairs of the
    marginal construction alike: 5 datasets (z = 2.24) cannot separate it, 7 (2.65) can."""
    theta = np.array([1.0, 0.0, 0.0])
    replicates = np.tile(theta, (200, 1))
    for n, separated in ((5, False), (7, True), (400, True)):
        result = rank_intervals(theta, replicates, n_datasets=n, pairwise_max=pairwise_max)
        assert result.best.tolist() == ([True, False, False] if separated else [True] * 3)
        assert result.lower.tolist() == ([1, 2, 2] if separated else [1, 1, 1])


def test_a_failed_bootstrap_gives_its_reason_to_the_ranks_that_need_it():
    """Top-K lists take their rank intervals from the bootstrap, so its failure (or its
    absence) is their reason; whole rankings keep the mean-rank intervals, which need no
    bootstrap."""
    from estimation.core.analysis import uncertainty_failed

    table = DEMO_TABLES["tabzilla_top3"]()
    quick = analyze(table, SETTINGS, advisor=False, uncertainty=False).payload.board
    failed = uncertainty_failed(quick, "the bootstrap failed: out of memory")
    assert failed.ranks == NotApplicable("the bootstrap failed: out of memory")
    assert "out of memory" in failed.verdict.sentences[0]
    _check_board(failed)
    off = analyze(table, AnalysisSettings(bootstrap=0), advisor=False).payload.board
    assert off.ranks == NotApplicable("the bootstrap is switched off (0 replicates)")
    _check_board(off)
    whole = DEMO_TABLES["demsar"]()
    quick = analyze(whole, SETTINGS, advisor=False, uncertainty=False).payload.board
    failed = uncertainty_failed(quick, "the bootstrap failed: out of memory")
    assert isinstance(failed.ranks, RankIntervals) and failed.ranks == quick.ranks
    _check_board(failed)
    off = analyze(whole, AnalysisSettings(bootstrap=0), advisor=False).payload.board
    assert isinstance(off.ranks, RankIntervals) and off.ranks.lower == quick.ranks.lower
    _check_board(off)


def _same_order_everywhere(n: int, m: int = 5) -> ResultTable:
    """Every dataset ranks the algorithms alike: every bootstrap resample is the data
    again, so every estimator's own spread is a point."""
    values = np.tile(np.arange(m, 0, -1, dtype=float), (n, 1))
    return ResultTable(
        datasets=tuple(f"d{i}" for i in range(n)),
        algorithms=tuple(f"a{j}" for j in range(m)),
        values=values,
    )


@pytest.mark.parametrize("n", [10, 60])
def test_no_interval_shown_beside_a_number_is_a_point_at_ten_datasets_or_more(n):
    """The leader wins all n datasets and the others never win: the win rate's exact
    interval (0.69-1 at n = 10, 0.94-1 at n = 60) stands beside every P(win), the
    Borda and minimax points become the exact bound for values that never varied, and a
    worth share that never varied shows none; no band is a point."""
    from estimation.core.uncertainty_sections import CONSTANT_BOUND_METHOD

    for key in ESTIMATOR_KEYS:
        settings = AnalysisSettings(
            bootstrap=200, evaluation_folds=3, evaluation_repeats=1, default_estimator=key
        )
        board = analyze(_same_order_everywhere(n), settings, advisor=False).payload.board
        _check_board(board)
        band = win_band(board, key)
        assert band is not None
        low, high = np.array(band.lower, float), np.array(band.upper, float)
        shown = ~np.isnan(low)
        assert shown.sum() >= (0 if key == "plackett_luce" else len(low))
        assert np.all(high[shown] - low[shown] > 1e-3), (key, band)
    leader_low = 0.025 ** (1 / n)  # Clopper-Pearson's lower end for n wins of n
    exact = board.win_interval
    assert isinstance(exact, WinInterval)
    assert abs(exact.lower[0] - leader_low) < 1e-9
    borda = board.estimator("borda").bootstrap
    assert isinstance(borda, BootstrapSummary) and borda.method.endswith(CONSTANT_BOUND_METHOD)
    # the last algorithm's Borda share is 0 on every dataset: [0, (2/m) (1 - 0.05^(1/n))]
    q = 1 - 0.05 ** (1 / n)
    assert borda.lower[-1] == 0.0 and abs(borda.upper[-1] - 2 / 5 * q) < 1e-12
