"""The significance sections of a payload: Friedman, Nemenyi and Wilcoxon across datasets,
Tukey HSD and the repeated-measures ANOVA within them, from the prepared rankings."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from estimation.core import significance, within_dataset
from estimation.core.contract import (
    AnalysisSettings,
    DatasetTests,
    Friedman,
    NemenyiSection,
    NemenyiSummary,
    NotApplicable,
    PairNote,
    PairwiseMatrix,
    RepeatedMeasuresAnova,
    TukeyTable,
    WilcoxonSection,
    WilcoxonSummary,
    WithinDatasetSection,
    floats,
    plain_float,
)
from estimation.core.rankings import PreparedRankings

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


def tests_across_datasets(prepared: PreparedRankings, settings: AnalysisSettings) -> AcrossDatasets:
    names, ranks, known = prepared.algorithms, prepared.ranks, prepared.known_positions
    friedman: Friedman | NotApplicable
    nemenyi_summary: NemenyiSummary | NotApplicable
    nemenyi: NemenyiSection | NotApplicable
    reason = significance.rank_test_not_applicable(ranks, known_positions=known)
    if reason is not None:
        friedman = nemenyi_summary = nemenyi = NotApplicable(reason)
    else:
        result = significance.friedman(ranks, known_positions=known)
        assert result.statistic is not None and result.pvalue is not None
        assert result.iman_davenport_df is not None
        infinite = NotApplicable(str(result.iman_davenport_not_applicable))
        friedman = Friedman(
            n_datasets=int(result.n_datasets),
            statistic=float(result.statistic),
            statistic_uncorrected=float(result.statistic_uncorrected or 0.0),
            pvalue=float(result.pvalue),
            df=int(result.df or 0),
            iman_davenport=infinite
            if result.iman_davenport is None
            else float(result.iman_davenport),
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
        nemenyi_test = significance.nemenyi(ranks, alpha=settings.alpha, known_positions=known)
        assert nemenyi_test.significant is not None and nemenyi_test.mean_ranks is not None
        assert nemenyi_test.pvalues is not None  # applicable, checked above
        groups = significance.indistinguishable_groups(
            nemenyi_test.significant, nemenyi_test.mean_ranks
        )
        nemenyi_summary = NemenyiSummary(
            alpha=settings.alpha,
            q_alpha=float(nemenyi_test.q_alpha or 0.0),
            critical_difference=float(nemenyi_test.critical_difference or 0.0),
            letters=_letters(groups),
        )
        nemenyi = NemenyiSection(
            algorithms=names,
            pvalues=PairwiseMatrix.from_square(nemenyi_test.pvalues),
            groups=_bars(groups),
        )
    wilcoxon_summary: WilcoxonSummary | NotApplicable
    wilcoxon: WilcoxonSection | NotApplicable
    if prepared.scores is None:
        wilcoxon_summary = wilcoxon = NotApplicable(
            "ranking-only input has no scores to pair across datasets"
        )
    elif prepared.n_datasets < 2:
        wilcoxon_summary = wilcoxon = NotApplicable("a single dataset gives no paired differences")
    else:
        signed_rank = significance.wilcoxon_pairwise(
            prepared.scores, correction=settings.correction, alpha=settings.alpha
        )
        mean_ranks = prepared.ranks.mean(axis=0)
        groups = significance.indistinguishable_groups(signed_rank.significant, mean_ranks)
        wilcoxon_summary = WilcoxonSummary(
            alpha=settings.alpha, correction=settings.correction, letters=_letters(groups)
        )
        wilcoxon = WilcoxonSection(
            algorithms=names,
            pvalues=PairwiseMatrix.from_square(signed_rank.pvalues_corrected),
            pvalues_raw=PairwiseMatrix.from_square(signed_rank.pvalues),
            rank_biserial=PairwiseMatrix.from_square(signed_rank.effect_size),
            groups=_bars(groups),
            not_applicable_pairs=tuple(
                PairNote(a=a, b=b, reason=reason)
                for a, b, reason in signed_rank.not_applicable_pairs()
            ),
        )
    return AcrossDatasets(friedman, nemenyi_summary, nemenyi, wilcoxon_summary, wilcoxon)


def _letters(groups: significance.IndistinguishableGroups) -> tuple[str, ...] | NotApplicable:
    """Compact letters, or why they would not be readable at this size."""
    if groups.letters is None:
        return NotApplicable(str(groups.letters_not_applicable))
    return tuple(groups.letters)


def _bars(
    groups: significance.IndistinguishableGroups,
) -> tuple[tuple[int, ...], ...] | NotApplicable:
    """CD bars (indices), or why a diagram would not be readable at this size."""
    if groups.bars is None:
        return NotApplicable(str(groups.bars_not_applicable))
    return tuple(tuple(int(i) for i in bar) for bar in groups.bars)


def tests_within_datasets(
    prepared: PreparedRankings, settings: AnalysisSettings
) -> tuple[tuple[float | None, ...] | NotApplicable, WithinDatasetSection | NotApplicable]:
    """The board's mean significance-aware ranks, and the within-dataset section."""
    names = prepared.algorithms
    if prepared.fold_scores is None:
        reason = NotApplicable("the results have no folds")
        return reason, reason
    folds = prepared.fold_scores
    aware = within_dataset.significance_aware_ranks(folds, alpha=settings.alpha)
    n, m = len(prepared.datasets), len(names)
    tables = n * m * (m - 1) // 2 <= MAX_TUKEY_PAIRS
    with_table = [i for i in range(n) if tables and i not in aware.not_applicable]
    tukey = dict(
        zip(
            with_table,
            within_dataset.repeated_measures_tukey_batch(
                [_complete_folds(folds[i]) for i in with_table], alpha=settings.alpha
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
        else:
            anova = _anova(_complete_folds(folds[i]))
        if i in tukey:
            signed_rank = within_dataset.fold_wilcoxon_pairwise(
                _complete_folds(folds[i]), correction=settings.correction, alpha=settings.alpha
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
