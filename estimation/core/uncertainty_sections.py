"""The uncertainty and evaluation sections of a payload: the win-rate interval, each
estimator's own bootstrap band and P(best), the rank intervals, and which estimator
predicts held-out datasets best."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from estimation.core.contract import (
    AnalysisSettings,
    BootstrapSummary,
    EstimatorResult,
    Evaluation,
    NotApplicable,
    WinInterval,
    floats,
    plain_float,
)
from estimation.core.intervals import WIN_INTERVAL_METHOD, win_intervals
from estimation.core.mean_rank_inference import mean_rank_inference
from estimation.core.rank_inference import (
    RankInference,
    rank_intervals,
)
from estimation.core.rankings import PreparedRankings, tie_groups
from estimation.core.registry import (
    ESTIMATOR_KEYS,
    WIN_RATE_INTERVAL_KIND,
    default_estimator_rule,
    estimator_get,
    interval_label,
)
from estimation.core.resampling import BIAS_CORRECTED_METHOD, bootstrap, evaluate_schemes

WIN_INTERVAL_LEVEL = 0.95


BOOTSTRAP_LEVEL = 0.95  # of each estimator's own interval


RANK_LEVEL = 0.95  # simultaneous, of the rank intervals


# Fewer replicates give percentile bands that are mostly noise (with 1, a point).
MIN_BOOTSTRAP = 100


def win_interval_section(prepared: PreparedRankings) -> WinInterval:
    intervals = win_intervals(prepared.ranks, level=WIN_INTERVAL_LEVEL)
    return WinInterval(
        level=intervals.level,
        lower=floats(intervals.lower),
        upper=floats(intervals.upper),
        simultaneous_lower=floats(intervals.simultaneous_lower),
        simultaneous_upper=floats(intervals.simultaneous_upper),
        method=WIN_INTERVAL_METHOD,
        kind=WIN_RATE_INTERVAL_KIND,
        label=interval_label(WIN_RATE_INTERVAL_KIND, intervals.level, source="exact"),
    )


def mean_rank_answer(prepared: PreparedRankings) -> RankInference | None:
    """Whole rankings: who is best on average, from paired comparisons of ranks (no
    bootstrap needed, so the board's first render has it); None for top-K lists, whose
    rank intervals come from the bootstrap (:func:`bootstrap_sections`)."""
    if prepared.known_positions != len(prepared.algorithms):
        return None
    return mean_rank_inference(prepared.ranks, level=RANK_LEVEL)


def bootstrap_sections(
    prepared: PreparedRankings,
    K: int,
    settings: AnalysisSettings,
    seed: int,
    estimators: Mapping[str, EstimatorResult],
) -> tuple[dict[str, BootstrapSummary | NotApplicable], RankInference | NotApplicable | None]:
    """Each estimator's own interval and P(best), and, for top-K lists, the rank
    intervals of the recommended one (from the same replicates) or why there are none;
    None for whole rankings (:func:`mean_rank_answer` has them)."""
    reason: NotApplicable | None = None
    if settings.bootstrap == 0:
        reason = NotApplicable("the bootstrap is switched off (0 replicates)")
    elif settings.bootstrap < MIN_BOOTSTRAP:
        reason = NotApplicable(
            f"{settings.bootstrap} bootstrap replicates are too few for a 95 % band "
            f"(at least {MIN_BOOTSTRAP} are needed); none is shown"
        )
    elif prepared.n_datasets < 2:
        reason = NotApplicable("a single dataset: resampling datasets shows no spread")
    whole = prepared.known_positions == len(prepared.algorithms)
    if reason is not None:
        return dict.fromkeys(ESTIMATOR_KEYS, reason), None if whole else reason
    recommended = default_estimator_rule(settings.default_estimator)[0]
    result = bootstrap(
        prepared.ranks,
        rng=seed,
        n_boot=settings.bootstrap,
        K=K,
        known_positions=prepared.known_positions,
        # The full-data fits of analysis._point_estimates: the bootstrap need not fit them again.
        full_data={key: (entry.p, entry.weights) for key, entry in estimators.items()},
        level=BOOTSTRAP_LEVEL,
        # the replicates are kept only where the rank intervals read them (top-K input)
        keep=() if whole else (recommended,),
    )
    boot: dict[str, BootstrapSummary | NotApplicable] = {}
    for scheme, summary in result.schemes.items():
        kind = estimator_get(scheme).interval_kind
        lower, upper, method = _no_point_spread(
            scheme, summary.estimate, summary.lower, summary.upper, prepared, estimators
        )
        boot[scheme] = BootstrapSummary(
            lower=floats(lower),
            upper=floats(upper),
            p_best=floats(summary.p_best),
            level=BOOTSTRAP_LEVEL,
            method=method,
            kind=kind,
            label=interval_label(kind, BOOTSTRAP_LEVEL),
        )
    if whole:
        return boot, None
    # Top-K lists leave the ranks below K unknown: the ranks of the recommended
    # estimator's P(win), from its replicates, are what the data identify.
    chosen = result.schemes[recommended]
    assert chosen.replicates is not None  # kept above
    inference = rank_intervals(
        chosen.estimate, chosen.replicates, n_datasets=prepared.n_datasets, level=RANK_LEVEL
    )
    return boot, inference


CONSTANT_BOUND_METHOD = (
    "; where every dataset gave the algorithm the same value v (the estimate cannot vary "
    "over resamples), the exact distribution-free bound instead: with 95 % confidence a "
    "new dataset gives another value with probability at most q = 1 - 0.05^(1/n), so the "
    "expected value lies in [v - v q, v + (c - v) q], c the largest value one dataset gives"
)
NO_SPREAD_METHOD = (
    "; where every dataset ranked the algorithms alike (the estimate cannot vary over "
    "resamples), no interval is shown: a point would claim certainty"
)


def _no_point_spread(
    scheme: str,
    estimate: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    prepared: PreparedRankings,
    estimators: Mapping[str, EstimatorResult],
) -> tuple[np.ndarray, np.ndarray, str]:
    """A spread estimator's band without points. A Borda score and a minimax share are
    means over datasets of a value in [0, c]; where every dataset gave an algorithm the
    same value, its bootstrap spread is a point, and the exact bound for values that
    never varied (CONSTANT_BOUND_METHOD) replaces it. A worth share is no such mean: where
    every dataset ranked the algorithms alike it shows no interval. Estimates of P(win)
    are shown beside the exact interval of the true P(win) (verdict.win_band), their
    spread kept as it is: how much the estimate varies."""
    ranks = prepared.ranks
    if scheme == "plackett_luce" and (ranks == ranks[0]).all():
        gone = np.full(len(estimate), np.nan)
        return gone, gone, BIAS_CORRECTED_METHOD + NO_SPREAD_METHOD
    if scheme not in ("borda", "minimax"):
        return lower, upper, BIAS_CORRECTED_METHOD
    m, n = len(prepared.algorithms), prepared.n_datasets
    if scheme == "borda":
        # one dataset gives at most (m - 1) / (m (m - 1) / 2) = 2 / m
        constant, c = (ranks == ranks[0]).all(axis=0), 2.0 / m
    else:
        weights = np.asarray(estimators["minimax"].weights or (1.0,), dtype=float)
        # one dataset's value: the mean weight over the positions its tie group holds
        # (0 beyond the first K); cumulative[j] is the weight of the first j positions
        cumulative = np.concatenate(([0.0], np.cumsum(weights), np.zeros(m)))
        cumulative[len(weights) + 1 :] = cumulative[len(weights)]
        start, size = tie_groups(ranks)
        value = (cumulative[start + size - 1] - cumulative[start - 1]) / size
        constant = (np.abs(value - value[0]) <= 1e-12).all(axis=0)
        c = float(weights.max())
    if not constant.any():
        return lower, upper, BIAS_CORRECTED_METHOD
    q = 1.0 - (1.0 - BOOTSTRAP_LEVEL) ** (1.0 / n)
    v = np.clip(estimate, 0.0, c)
    lower = np.where(constant, np.minimum(lower, v - v * q), lower)
    upper = np.where(constant, np.maximum(upper, v + (c - v) * q), upper)
    return lower, upper, BIAS_CORRECTED_METHOD + CONSTANT_BOUND_METHOD


def evaluation_section(
    prepared: PreparedRankings, K: int, settings: AnalysisSettings, seed: int
) -> Evaluation | NotApplicable:
    if prepared.n_datasets < 2:
        return NotApplicable("a single dataset: nothing to hold out")
    result = evaluate_schemes(
        prepared.ranks,
        rng=seed,
        n_folds=settings.evaluation_folds,
        n_repeats=settings.evaluation_repeats,
        K=K,
        known_positions=prepared.known_positions,
        alpha=settings.alpha,
    )

    def plain(values: dict[str, Any]) -> dict[str, float | None]:
        return {key: plain_float(value) for key, value in values.items()}

    versus = result.versus_mle
    return Evaluation(
        log_loss=plain(result.mean_log_loss),
        brier=plain(result.mean_brier),
        tv=plain(result.mean_tv_loss),
        best=result.best_log,
        win_share=plain(result.win_share),
        difference_vs_mle={
            key: None if test is None else plain_float(test.difference)
            for key, test in versus.items()
        },
        pvalue_vs_mle={
            key: None if test is None else plain_float(test.pvalue) for key, test in versus.items()
        },
        predicts_best=result.predicts_best,
        verdict=result.verdict,
        alpha=result.alpha,
        test_train_ratio=result.test_train_ratio,
        n_folds=int(result.n_folds),
        n_repeats=int(result.n_repeats),
        leave_one_out=bool(result.leave_one_out),
    )
