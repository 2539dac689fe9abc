"""Tests within a dataset on fold-level scores (METHODS 5).

``fold_scores`` is an ``(f, m)`` array for one dataset: the same ``f`` cross-validation
folds (or repeats) for every algorithm, larger is better. The repeated-measures Tukey
HSD treats folds as blocks of a two-way additive model; the per-fold Wilcoxon test
is its rank-based counterpart.

Where a dataset has no folds but its source gave a standard error with each score
(Every Eval Ever, lm-eval's ``_stderr``, "x ± s"), :func:`standard_error_tests` compares
two algorithms by a z-test on the difference of their scores, with the combined standard
error ``sqrt(se_a^2 + se_b^2)``, and Holm (or Bonferroni) across the dataset's pairs, the
correction the per-fold Wilcoxon test uses (see its Notes for why not a simultaneous
studentized-range bound). Folds, where they exist, win: the Tukey test stays.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from .significance import (
    Correction,
    PairwiseSignedRank,
    _check_alpha,
    _matrix_to_list,
    _paired_signed_rank,
    _plain,
    adjust_pvalues,
)
from .significance.checks import _check_correction
from .studentized_range import studentized_range_isf, studentized_range_sf

__all__ = [
    "SignificanceAwareRanks",
    "StandardErrorTests",
    "TukeyResult",
    "fold_wilcoxon_pairwise",
    "repeated_measures_tukey",
    "significance_aware_ranks",
    "standard_error_aware_ranks",
    "standard_error_tests",
]


# Elements of the (datasets x algorithms x algorithms) temporaries of one block in
# significance_aware_ranks (2 MB at float64).
_AWARE_BLOCK_ELEMENTS = 250_000


def _check_fold_scores(fold_scores: np.ndarray) -> np.ndarray:
    fold_scores = np.asarray(fold_scores, dtype=float)
    if fold_scores.ndim != 2:
        raise ValueError(
            f"fold_scores must be a 2-D array (folds x algorithms), got {fold_scores.ndim}-D"
        )
    if not np.isfinite(fold_scores).all():
        raise ValueError("fold_scores must be finite: every algorithm needs every fold")
    return fold_scores


def _tukey_not_applicable(f: int, m: int) -> str | None:
    if m < 2:
        return f"needs at least two algorithms, got {m}"
    if f < 2:
        return f"needs at least two folds, got {f}"
    return None


def _scale_exponents(stack: np.ndarray) -> np.ndarray:
    """Per block of a ``(k, f, m)`` stack, the power of two that brings its largest
    magnitude into ``[0.5, 1)`` (0 for a block of zeros)."""
    largest = np.abs(stack).max(axis=(1, 2))
    return np.frexp(largest)[1].astype(np.int64)


def _scaled(stack: np.ndarray, exponents: np.ndarray) -> np.ndarray:
    """``stack`` divided by ``2**exponents`` per block: exact (a power of two), and
    every sum of squares of the result stays far inside the float range."""
    return np.ldexp(stack, -exponents[:, None, None])


def _tukey_means(stack: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Column means and standard errors for ``(k, f, m)`` blocks, in the units of
    :func:`_scaled` (``q = |d| / se`` does not depend on them)."""
    _, f, m = stack.shape
    stack = _scaled(stack, _scale_exponents(stack))
    column_means = stack.mean(axis=1)  # (k, m)
    residuals = (
        stack
        - stack.mean(axis=2, keepdims=True)
        - column_means[:, None, :]
        + stack.mean(axis=(1, 2))[:, None, None]
    )
    df = (f - 1) * (m - 1)
    se = np.sqrt((residuals**2).sum(axis=(1, 2)) / df / f)
    return column_means, se, df


def _tukey_core(stack: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Column means, mean differences and standard errors for ``(k, f, m)`` blocks."""
    column_means, se, df = _tukey_means(stack)
    differences = column_means[:, :, None] - column_means[:, None, :]
    return column_means, differences, se, df


def _studentized(differences: np.ndarray, se: np.ndarray) -> np.ndarray:
    """``|d| / se``; with ``se = 0`` (perfectly additive scores) a non-zero ``d`` is
    infinitely far out and a zero ``d`` is no evidence at all."""
    se = np.broadcast_to(se, differences.shape)
    safe = np.where(se > 0, se, 1.0)
    q = np.abs(differences) / safe
    return np.where(se > 0, q, np.where(differences == 0, 0.0, np.inf))


@dataclass(frozen=True)
class TukeyResult:
    """Repeated-measures Tukey HSD for all pairs of algorithms on one dataset.

    Matrices are ``(m, m)``. ``mean_difference[a, b] = mean_a - mean_b`` and
    ``cohen_d`` are antisymmetric; ``q`` and ``pvalues`` symmetric (1 on the
    diagonal). ``cohen_d`` is ``+-inf`` where every fold shows the same non-zero
    difference and ``NaN`` where all fold differences are zero; ``to_dict()`` turns
    both into ``None`` and says why in ``cohen_d_note``.
    """

    n_folds: int
    n_algorithms: int
    alpha: float
    df: int | None
    se: float | None
    mean_scores: np.ndarray | None
    mean_difference: np.ndarray | None
    q: np.ndarray | None
    pvalues: np.ndarray | None
    significant: np.ndarray | None
    cohen_d: np.ndarray | None
    not_applicable: str | None

    def to_dict(self) -> dict:
        if self.not_applicable is not None:
            return {
                "n_folds": self.n_folds,
                "n_algorithms": self.n_algorithms,
                "alpha": self.alpha,
                "not_applicable": self.not_applicable,
            }
        # Applicable: every array is present.
        assert self.cohen_d is not None and self.mean_scores is not None
        assert self.mean_difference is not None and self.q is not None
        assert self.pvalues is not None and self.significant is not None
        notes = np.where(
            np.isinf(self.cohen_d),
            "every fold shows the same difference",
            np.where(np.isnan(self.cohen_d), "all fold differences are zero", ""),
        )
        return {
            "n_folds": self.n_folds,
            "n_algorithms": self.n_algorithms,
            "alpha": self.alpha,
            "df": self.df,
            "se": _plain(self.se),
            "mean_scores": [float(x) for x in self.mean_scores],
            "mean_difference": _matrix_to_list(self.mean_difference),
            "q": _matrix_to_list(self.q),
            "pvalues": _matrix_to_list(self.pvalues),
            "significant": self.significant.tolist(),
            "cohen_d": _matrix_to_list(self.cohen_d),
            "cohen_d_note": [[note or None for note in row] for row in notes.tolist()],
            "not_applicable": None,
        }


def _paired_cohen_d(fold_scores: np.ndarray) -> np.ndarray:
    """Mean of the fold differences over their sample standard deviation, (m, m);
    computed on the scores divided by a power of two (d does not depend on the scale),
    so that differences and squares of scores near the float limits stay finite."""
    fold_scores = _scaled(fold_scores[None], _scale_exponents(fold_scores[None]) + 1)[0]
    differences = fold_scores[:, :, None] - fold_scores[:, None, :]
    mean = differences.mean(axis=0)
    sd = differences.std(axis=0, ddof=1)
    # Rounding leaves a tiny spread in differences that are constant in exact arithmetic.
    constant = sd <= 1e-12 * np.maximum(np.abs(differences).max(axis=0), 1e-300)
    with np.errstate(divide="ignore", invalid="ignore"):
        d = np.where(constant, np.sign(mean) * np.inf, mean / np.where(constant, 1.0, sd))
    d[constant & (mean == 0)] = np.nan
    np.fill_diagonal(d, np.nan)
    return d


def repeated_measures_tukey(fold_scores: np.ndarray, *, alpha: float = 0.05) -> TukeyResult:
    """Tukey's HSD for a repeated-measures (folds x algorithms) design.

    Parameters
    ----------
    fold_scores : array_like, shape (f, m)
        Scores of ``m`` algorithms on the same ``f`` folds, larger is better.
    alpha : float, default 0.05
        Level for the ``significant`` matrix.

    Returns
    -------
    TukeyResult

    Notes
    -----
    Residuals of the additive model ``S - row means - column means + grand mean`` give
    ``df = (f - 1)(m - 1)`` and ``se = sqrt(sum(resid^2) / df / f)``; a pair's p-value
    is ``studentized_range.sf(|d| / se, m, df)`` with ``d`` the difference of column
    means. Folds of one cross-validation share training data, so they are not
    independent and these p-values are optimistic (Nadeau and Bengio 2003); they
    order algorithms within a dataset rather than generalise beyond it. If the
    residuals vanish (``se = 0``), every non-zero difference gets p-value 0 and a zero
    difference p-value 1. The effect size is the paired Cohen's d (mean of the fold
    differences over their sample standard deviation). Sums of squares are computed on
    the scores divided by a power of two (exact; ``q``, the p-values and d do not
    depend on the scale), so scores near the float limits (1e308, 1e-308) neither
    overflow nor underflow; a table whose differences of means or intervals would
    exceed the float range in the scores' units is not applicable, with a reason that
    names the largest score.

    References
    ----------
    .. [1] J. W. Tukey, "Comparing individual means in the analysis of variance",
       Biometrics 5(2), 99-114, 1949.
    .. [2] C. Nadeau and Y. Bengio, "Inference for the generalization error",
       Machine Learning 52, 239-281, 2003.
    """
    return repeated_measures_tukey_batch([fold_scores], alpha=alpha)[0]


def repeated_measures_tukey_batch(
    fold_scores_per_dataset: Sequence[np.ndarray], *, alpha: float = 0.05
) -> list[TukeyResult]:
    """:func:`repeated_measures_tukey` for many datasets at once.

    Datasets with the same (folds, algorithms) shape are computed as one stack, and the
    p-values of all their tables go through one evaluation of the studentized range
    (:mod:`estimation.core.studentized_range`, within 1e-6 relative of scipy).
    """
    alpha = _check_alpha(alpha)
    tables = [_check_fold_scores(scores) for scores in fold_scores_per_dataset]
    results: list[TukeyResult | None] = [None] * len(tables)
    by_shape: dict[tuple[int, int], list[int]] = {}
    for index, table in enumerate(tables):
        f, m = table.shape
        reason = _tukey_not_applicable(f, m)
        if reason is None:
            by_shape.setdefault((f, m), []).append(index)
        else:
            results[index] = TukeyResult(
                f, m, alpha, None, None, None, None, None, None, None, None, reason
            )
    for (f, m), indices in by_shape.items():
        stack = np.stack([tables[i] for i in indices])
        column_means, differences, se, df = _tukey_core(stack)
        q = _studentized(differences, se[:, None, None])
        # Back from the scaled units of _tukey_means; scores near the float limits can
        # have differences or intervals beyond it, and those tables are refused.
        exponents = _scale_exponents(stack)
        reach = np.abs(differences).max(axis=(1, 2)) + _tukey_critical_q(m, df, alpha) * se
        with np.errstate(over="ignore"):
            unrepresentable = ~np.isfinite(np.ldexp(reach, exponents))
            column_means = np.ldexp(column_means, exponents[:, None])
            differences = np.ldexp(differences, exponents[:, None, None])
            se = np.ldexp(se, exponents)
        upper = np.triu_indices(m, 1)
        # Once per distinct statistic (each through the spline of (m, df)).
        distinct, inverse = np.unique(q[:, upper[0], upper[1]], return_inverse=True)
        finite = np.isfinite(distinct)
        tail = np.zeros(distinct.shape)
        tail[finite] = studentized_range_sf(distinct[finite], m, df)
        upper_pvalues = np.clip(tail, 0, 1)[inverse].reshape(len(indices), -1)
        for position, index in enumerate(indices):
            if unrepresentable[position]:
                largest = float(np.abs(tables[index]).max())
                results[index] = TukeyResult(
                    f,
                    m,
                    alpha,
                    None,
                    None,
                    None,
                    None,
                    None,
                    None,
                    None,
                    None,
                    f"scores as large as {largest:.6g}: the differences of mean scores or "
                    "their Tukey intervals exceed the float range (about 1.8e308); "
                    "rescale the scores",
                )
                continue
            pvalues = np.ones((m, m))
            pvalues[upper] = upper_pvalues[position]
            pvalues = np.minimum(pvalues, pvalues.T)
            significant = pvalues < alpha
            np.fill_diagonal(significant, False)
            results[index] = TukeyResult(
                n_folds=f,
                n_algorithms=m,
                alpha=alpha,
                df=df,
                se=float(se[position]),
                mean_scores=column_means[position],
                mean_difference=differences[position],
                q=q[position],
                pvalues=pvalues,
                significant=significant,
                cohen_d=_paired_cohen_d(tables[index]),
                not_applicable=None,
            )
    return [result for result in results if result is not None]


def fold_wilcoxon_pairwise(
    fold_scores: np.ndarray, *, correction: Correction = "holm", alpha: float = 0.05
) -> PairwiseSignedRank:
    """Wilcoxon signed-rank test for every pair of algorithms over the folds of one dataset.

    Same computation and result as :func:`estimation.core.significance.wilcoxon_pairwise`
    (scipy.stats.wilcoxon defaults, Holm or Bonferroni, matched-pairs rank-biserial
    effect size), with folds as the paired observations, and the same rule for ties:
    fold differences equal in exact decimal arithmetic are ties
    (:func:`estimation.core.table.decimal_grid`). With 10 folds the smallest
    attainable two-sided p-value is ``2 / 2**10``, about 0.002, before correction.
    """
    fold_scores = np.asarray(fold_scores, dtype=float)
    return _paired_signed_rank(fold_scores, correction=correction, alpha=alpha, unit="fold")


def _tukey_critical_q(m: int, df: int, alpha: float) -> float:
    return studentized_range_isf(alpha, m, df)


@dataclass(frozen=True)
class SignificanceAwareRanks:
    """Per-dataset significance-aware ranks and their mean.

    ``ranks[i, a]`` is 1 + the number of algorithms significantly better than ``a`` on
    dataset ``i`` (Tukey, level ``alpha``); rows of datasets where the test is not
    applicable are ``NaN`` and listed in ``not_applicable`` (index -> reason).
    ``mean_ranks`` averages the applicable datasets (``None`` entries when there are
    none).
    """

    alpha: float
    ranks: np.ndarray
    mean_ranks: np.ndarray
    n_folds: np.ndarray
    not_applicable: dict[int, str]

    def to_dict(self) -> dict:
        return {
            "alpha": self.alpha,
            "ranks": _matrix_to_list(self.ranks),
            "mean_ranks": [_plain(float(x)) for x in self.mean_ranks],
            "n_folds": [int(x) for x in self.n_folds],
            "not_applicable": {str(k): v for k, v in self.not_applicable.items()},
        }


def _complete_folds(fold_scores: np.ndarray) -> np.ndarray:
    """Folds where every algorithm has a score (NaN padding and gaps dropped)."""
    fold_scores = np.asarray(fold_scores, dtype=float)
    if fold_scores.ndim != 2:
        raise ValueError(
            f"each dataset's fold scores must be 2-D (folds x algorithms), got {fold_scores.ndim}-D"
        )
    if np.isinf(fold_scores).any():
        raise ValueError("fold scores must be finite or NaN (missing)")
    return fold_scores[np.isfinite(fold_scores).all(axis=1)]


def _significantly_better_counts(means: np.ndarray, se: np.ndarray, critical: float) -> np.ndarray:
    """For each dataset ``k`` and algorithm ``a``, how many ``b`` are significantly better:
    ``d = mean_a - mean_b < 0`` and ``|d| / se > critical`` (:func:`_studentized`). The
    means must be finite (complete folds, scaled: :func:`_tukey_means`).

    No (m, m) array: that test holds for every ``b`` from some place on in the sorted
    means (rounded subtraction and division by ``se > 0`` are monotone), so a bisection
    per ``a`` finds the place, log2(m) passes over (k, m) arrays with the same float
    operations as the pairwise form, hence the same counts."""
    k, m = means.shape
    ascending = np.sort(means, axis=1)
    se = se[:, None]
    low = np.zeros((k, m), dtype=np.intp)  # the first better b is at or after low ...
    high = np.full((k, m), m, dtype=np.intp)  # ... and at or before high (m: none)
    while (open_ := low < high).any():
        middle = (low + high) // 2
        candidate = np.take_along_axis(ascending, np.minimum(middle, m - 1), axis=1)
        differences = means - candidate
        better = (differences < 0) & (_studentized(differences, se) > critical)
        high = np.where(open_ & better, middle, high)
        low = np.where(open_ & ~better, middle + 1, low)
    return m - low


def significance_aware_ranks(
    fold_scores_per_dataset: np.ndarray | Sequence[np.ndarray], *, alpha: float = 0.05
) -> SignificanceAwareRanks:
    """Rank = 1 + number of algorithms significantly better (repeated-measures Tukey).

    Parameters
    ----------
    fold_scores_per_dataset : array_like, shape (n, f, m), or sequence of (f_i, m)
        Fold scores of every dataset, larger is better; ``NaN``-padded folds (as in
        ``ResultTable.fold_values``) and folds missing for some algorithm are dropped.
    alpha : float, default 0.05
        Level of the Tukey test.

    Returns
    -------
    SignificanceAwareRanks

    Notes
    -----
    ``b`` is significantly better than ``a`` when ``mean_b > mean_a`` and
    ``|mean_b - mean_a| / se > q_{1-alpha}(m, df)``, which is the Tukey p-value being
    below ``alpha``. Datasets with the same number of complete folds are processed
    together as one ``(k, f, m)`` array; the critical value is computed once per
    ``(m, df)``. An algorithm that wins often by insignificant margins and loses badly
    elsewhere ranks worse here than its win rate suggests.
    """
    alpha = _check_alpha(alpha)
    datasets = [_complete_folds(block) for block in fold_scores_per_dataset]
    n = len(datasets)
    if n == 0:
        raise ValueError("fold_scores_per_dataset must hold at least one dataset")
    widths = {block.shape[1] for block in datasets}
    if len(widths) != 1:
        raise ValueError(f"every dataset needs the same number of algorithms, got {sorted(widths)}")
    m = widths.pop()
    n_folds = np.array([block.shape[0] for block in datasets])
    ranks = np.full((n, m), np.nan)
    not_applicable: dict[int, str] = {}
    for f in np.unique(n_folds):
        members = np.flatnonzero(n_folds == f)
        reason = _tukey_not_applicable(int(f), m)
        if reason is not None:
            not_applicable.update({int(i): reason for i in members})
            continue
        stack = np.stack([datasets[i] for i in members])
        column_means, se, df = _tukey_means(stack)
        critical = _tukey_critical_q(m, df, alpha)
        # Blocks of datasets keep the (k, m) temporaries small (cache-sized).
        block = max(1, _AWARE_BLOCK_ELEMENTS // m)
        for first in range(0, len(members), block):
            rows = slice(first, first + block)
            better = _significantly_better_counts(column_means[rows], se[rows], critical)
            ranks[members[rows]] = 1 + better
    applicable = ~np.isnan(ranks[:, 0])
    mean_ranks = ranks[applicable].mean(axis=0) if applicable.any() else np.full(m, np.nan)
    return SignificanceAwareRanks(
        alpha=alpha,
        ranks=ranks,
        mean_ranks=mean_ranks,
        n_folds=n_folds,
        not_applicable=not_applicable,
    )


@dataclass(frozen=True)
class RepeatedMeasuresAnova:
    """The omnibus test of a (folds x algorithms) design: do the algorithms differ at all?

    ``statistic`` and ``pvalue`` are ``None`` when they are not defined, and ``note``
    says why: the residuals vanish (perfectly additive scores: F is infinite when the
    algorithms differ, undefined when they do not) or the design has too few folds or
    algorithms.
    """

    n_folds: int
    n_algorithms: int
    statistic: float | None
    pvalue: float | None
    df: tuple[int, int] | None
    ss_algorithms: float | None
    ss_residual: float | None
    note: str | None


def repeated_measures_anova(fold_scores: np.ndarray) -> RepeatedMeasuresAnova:
    """One-way repeated-measures ANOVA: ``F = MS_algorithms / MS_residual``.

    Parameters
    ----------
    fold_scores : array_like, shape (f, m)
        Scores of ``m`` algorithms on the same ``f`` folds (every cell finite).

    Returns
    -------
    RepeatedMeasuresAnova

    Notes
    -----
    Folds are blocks: ``SS_algorithms = f * sum_a (mean_a - grand mean)^2`` with
    ``m - 1`` degrees of freedom; the residuals of the additive model (the same ones
    as the Tukey HSD's, so the two agree) give ``SS_residual`` with ``(f - 1)(m - 1)``.
    The p-value is the upper tail of ``F(m - 1, (f - 1)(m - 1))``. No sphericity
    correction: with folds of one cross-validation the test orders algorithms within a
    dataset rather than generalises (see :func:`repeated_measures_tukey`). The sums
    of squares are computed on the scores divided by a power of two (exact; F does not
    depend on the scale), so finite scores near the float limits (1e308, 1e-308) give
    the F of the same scores scaled; ``ss_algorithms`` and ``ss_residual`` are ``None``
    when they exceed the float range in the scores' squared units.
    """
    scores = _check_fold_scores(fold_scores)
    f, m = scores.shape
    reason = _tukey_not_applicable(f, m)
    if reason is not None:
        return RepeatedMeasuresAnova(f, m, None, None, None, None, None, reason)
    # F does not depend on the scale: compute in units that keep every square finite
    # (exact, a power of two), and report the sums of squares in the scores' units.
    exponent = int(_scale_exponents(scores[None])[0])
    scores = _scaled(scores[None], np.array([exponent]))[0]
    grand = scores.mean()
    column_means = scores.mean(axis=0)
    residuals = scores - scores.mean(axis=1, keepdims=True) - column_means + grand
    ss_algorithms = float(f * ((column_means - grand) ** 2).sum())
    ss_residual = float((residuals**2).sum())
    df1, df2 = m - 1, (f - 1) * (m - 1)
    # Sums of squares at rounding level (relative to the scores' size) count as zero.
    scale = max(float(np.abs(scores).max()), 1e-300)
    if ss_residual <= (1e-12 * scale) ** 2 * scores.size:
        note = (
            "the scores are exactly additive (no residual variation): F is infinite"
            if ss_algorithms > (1e-12 * scale) ** 2 * scores.size
            else "every fold scores every algorithm alike: F is undefined"
        )
        return RepeatedMeasuresAnova(
            f, m, None, None, (df1, df2), _in_squared_units(ss_algorithms, exponent), 0.0, note
        )
    statistic = (ss_algorithms / df1) / (ss_residual / df2)
    pvalue = float(stats.f.sf(statistic, df1, df2))
    return RepeatedMeasuresAnova(
        f,
        m,
        float(statistic),
        pvalue,
        (df1, df2),
        _in_squared_units(ss_algorithms, exponent),
        _in_squared_units(ss_residual, exponent),
        None,
    )


def _in_squared_units(sum_of_squares: float, exponent: int) -> float | None:
    """A sum of squares of scaled scores in the squared units of the scores; ``None``
    beyond the float range."""
    with np.errstate(over="ignore"):
        value = float(np.ldexp(sum_of_squares, 2 * exponent))
    return value if np.isfinite(value) else None


def tukey_intervals(result: TukeyResult) -> tuple[np.ndarray, np.ndarray]:
    """Simultaneous ``1 - alpha`` Tukey intervals for every difference ``mean_a - mean_b``.

    ``d +- q_{1-alpha}(m, df) * se`` with the same ``se`` and ``df`` as the test, so an
    interval excludes 0 exactly when the pair's p-value is below ``alpha``. Returns
    ``(lower, upper)`` matrices ``(m, m)`` (NaN on the diagonal); raises ``ValueError``
    when the table is not applicable.
    """
    if result.not_applicable is not None or result.mean_difference is None:
        raise ValueError(f"the Tukey table is not applicable: {result.not_applicable}")
    assert result.df is not None and result.se is not None
    half = _tukey_critical_q(result.n_algorithms, result.df, result.alpha) * result.se
    lower = result.mean_difference - half
    upper = result.mean_difference + half
    np.fill_diagonal(lower, np.nan)
    np.fill_diagonal(upper, np.nan)
    return lower, upper


@dataclass(frozen=True)
class StandardErrorTests:
    """z-tests of every pair on ``k`` datasets from the source's per-cell standard errors.

    Arrays are ``(k, m, m)``; ``difference[i, a, b] = score_a - score_b`` (oriented:
    positive means ``a`` is better). A pair is tested on a dataset when both scores and
    both standard errors are there; every other entry is ``NaN`` (``False`` in
    ``significant``), as is the diagonal. ``n_tested[i]`` is the size of dataset ``i``'s
    family (pairs ``a < b``).
    """

    alpha: float
    correction: str
    difference: np.ndarray
    standard_error: np.ndarray
    z: np.ndarray
    pvalues: np.ndarray
    pvalues_corrected: np.ndarray
    significant: np.ndarray
    n_tested: np.ndarray


def standard_error_tests(
    scores: np.ndarray,
    standard_errors: np.ndarray,
    *,
    correction: Correction = "holm",
    alpha: float = 0.05,
) -> StandardErrorTests:
    """Two-sided z-test of every pair of algorithms on each dataset, from per-cell SEs.

    Parameters
    ----------
    scores : array_like, shape (k, m)
        Dataset-level scores, larger is better, ``NaN`` where missing.
    standard_errors : array_like, shape (k, m)
        The standard error the source gave with each score, ``NaN`` where it gave none.
    correction : {"holm", "bonferroni"}, default "holm"
        Family-wise adjustment across the tested pairs of each dataset.
    alpha : float, default 0.05
        Level for ``significant`` (on the corrected p-values).

    Returns
    -------
    StandardErrorTests

    Notes
    -----
    ``z = (s_a - s_b) / sqrt(se_a^2 + se_b^2)`` and ``p = 2 * (1 - Phi(|z|))``, the
    two-sided normal tail (``scipy.stats.norm.sf``). It treats the two scores as
    independent estimates, each normal with the stated standard error: right for two
    models scored on separate samples; on the same test items their errors are positively
    correlated and the combined SE is too large, so the test is conservative (it errs
    towards "not separable"). A pair with ``se_a = se_b = 0`` is decided by its scores
    alone (``z`` infinite when they differ, 0 when equal), as Tukey's test is when its
    residuals vanish. Each dataset is its own family, corrected by Holm's step-down
    (default) or Bonferroni over its tested pairs, as the per-fold Wilcoxon test is. Not a
    simultaneous studentized-range bound as in Tukey's test: the pairs' standard errors
    differ, so no single range distribution applies, and Holm controls the family-wise
    error at ``alpha`` under any dependence between the pairs (pairs that share an
    algorithm are correlated).
    """
    alpha = _check_alpha(alpha)
    _check_correction(correction)
    scores = np.atleast_2d(np.asarray(scores, dtype=float))
    errors = np.atleast_2d(np.asarray(standard_errors, dtype=float))
    if scores.ndim != 2 or scores.shape != errors.shape:
        raise ValueError(
            f"scores and standard_errors must be 2-D of one shape (datasets x algorithms), "
            f"got {scores.shape} and {errors.shape}"
        )
    if (np.isinf(errors) | (errors < 0)).any():
        raise ValueError("standard_errors must be finite and >= 0, or NaN (none given)")
    k, m = scores.shape
    difference = scores[:, :, None] - scores[:, None, :]
    combined = np.hypot(errors[:, :, None], errors[:, None, :])
    tested = np.isfinite(difference) & np.isfinite(combined)
    tested[:, np.arange(m), np.arange(m)] = False
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(
            combined > 0,
            difference / np.where(combined > 0, combined, 1.0),
            np.where(difference == 0, 0.0, np.copysign(np.inf, difference)),
        )
    z = np.where(tested, z, np.nan)
    pvalues = np.where(tested, 2 * stats.norm.sf(np.abs(z)), np.nan)
    upper = np.triu_indices(m, 1)
    corrected = np.full((k, m, m), np.nan)
    corrected[:, upper[0], upper[1]] = adjust_pvalues(
        pvalues[:, upper[0], upper[1]], correction=correction
    )
    corrected[:, upper[1], upper[0]] = corrected[:, upper[0], upper[1]]
    return StandardErrorTests(
        alpha=alpha,
        correction=correction,
        difference=np.where(tested, difference, np.nan),
        standard_error=np.where(tested, combined, np.nan),
        z=z,
        pvalues=pvalues,
        pvalues_corrected=corrected,
        significant=tested & (corrected < alpha),
        n_tested=tested[:, upper[0], upper[1]].sum(axis=1),
    )


def standard_error_aware_ranks(
    scores: np.ndarray,
    standard_errors: np.ndarray,
    *,
    correction: Correction = "holm",
    alpha: float = 0.05,
) -> np.ndarray:
    """Significance-aware ranks by :func:`standard_error_tests`: on each dataset,
    1 + the number of algorithms significantly better; a row is ``NaN`` where no pair
    could be tested (fewer than two algorithms with a score and a standard error).
    Datasets go in blocks, so the ``(k, m, m)`` temporaries stay small."""
    scores = np.asarray(scores, dtype=float)
    n, m = scores.shape
    ranks = np.full((n, m), np.nan)
    block = max(1, _AWARE_BLOCK_ELEMENTS // (m * m))
    for first in range(0, n, block):
        rows = slice(first, first + block)
        tests = standard_error_tests(
            scores[rows], standard_errors[rows], correction=correction, alpha=alpha
        )
        # difference[k, a, b] = score_a - score_b: b better than a when it is negative.
        better = tests.significant & (tests.difference < 0)
        block_ranks = 1.0 + better.sum(axis=2)
        block_ranks[tests.n_tested == 0] = np.nan
        ranks[rows] = block_ranks
    return ranks
