"""The significance sections of a payload: Friedman, Nemenyi and Wilcoxon across datasets,
Tukey HSD and the repeated-measures ANOVA within them, from the prepared rankings."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np

from estimation.core import pairwise_scope, significance, within_dataset
from estimation.core.contract import (
    AnalysisSettings,
    DatasetTests,
    Friedman,
    NemenyiSection,
    NemenyiSummary,
    NotApplicable,
    PairNote,
    PairwiseMatrix,
    PairwiseScope,
    RepeatedMeasuresAnova,
    StandardErrorTable,
    TukeyTable,
    WilcoxonSection,
    WilcoxonSummary,
    WithinDatasetSection,
    floats,
    plain_float,
)
from estimation.core.pairwise_scope import (
    holm_all_one,
    holm_steps,
    nemenyi_pair_pvalues,
    nemenyi_statistic,
)
from estimation.core.rankings import PreparedRankings
from estimation.core.studentized_range import studentized_range_isf, studentized_range_sf

# Within-dataset Tukey tables are stored with a snapshot up to this many pairs in all
# (they grow as datasets x algorithms^2); beyond, the dataset page computes one table
# on demand and the snapshot keeps the significance-aware ranks.
MAX_TUKEY_PAIRS = 2000


@dataclass(frozen=True)
class AcrossDatasets:
    friedman: Friedman | NotApplicable
    nemenyi_summary: NemenyiSummary | NotApplicable
    nemenyi: NemenyiSection | NotApplicable
    wilcoxon_summary: WilcoxonSummary | NotApplicable
    wilcoxon: WilcoxonSection | NotApplicable
    scope: PairwiseScope | NotApplicable


# Statistics this close to q_alpha (relative) have their p-value evaluated.
_NEAR_Q_ALPHA = 1e-4


def studentized_range_sf_pvalues(q: np.ndarray, m: int) -> np.ndarray:
    """Nemenyi p-values of the statistics ``q`` (once per distinct value)."""
    distinct, inverse = np.unique(q, return_inverse=True)
    return np.clip(studentized_range_sf(distinct, m, np.inf), 0, 1)[inverse]


def tests_across_datasets(
    prepared: PreparedRankings, settings: AnalysisSettings, top: np.ndarray | None = None
) -> AcrossDatasets:
    """Friedman, Nemenyi and Wilcoxon; with ``top`` (:func:`pairwise_scope.pairwise_top`)
    the pairwise sections hold those algorithms' pairs only, and no m x m float matrix is
    made (the board's letters read an m x m boolean significance)."""
    friedman, nemenyi_summary, nemenyi = _rank_tests(prepared, settings, top)
    wilcoxon_summary: WilcoxonSummary | NotApplicable
    wilcoxon: WilcoxonSection | NotApplicable
    family: tuple[int, tuple] | None = None
    if prepared.scores is None:
        wilcoxon_summary = wilcoxon = NotApplicable(
            "ranking-only input has no scores to pair across datasets"
        )
    elif prepared.n_datasets < 2:
        wilcoxon_summary = wilcoxon = NotApplicable("a single dataset gives no paired differences")
    elif top is None:
        signed_rank = significance.wilcoxon_pairwise(
            prepared.scores, correction=settings.correction, alpha=settings.alpha
        )
        wilcoxon_summary, wilcoxon = _wilcoxon_sections(
            prepared, settings, signed_rank, signed_rank.significant, prepared.algorithms
        )
    else:
        wilcoxon_summary, wilcoxon, family = _wilcoxon_top(prepared, settings, top)
    scope = _pairwise_scope(prepared, top, family)
    return AcrossDatasets(friedman, nemenyi_summary, nemenyi, wilcoxon_summary, wilcoxon, scope)


def _rank_tests(
    prepared: PreparedRankings, settings: AnalysisSettings, top: np.ndarray | None
) -> tuple[
    Friedman | NotApplicable, NemenyiSummary | NotApplicable, NemenyiSection | NotApplicable
]:
    """Friedman and Nemenyi on the ranks, or why they do not apply."""
    ranks, known = prepared.ranks, prepared.known_positions
    reason = significance.rank_test_not_applicable(ranks, known_positions=known)
    if reason is not None:
        not_applicable = NotApplicable(reason)
        return not_applicable, not_applicable, not_applicable
    friedman = _friedman_section(significance.friedman(ranks, known_positions=known))
    if top is None:
        return (friedman, *_nemenyi_whole(prepared, settings))
    return (friedman, *_nemenyi_top(prepared, settings, top))


def _friedman_section(result: significance.FriedmanResult) -> Friedman:
    assert result.statistic is not None and result.pvalue is not None
    assert result.iman_davenport_df is not None
    infinite = NotApplicable(str(result.iman_davenport_not_applicable))
    return Friedman(
        n_datasets=int(result.n_datasets),
        statistic=float(result.statistic),
        statistic_uncorrected=float(result.statistic_uncorrected or 0.0),
        pvalue=float(result.pvalue),
        df=int(result.df or 0),
        iman_davenport=infinite if result.iman_davenport is None else float(result.iman_davenport),
        iman_davenport_uncorrected=plain_float(result.iman_davenport_uncorrected),
        iman_davenport_pvalue=infinite
        if result.iman_davenport_pvalue is None
        else float(result.iman_davenport_pvalue),
        iman_davenport_df=(
            int(result.iman_davenport_df[0]),
            int(result.iman_davenport_df[1]),
        ),
        exact_pvalue=result.exact_pvalue,
    )


def _pairwise_scope(
    prepared: PreparedRankings, top: np.ndarray | None, family: tuple[int, tuple] | None
) -> PairwiseScope | NotApplicable:
    """Which pairs the pairwise sections hold; with the Wilcoxon family's size and Holm
    steps (``family``) when its tests ran on the ``top`` pairs only."""
    names = prepared.algorithms
    if top is None:
        return NotApplicable(
            f"the pairwise sections hold every pair of the {len(names)} algorithms (up to "
            f"{pairwise_scope.MAX_PAIRWISE_ALGORITHMS} they do)"
        )
    steps: tuple[tuple[float, ...], tuple[float, ...], float | None] = ((), (), None)
    n_family = None
    if family is not None:
        n_family, steps = family
    return PairwiseScope(
        n_algorithms=len(names),
        algorithms=tuple(names[i] for i in top),
        reason=(
            f"{len(names)} algorithms make {len(names) * (len(names) - 1) // 2} pairs: "
            f"the pairwise sections hold those of the first {len(top)} by mean rank "
            "(then name); any other pair is computed on demand from the stored ranks "
            "and scores"
        ),
        n_datasets=prepared.n_datasets,
        wilcoxon_family=n_family,
        holm_raw=steps[0],
        holm_corrected=steps[1],
        holm_one_from=steps[2],
    )


def _nemenyi_whole(
    prepared: PreparedRankings, settings: AnalysisSettings
) -> tuple[NemenyiSummary, NemenyiSection]:
    test = significance.nemenyi(
        prepared.ranks, alpha=settings.alpha, known_positions=prepared.known_positions
    )
    assert test.significant is not None and test.mean_ranks is not None
    assert test.pvalues is not None  # applicable, checked by the caller
    groups = significance.indistinguishable_groups(test.significant, test.mean_ranks)
    summary = NemenyiSummary(
        alpha=settings.alpha,
        q_alpha=float(test.q_alpha or 0.0),
        critical_difference=float(test.critical_difference or 0.0),
        letters=_letters(groups),
    )
    section = NemenyiSection(
        algorithms=prepared.algorithms,
        pvalues=PairwiseMatrix.from_square(test.pvalues),
        groups=_bars(groups),
    )
    return summary, section


def _nemenyi_top(
    prepared: PreparedRankings, settings: AnalysisSettings, top: np.ndarray
) -> tuple[NemenyiSummary, NemenyiSection]:
    """Nemenyi above the bound: the p-values of the ``top`` pairs; the board's letters
    from the significance of every pair, which grows with the distance of the mean
    ranks (no m x m array)."""
    ranks = prepared.ranks
    n, m = ranks.shape
    mean_ranks = ranks.mean(axis=0)
    scale = np.sqrt(m * (m + 1) / (6 * n))
    q_alpha = studentized_range_isf(settings.alpha, m, np.inf)

    def differ(first: np.ndarray, second: np.ndarray) -> np.ndarray:
        # The p-value falls below alpha where the statistic passes q_alpha (the survival
        # function decreases): the p-value itself is evaluated only near that point, so
        # a pair is significant exactly where significance.nemenyi says it is.
        q = nemenyi_statistic(first, second, m=m, n=n)
        significant = q > q_alpha
        near = np.abs(q - q_alpha) <= _NEAR_Q_ALPHA * q_alpha
        if near.any():
            significant[near] = studentized_range_sf_pvalues(q[near], m) < settings.alpha
        return significant

    groups = significance.indistinguishable_groups_by_distance(mean_ranks, differ)
    pvalues = nemenyi_pair_pvalues(mean_ranks[top, None], mean_ranks[None, top], m=m, n=n)
    np.fill_diagonal(pvalues, 1.0)
    summary = NemenyiSummary(
        alpha=settings.alpha,
        q_alpha=q_alpha,
        critical_difference=q_alpha / np.sqrt(2) * scale,
        letters=_letters(groups),
    )
    section = NemenyiSection(
        algorithms=tuple(prepared.algorithms[i] for i in top),
        pvalues=PairwiseMatrix.from_square(pvalues),
        groups=_bars(groups, top),
    )
    return summary, section


def _wilcoxon_sections(
    prepared: PreparedRankings,
    settings: AnalysisSettings,
    signed_rank: significance.PairwiseSignedRank,
    significant: np.ndarray | None,
    names: tuple[str, ...],
    corrected: np.ndarray | None = None,
    top: np.ndarray | None = None,
) -> tuple[WilcoxonSummary, WilcoxonSection]:
    """The summary (letters over every pair: ``significant``, m x m, or None when no
    pair differs) and the section of ``signed_rank``'s algorithms ``names``, its
    p-values ``corrected`` for the whole family when given."""
    mean_ranks = prepared.ranks.mean(axis=0)
    if significant is None:
        groups = significance.indistinguishable_groups_by_distance(mean_ranks, _never_differ)
    else:
        groups = significance.indistinguishable_groups(significant, mean_ranks)
    summary = WilcoxonSummary(
        alpha=settings.alpha, correction=settings.correction, letters=_letters(groups)
    )
    section = WilcoxonSection(
        algorithms=names,
        pvalues=PairwiseMatrix.from_square(
            signed_rank.pvalues_corrected if corrected is None else corrected
        ),
        pvalues_raw=PairwiseMatrix.from_square(signed_rank.pvalues),
        rank_biserial=PairwiseMatrix.from_square(signed_rank.effect_size),
        groups=_bars(groups, top),
        not_applicable_pairs=tuple(
            PairNote(a=a, b=b, reason=reason) for a, b, reason in signed_rank.not_applicable_pairs()
        ),
    )
    return summary, section


def _wilcoxon_top(
    prepared: PreparedRankings, settings: AnalysisSettings, top: np.ndarray
) -> tuple[WilcoxonSummary, WilcoxonSection, tuple[int, tuple]]:
    """Wilcoxon above the bound: the ``top`` pairs' tests, corrected for the family of
    every pair; and the family's size and Holm steps for pairs computed on demand."""
    scores = prepared.scores
    assert scores is not None
    n, m = scores.shape
    names = tuple(prepared.algorithms[i] for i in top)
    complete = not np.isnan(scores).any()
    family = m * (m - 1) // 2
    if holm_all_one(n, family, complete):
        part = significance.wilcoxon_pairwise(
            scores[:, top], correction=settings.correction, alpha=settings.alpha
        )
        corrected = np.where(np.isnan(part.pvalues), np.nan, 1.0)
        summary, section = _wilcoxon_sections(prepared, settings, part, None, names, corrected, top)
        return summary, section, (family, ((), (), 0.0))
    whole = significance.wilcoxon_pairwise(
        scores, correction=settings.correction, alpha=settings.alpha
    )
    upper = np.triu_indices(m, 1)
    raw = whole.pvalues[upper]
    family = int((~np.isnan(raw)).sum())
    steps = holm_steps(raw) if settings.correction == "holm" else ((), (), None)
    del raw
    keep = np.ix_(top, top)
    matrices = [f.name for f in fields(whole) if isinstance(getattr(whole, f.name), np.ndarray)]
    part = replace(whole, **{name: getattr(whole, name)[keep] for name in matrices})
    summary, section = _wilcoxon_sections(
        prepared, settings, part, whole.significant, names, top=top
    )
    return summary, section, (family, steps)


def _never_differ(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """No pair differs (every Holm-corrected p-value is 1)."""
    return np.zeros(np.broadcast(first, second).shape, dtype=bool)


def _letters(groups: significance.IndistinguishableGroups) -> tuple[str, ...] | NotApplicable:
    """Compact letters, or why they would not be readable at this size."""
    if groups.letters is None:
        return NotApplicable(str(groups.letters_not_applicable))
    return tuple(groups.letters)


def _bars(
    groups: significance.IndistinguishableGroups, top: np.ndarray | None = None
) -> tuple[tuple[int, ...], ...] | NotApplicable:
    """CD bars (indices; into ``top`` when given), or why a diagram would not be readable
    at this size (always, above the pairwise bound: it is far above MAX_CD_ALGORITHMS)."""
    if groups.bars is None:
        return NotApplicable(str(groups.bars_not_applicable))
    if top is None:
        return tuple(tuple(int(i) for i in bar) for bar in groups.bars)
    new = {int(old): k for k, old in enumerate(top)}
    bars: list[tuple[int, ...]] = []
    for bar in groups.bars:
        kept = tuple(new[int(i)] for i in bar if int(i) in new)
        if kept and kept not in bars:
            bars.append(kept)
    return tuple(bars)


def tests_within_datasets(
    prepared: PreparedRankings, settings: AnalysisSettings
) -> tuple[tuple[float | None, ...] | NotApplicable, WithinDatasetSection | NotApplicable]:
    """The board's mean significance-aware ranks, and the within-dataset section: on a
    dataset's folds (Tukey) where it has them, else by the standard errors its source
    gave with the scores (:func:`within_dataset.standard_error_tests`)."""
    names = prepared.algorithms
    n, m = len(prepared.datasets), len(names)
    tables = n * m * (m - 1) // 2 <= MAX_TUKEY_PAIRS
    folds = prepared.fold_scores
    if folds is not None:
        aware = within_dataset.significance_aware_ranks(folds, alpha=settings.alpha)
    else:
        no_folds = dict.fromkeys(range(n), "the results have no folds")
        aware = within_dataset.SignificanceAwareRanks(
            settings.alpha, np.full((n, m), np.nan), np.full(m, np.nan), np.zeros(n, int), no_folds
        )
    by_errors = _standard_error_ranks(prepared, settings, aware, tables)
    if folds is None and not by_errors:
        reason = NotApplicable("the results have no folds")
        return reason, reason
    if by_errors:
        aware = _with_error_ranks(aware, by_errors)
    with_table = [i for i in range(n) if tables and i not in aware.not_applicable]
    with_table = [i for i in with_table if i not in by_errors]
    assert folds is not None or not with_table  # fold tables need folds
    tukey = dict(
        zip(
            with_table,
            within_dataset.repeated_measures_tukey_batch(
                [_complete_folds(folds[i]) for i in with_table]  # type: ignore[index]
                if with_table
                else [],
                alpha=settings.alpha,
            ),
            strict=True,
        )
    )
    entries = []
    for i, dataset in enumerate(prepared.datasets):
        table: TukeyTable | NotApplicable | None = None
        anova: RepeatedMeasuresAnova | NotApplicable
        if i in aware.not_applicable:
            table = anova = NotApplicable(aware.not_applicable[i])
        elif i in by_errors:
            table = anova = NotApplicable(by_errors[i][1])
        else:
            anova = _anova(_complete_folds(folds[i]))  # type: ignore[index]
        if i in tukey:
            signed_rank = within_dataset.fold_wilcoxon_pairwise(
                _complete_folds(folds[i]),  # type: ignore[index]
                correction=settings.correction,
                alpha=settings.alpha,
            )
            table = (
                _tukey_table(tukey[i], signed_rank)
                if tukey[i].not_applicable is None
                else NotApplicable(str(tukey[i].not_applicable))
            )
        entries.append(
            DatasetTests(
                dataset=dataset,
                n_folds=int(aware.n_folds[i]),
                significance_rank=floats(aware.ranks[i]),
                tukey=table,
                anova=anova,
                standard_errors=by_errors[i][0] if i in by_errors else None,
            )
        )
    note = None
    if not tables:
        note = (
            f"pairwise Tukey tables are computed on demand: {n} datasets x "
            f"{m * (m - 1) // 2} pairs exceed the {MAX_TUKEY_PAIRS} stored with a snapshot"
        )
    section = WithinDatasetSection(algorithms=names, datasets=tuple(entries), note=note)
    return floats(aware.mean_ranks), section


# One dataset's z-test table (None when too many pairs to store), its significance-aware
# ranks, and why the fold tests are not applicable there.
_ErrorRanks = tuple[StandardErrorTable | None, str, np.ndarray]


def _standard_error_ranks(
    prepared: PreparedRankings,
    settings: AnalysisSettings,
    aware: within_dataset.SignificanceAwareRanks,
    tables: bool,
) -> dict[int, _ErrorRanks]:
    """Per dataset where the folds give no test but the source's standard errors test at
    least one pair: the z-tests' table and ranks (folds win where they exist). Above the
    pairwise bound none: Holm's correction needs every pair of a dataset at once, an
    ``m x m`` array (at m = 4000 about 1 GB of temporaries per dataset)."""
    errors, scores = prepared.standard_errors, prepared.scores
    candidates = np.array(sorted(aware.not_applicable), dtype=int)
    if errors is None or scores is None or not len(candidates):
        return {}
    if len(prepared.algorithms) > pairwise_scope.MAX_PAIRWISE_ALGORITHMS:
        return {}
    ranks = within_dataset.standard_error_aware_ranks(
        scores[candidates],
        errors[candidates],
        correction=settings.correction,
        alpha=settings.alpha,
    )
    tested = candidates[~np.isnan(ranks[:, 0])]
    if not len(tested):
        return {}
    found: dict[int, _ErrorRanks] = {}
    results = (
        within_dataset.standard_error_tests(
            scores[tested], errors[tested], correction=settings.correction, alpha=settings.alpha
        )
        if tables
        else None
    )
    upper = np.triu_indices(len(prepared.algorithms), 1)
    for position, i in enumerate(tested.tolist()):
        table = None
        if results is not None:
            table = StandardErrorTable(
                diff=floats(results.difference[position][upper]),
                se=floats(results.standard_error[position][upper]),
                z=floats(results.z[position][upper]),
                pvalue=floats(results.pvalues_corrected[position][upper]),
                significant=tuple(bool(v) for v in results.significant[position][upper]),
                correction=settings.correction,
            )
        row = ranks[np.searchsorted(candidates, i)]
        found[i] = (
            table,
            f"{aware.not_applicable[i]}: compared by the standard errors its source gave",
            row,
        )
    return found


def _with_error_ranks(
    aware: within_dataset.SignificanceAwareRanks, by_errors: dict[int, _ErrorRanks]
) -> within_dataset.SignificanceAwareRanks:
    """The fold-based ranks with the datasets tested by their standard errors filled in."""
    ranks = aware.ranks.copy()
    for i, (_, _, row) in by_errors.items():
        ranks[i] = row
    applicable = ~np.isnan(ranks[:, 0])
    return replace(
        aware,
        ranks=ranks,
        mean_ranks=ranks[applicable].mean(axis=0),
        not_applicable={i: r for i, r in aware.not_applicable.items() if i not in by_errors},
    )


def _complete_folds(fold_scores: np.ndarray) -> np.ndarray:
    """The folds on which every algorithm has a score (datasets may have fewer folds)."""
    return fold_scores[np.isfinite(fold_scores).all(axis=1)]


def _tukey_table(
    result: within_dataset.TukeyResult, signed_rank: significance.PairwiseSignedRank
) -> TukeyTable:
    """Tukey's difference, Cohen's d and p-value per pair (i < j), and the per-fold
    Wilcoxon test (corrected p-value, rank-biserial effect) beside it."""
    assert result.mean_difference is not None and result.cohen_d is not None
    assert result.pvalues is not None and result.significant is not None  # folds checked
    i, j = np.triu_indices(result.mean_difference.shape[0], 1)
    lower, upper = within_dataset.tukey_intervals(result)
    return TukeyTable(
        diff=floats(result.mean_difference[i, j]),
        cohens_d=floats(result.cohen_d[i, j]),
        pvalue=floats(result.pvalues[i, j]),
        significant=tuple(bool(v) for v in result.significant[i, j]),
        wilcoxon_pvalue=floats(signed_rank.pvalues_corrected[i, j]),
        rank_biserial=floats(signed_rank.effect_size[i, j]),
        ci_lower=floats(lower[i, j]),
        ci_upper=floats(upper[i, j]),
    )


def _anova(fold_scores: np.ndarray) -> RepeatedMeasuresAnova | NotApplicable:
    result = within_dataset.repeated_measures_anova(fold_scores)
    if result.df is None:
        return NotApplicable(str(result.note))
    return RepeatedMeasuresAnova(
        statistic=result.statistic, pvalue=result.pvalue, df=result.df, note=result.note
    )
