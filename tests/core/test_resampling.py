"""Bootstrap over datasets (METHODS 6) and held-out evaluation of the schemes (METHODS 7)."""

from __future__ import annotations

import numpy as np
import pytest

from estimation.core import aggregates
from estimation.core.rankings import prepare_rankings, rank_scores
from estimation.core.resampling import (
    NO_CLEAR_WINNER,
    SCHEMES,
    NadeauBengio,
    _evaluation_folds,
    _evaluation_verdict,
    _predicts_best,
    bias_corrected_interval,
    bootstrap,
    evaluate_schemes,
    nadeau_bengio,
    scheme_estimates,
)
from estimation.core.win_probability import (
    fit_loo_batch,
    fit_loo_kl,
    fit_loo_tv,
    fit_minimax,
    minimax_weights,
    mle,
)
from tests.core.test_rankings import load_tabzilla_top3


def typical_ranks(n: int = 40, m: int = 6, seed: int = 0) -> np.ndarray:
    """Algorithms of graded strength with dataset noise and some rounding ties."""
    rng = np.random.default_rng(seed)
    scores = np.linspace(3.0, 0.0, m)[None, :] + rng.normal(scale=0.8, size=(n, m))
    return rank_scores(np.round(scores, 1))


def assert_results_identical(a, b):
    assert a.schemes.keys() == b.schemes.keys()
    for name in a.schemes:
        for field in ("estimate", "lower", "upper", "p_best"):
            np.testing.assert_array_equal(
                getattr(a.schemes[name], field), getattr(b.schemes[name], field)
            )


# ---------------------------------------------------------------------------
# scheme estimates


def test_scheme_estimates_on_the_full_data_equal_the_single_fits():
    ranks = typical_ranks(n=25)
    n = len(ranks)
    estimates = scheme_estimates(ranks, np.ones((1, n)), K=3)
    assert tuple(estimates) == SCHEMES
    np.testing.assert_allclose(estimates["mle"][0], mle(ranks).p, atol=1e-15)
    np.testing.assert_allclose(estimates["loo_kl"][0], fit_loo_kl(ranks, K=3).p, atol=1e-15)
    np.testing.assert_allclose(estimates["loo_tv"][0], fit_loo_tv(ranks, K=3).p, atol=1e-15)
    np.testing.assert_allclose(estimates["minimax"][0], fit_minimax(ranks, K=3).p, atol=1e-15)
    np.testing.assert_allclose(estimates["borda"][0], aggregates.borda_probabilities(ranks))
    np.testing.assert_allclose(
        estimates["plackett_luce"][0], aggregates.plackett_luce_probabilities(ranks), atol=1e-8
    )


def test_minimax_weights_follow_the_replicate_size():
    ranks = typical_ranks(n=12)
    masks = np.ones((2, 12))
    masks[0, :4] = 0  # 8 training datasets
    estimates = scheme_estimates(ranks, masks, schemes=["minimax"])
    expected = fit_minimax(ranks[4:], K=3)
    np.testing.assert_array_equal(expected.weights, minimax_weights(6, 8, 3).weights)
    np.testing.assert_allclose(estimates["minimax"][0], expected.p, atol=1e-15)


# ---------------------------------------------------------------------------
# bootstrap


def test_bootstrap_is_deterministic_for_a_seed():
    ranks = typical_ranks()
    a = bootstrap(ranks, rng=42, n_boot=200)
    b = bootstrap(ranks, rng=42, n_boot=200)
    c = bootstrap(ranks, rng=np.random.default_rng(42), n_boot=200)
    assert_results_identical(a, b)
    assert_results_identical(a, c)
    d = bootstrap(ranks, rng=43, n_boot=200)
    assert not np.array_equal(a.schemes["mle"].lower, d.schemes["mle"].lower) or not np.array_equal(
        a.schemes["mle"].p_best, d.schemes["mle"].p_best
    )


def test_bootstrap_intervals_contain_the_estimate_and_p_best_sums_to_one():
    ranks = typical_ranks()
    result = bootstrap(ranks, rng=1, n_boot=400)
    assert tuple(result.schemes) == SCHEMES
    for name, summary in result.schemes.items():
        assert np.all(summary.lower <= summary.estimate + 1e-12), name
        assert np.all(summary.estimate <= summary.upper + 1e-12), name
        assert np.all(summary.lower >= -1e-15) and np.all(summary.upper <= 1 + 1e-12)
        assert summary.p_best.sum() == pytest.approx(1.0, abs=1e-12)
        assert summary.estimate.sum() == pytest.approx(1.0, abs=1e-9)
    # The strongest algorithm (column 0) is the likeliest best under every scheme.
    for summary in result.schemes.values():
        assert np.argmax(summary.p_best) == 0


def test_bootstrap_matches_a_by_hand_replication():
    ranks = typical_ranks(n=15)
    n = len(ranks)
    result = bootstrap(ranks, rng=7, n_boot=150, schemes=["mle", "loo_kl"])
    counts = np.random.default_rng(7).multinomial(n, np.full(n, 1 / n), size=150)
    by_hand = {
        # The MLE of a replicate is the win rate of the expanded data.
        "mle": np.array([mle(ranks[np.repeat(np.arange(n), c)]).p for c in counts]),
        # LOO weights refitted replicate by replicate, one at a time.
        "loo_kl": np.array([fit_loo_batch(ranks, c[None, :], K=3).p_kl[0] for c in counts]),
    }
    for name, replicates in by_hand.items():
        estimate = result.schemes[name].estimate
        lower, upper = bias_corrected_interval(estimate, replicates, level=0.95)
        np.testing.assert_allclose(result.schemes[name].lower, lower, atol=1e-7)
        np.testing.assert_allclose(result.schemes[name].upper, upper, atol=1e-7)
        best = replicates.max(axis=1, keepdims=True)
        tied = replicates >= best - 1e-9
        np.testing.assert_allclose(
            result.schemes[name].p_best, (tied / tied.sum(axis=1, keepdims=True)).mean(axis=0)
        )


def test_bootstrap_reports_full_data_weights():
    ranks = typical_ranks(n=30)
    result = bootstrap(ranks, rng=0, n_boot=50, K=3)
    np.testing.assert_allclose(result.schemes["loo_kl"].weights, fit_loo_kl(ranks, K=3).weights)
    np.testing.assert_array_equal(
        result.schemes["minimax"].weights, minimax_weights(6, 30, 3).weights
    )
    np.testing.assert_array_equal(result.schemes["mle"].weights, [1, 0, 0])
    assert result.schemes["borda"].weights is None
    out = result.to_dict(tuple("abcdef"))
    assert set(out["schemes"]) == set(SCHEMES)
    assert set(out["schemes"]["loo_kl"]["p_best"]) == set("abcdef")
    assert out["n_boot"] == 50 and out["level"] == 0.95


def test_bootstrap_splits_ties_for_best_equally():
    ranks = np.full((6, 4), 2.5)
    result = bootstrap(ranks, rng=0, n_boot=30)
    for summary in result.schemes.values():
        np.testing.assert_allclose(summary.p_best, 0.25)
        np.testing.assert_allclose(summary.estimate, 0.25)


def test_bootstrap_on_top3_rankings():
    prepared = prepare_rankings(load_tabzilla_top3())
    result = bootstrap(
        prepared.ranks, rng=3, n_boot=100, K=3, known_positions=prepared.known_positions
    )
    for summary in result.schemes.values():
        assert summary.p_best.sum() == pytest.approx(1.0)
        assert np.all(summary.lower <= summary.upper)


def test_bootstrap_with_one_dataset():
    ranks = rank_scores(np.array([[0.2, 0.9, 0.5]]))
    result = bootstrap(ranks, rng=0, n_boot=20, K=2, schemes=["mle", "loo_kl", "loo_tv", "minimax"])
    for summary in result.schemes.values():
        np.testing.assert_allclose(summary.lower, summary.upper)


def test_bootstrap_validation():
    ranks = typical_ranks(n=5)
    with pytest.raises(ValueError, match="schemes must be"):
        bootstrap(ranks, rng=0, schemes=["mle", "votes"])
    with pytest.raises(ValueError, match="n_boot"):
        bootstrap(ranks, rng=0, n_boot=0)
    with pytest.raises(ValueError, match="level"):
        bootstrap(ranks, rng=0, level=95)
    with pytest.raises(TypeError, match="rng"):
        bootstrap(ranks, rng=None)
    with pytest.raises(ValueError, match="at least 2 algorithms"):
        bootstrap(np.ones((3, 1)), rng=0)


# ---------------------------------------------------------------------------
# evaluation


def test_evaluation_is_deterministic_for_a_seed():
    ranks = typical_ranks(n=30)
    a = evaluate_schemes(ranks, rng=5)
    b = evaluate_schemes(ranks, rng=np.random.default_rng(5))
    np.testing.assert_array_equal(a.log_loss, b.log_loss)
    np.testing.assert_array_equal(a.tv_loss, b.tv_loss)
    assert a.to_dict() == b.to_dict()
    assert (a.n_folds, a.n_repeats, a.leave_one_out) == (10, 5, False)


def test_evaluation_losses_by_hand_with_leave_one_out_folds():
    ranks = rank_scores(np.array([[3, 2, 1], [2, 2, 1], [1, 3, 2], [3, 1, 2]], dtype=float))
    n, m = ranks.shape
    result = evaluate_schemes(ranks, rng=0, schemes=["mle", "borda"])
    # n = 4 < 10 folds: leave-one-out folds, run once.
    assert result.leave_one_out and result.n_folds == 4 and result.n_repeats == 1
    for s, name in enumerate(result.schemes):
        for i in range(n):
            train = np.delete(ranks, i, axis=0)
            p = mle(train).p if name == "mle" else aggregates.borda_probabilities(train)
            smoothed = ((n - 1) * p + 0.5) / ((n - 1) + m / 2)
            winners = np.flatnonzero(ranks[i] == ranks[i].min())
            expected_log = -np.mean(np.log(smoothed[winners]))
            expected_tv = np.mean([np.abs(np.eye(m)[y] - p).sum() for y in winners])
            assert result.log_loss[s, i] == pytest.approx(expected_log)
            assert result.tv_loss[s, i] == pytest.approx(expected_tv)


def test_evaluation_summary_and_tests_against_the_win_rate():
    ranks = typical_ranks(n=40)
    result = evaluate_schemes(ranks, rng=2, n_folds=5, n_repeats=2)
    assert result.schemes == SCHEMES
    for losses, means in (
        (result.log_loss, result.mean_log_loss),
        (result.brier_loss, result.mean_brier),
        (result.tv_loss, result.mean_tv_loss),
    ):
        assert losses.shape == (len(SCHEMES), 40)
        np.testing.assert_allclose([means[s] for s in SCHEMES], losses.mean(axis=1))
    assert result.mean_log_loss[result.best_log] == min(result.mean_log_loss.values())
    # pre-specified: every scheme against the MLE on the 10 split means
    assert result.split_log_loss.shape == (len(SCHEMES), 10)
    assert result.test_train_ratio == pytest.approx(8 / 32)
    mle_row = result.split_log_loss[SCHEMES.index("mle")]
    assert result.versus_mle["mle"] is None
    for s, name in enumerate(SCHEMES[1:], start=1):
        expected = nadeau_bengio(result.split_log_loss[s] - mle_row, test_train_ratio=0.25)
        got = result.versus_mle[name]
        assert (got.difference, got.t, got.pvalue) == (
            expected.difference,
            expected.t,
            expected.pvalue,
        )
    assert sum(result.win_share.values()) == pytest.approx(1.0)
    chosen = result.versus_mle[result.best_log]
    significant = chosen is not None and chosen.difference < 0 and (chosen.pvalue or 1.0) < 0.05
    assert (result.predicts_best == result.best_log) == significant
    if result.predicts_best is None:
        assert result.verdict == "no estimator predicts clearly better than the win rate here"
    out = result.to_dict()
    assert out["log_loss"]["best"] == result.best_log
    assert "p_value_vs_best" not in out["log_loss"]


def test_nadeau_bengio_by_hand():
    # d = (0.1, -0.2, 0.3, 0.0, 0.1): mean 0.06, sample variance 0.033,
    # corrected variance (1/5 + 0.25) * 0.033 = 0.01485, t = 0.06 / sqrt(0.01485)
    # = 0.4923659639..., two-sided p from Student's t with 4 df.
    result = nadeau_bengio([0.1, -0.2, 0.3, 0.0, 0.1], test_train_ratio=0.25)
    assert result.difference == pytest.approx(0.06, abs=1e-15)
    assert result.t == pytest.approx(0.06 / np.sqrt(0.45 * 0.033), rel=1e-12)
    assert result.t == pytest.approx(0.4923659639173309, rel=1e-12)
    # Student's t with 4 df in closed form: with x = t / sqrt(4 + t^2), the two-sided
    # p-value is 1 - x (3 - x^2) / 2 = 1 - x (1 + 2 / (4 + t^2)).
    t = result.t
    by_hand = 1.0 - (t / np.sqrt(4 + t * t)) * (1.0 + 2.0 / (4 + t * t))
    assert result.pvalue == pytest.approx(by_hand, rel=1e-12)
    # the uncorrected paired t-test would be t = 0.06 / sqrt(0.033 / 5): far more liberal
    assert abs(result.t) < 0.06 / np.sqrt(0.033 / 5)
    same = nadeau_bengio(np.zeros(6), test_train_ratio=0.1)
    assert (same.difference, same.t, same.pvalue) == (0.0, None, 1.0)
    with pytest.raises(ValueError, match="differences"):
        nadeau_bengio([0.1], test_train_ratio=0.25)


def test_badge_only_when_the_lowest_loss_beats_the_win_rate_significantly():
    # A dominant leader: the win rate is hard to beat; on a table of near ties the LOO
    # schemes win. Either way the badge follows the pre-specified test.
    for ranks in (typical_ranks(n=14), np.tile([1.0, 2.0, 3.0], (20, 1))):
        result = evaluate_schemes(ranks, rng=3, n_folds=5, n_repeats=3)
        chosen = result.versus_mle[result.best_log]
        if result.predicts_best is not None:
            assert chosen is not None and chosen.difference < 0 and chosen.pvalue < 0.05
        else:
            assert "no estimator predicts clearly better" in result.verdict


def test_evaluation_with_identical_schemes_has_no_winner():
    ranks = np.full((12, 3), 2.0)  # every dataset all tied: every scheme is uniform
    result = evaluate_schemes(ranks, rng=0, n_folds=4, n_repeats=2)
    assert all(t is None or t.pvalue == 1.0 for t in result.versus_mle.values())
    assert result.predicts_best is None
    for value in result.mean_log_loss.values():
        assert value == pytest.approx(np.log(3))


def test_evaluation_repeated_k_fold_by_hand():
    # Each repeat shuffles the datasets and splits them with numpy.array_split; a
    # dataset's loss is the mean over repeats of its loss when held out.
    ranks = typical_ranks(n=23)
    n, m = ranks.shape
    result = evaluate_schemes(ranks, rng=9, n_folds=4, n_repeats=3, schemes=["mle", "loo_tv"])
    generator = np.random.default_rng(9)
    expected = np.zeros((2, n))
    for _ in range(3):
        for held_out in np.array_split(generator.permutation(n), 4):
            train = np.delete(ranks, held_out, axis=0)
            for s, p in enumerate((mle(train).p, fit_loo_tv(train, K=3).p)):
                smoothed = (len(train) * p + 0.5) / (len(train) + m / 2)
                for i in held_out:
                    winners = np.flatnonzero(ranks[i] == ranks[i].min())
                    expected[s, i] += -np.mean(np.log(smoothed[winners])) / 3
    np.testing.assert_allclose(result.log_loss, expected, rtol=1e-12)


def test_evaluation_validation():
    ranks = typical_ranks(n=5)
    with pytest.raises(ValueError, match="at least 2 datasets"):
        evaluate_schemes(ranks[:1], rng=0)
    with pytest.raises(ValueError, match="n_folds"):
        evaluate_schemes(ranks, rng=0, n_folds=1)
    with pytest.raises(ValueError, match="n_repeats"):
        evaluate_schemes(ranks, rng=0, n_repeats=0)
    with pytest.raises(ValueError, match="schemes must be"):
        evaluate_schemes(ranks, rng=0, schemes=[])


def test_the_badge_needs_a_lower_loss_and_a_significant_test():
    better = NadeauBengio(difference=-0.1, t=-3.0, pvalue=0.01)
    versus = {
        "mle": None,
        "better": better,
        "not_significant": NadeauBengio(difference=-0.1, t=-1.0, pvalue=0.3),
        "worse": NadeauBengio(difference=0.1, t=3.0, pvalue=0.01),
        "constant": NadeauBengio(difference=-0.1, t=None, pvalue=None),
    }
    assert _predicts_best("better", versus, alpha=0.05) == "better"
    assert _predicts_best("better", versus, alpha=0.01) is None  # p must be below alpha
    for best in ("mle", "not_significant", "worse", "constant"):
        assert _predicts_best(best, versus, alpha=0.05) is None
    assert _evaluation_verdict("better", versus) == (
        "better predicts best here: lowest held-out log loss, better than the win rate "
        "(Nadeau-Bengio p = 0.01)"
    )
    assert _evaluation_verdict(None, versus) == NO_CLEAR_WINNER


def test_fewer_datasets_than_folds_means_leave_one_out_once():
    generator = np.random.default_rng(0)
    folds = _evaluation_folds(4, n_folds=10, n_repeats=5, generator=generator)
    assert (folds.n_folds, folds.n_repeats, folds.leave_one_out) == (4, 1, True)
    assert [list(h) for h in folds.held_out] == [[0], [1], [2], [3]]
    assert generator.bit_generator.state == np.random.default_rng(0).bit_generator.state
    assert folds.test_train_ratio(4) == pytest.approx(1 / 3)
    np.testing.assert_array_equal(folds.training_weights(4), 1.0 - np.eye(4))

    folds = _evaluation_folds(10, n_folds=10, n_repeats=2, generator=generator)
    assert (folds.n_folds, folds.n_repeats, folds.leave_one_out) == (10, 2, False)
    assert len(folds.held_out) == 20
    for repeat in (folds.held_out[:10], folds.held_out[10:]):
        assert sorted(int(i) for h in repeat for i in h) == list(range(10))
