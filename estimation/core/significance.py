"""Tests across datasets on dataset-level results (METHODS 4).

``ranks`` is an ``(n, m)`` array of average ranks per dataset (1 = best); ``scores`` an
``(n, m)`` array of dataset-level scores oriented so that larger is better, ``NaN``
for a missing result. A test that cannot be computed on the given input returns a
result whose ``not_applicable`` field says why, and whose numbers are ``None``; no
result ever holds ``NaN``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np
from scipy import special, stats

from .studentized_range import studentized_range_sf
from .table import decimal_exponents, paired_differences
from .threads import run_interleaved

__all__ = [
    "FriedmanResult",
    "IndistinguishableGroups",
    "NemenyiResult",
    "WilcoxonPairwiseResult",
    "adjust_pvalues",
    "cd_groups",
    "compact_letter_display",
    "friedman",
    "indistinguishable_groups",
    "nemenyi",
    "rank_test_not_applicable",
    "wilcoxon_pairwise",
]

Correction = Literal["holm", "bonferroni"]

# scipy.stats.wilcoxon (method="auto") switches to the normal approximation above 50
# observations, and uses an exact permutation test for up to 13 observations with ties
# or zeros (2**13 sign patterns fit in its default 9999 resamples).
_EXACT_MAX = 50
_PERMUTATION_MAX = 13
# Pairs of algorithms processed at once in the vectorised Wilcoxon (memory bound).
_PAIR_CHUNK_ELEMENTS = 2_000_000
# Guard against pathological significance graphs in the compact letter display.
_MAX_LETTER_GROUPS = 10_000


# --------------------------------------------------------------------------------------
# helpers


def _plain(value: float | None) -> float | None:
    if value is None or not math.isfinite(value):
        return None
    return float(value)


def _matrix_to_list(matrix: np.ndarray) -> list:
    return [[_plain(float(x)) for x in row] for row in np.asarray(matrix, dtype=float)]


def _check_alpha(alpha: float) -> float:
    alpha = float(alpha)
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    return alpha


def _check_rank_matrix(ranks: np.ndarray) -> np.ndarray:
    ranks = np.asarray(ranks, dtype=float)
    if ranks.ndim != 2:
        raise ValueError(f"ranks must be a 2-D array (datasets x algorithms), got {ranks.ndim}-D")
    if not np.isfinite(ranks).all():
        raise ValueError("ranks must be finite: analyse the complete block of datasets")
    return ranks


def _check_correction(correction: str) -> str:
    if correction not in ("holm", "bonferroni"):
        raise ValueError(f"correction must be 'holm' or 'bonferroni', got {correction!r}")
    return correction


def rank_test_not_applicable(
    ranks: np.ndarray, *, known_positions: int | None = None
) -> str | None:
    """Why Friedman and Nemenyi cannot be computed on ``ranks``, or ``None`` if they can.

    Both need at least two datasets and two algorithms, complete rankings (a top-K-only
    table leaves positions below ``K`` unknown) and at least one dataset that does not
    tie every algorithm.
    """
    ranks = _check_rank_matrix(ranks)
    n, m = ranks.shape
    if m < 2:
        return f"needs at least two algorithms, got {m}"
    if n < 2:
        return f"needs at least two datasets, got {n}"
    if known_positions is not None and known_positions < m - 1:
        return (
            f"only the top {known_positions} of {m} positions are known: rank tests need "
            "complete rankings"
        )
    if np.all(ranks == ranks[:, :1]):
        return "every dataset ties all algorithms"
    return None


def _tie_term(ranks: np.ndarray) -> float:
    """``sum (t^3 - t)`` over the tie groups of every dataset (equal average ranks)."""
    ordered = np.sort(ranks, axis=1)
    starts = np.ones(ordered.shape, dtype=bool)
    starts[:, 1:] = np.abs(np.diff(ordered, axis=1)) > 1e-9
    flat_starts = np.flatnonzero(starts.ravel())
    sizes = np.diff(np.append(flat_starts, ordered.size)).astype(float)
    return float((sizes**3 - sizes).sum())


# --------------------------------------------------------------------------------------
# Friedman


@dataclass(frozen=True)
class FriedmanResult:
    """Friedman chi-square and Iman-Davenport F on a complete block of ranks.

    ``statistic``/``iman_davenport`` are tie-corrected (as ``scipy.stats.
    friedmanchisquare``), the ``_uncorrected`` forms are the textbook formulas of
    Demšar (2006); p-values come from the corrected forms. When every dataset ranks
    the algorithms identically the statistic is at its maximum and F is infinite:
    ``iman_davenport`` and ``iman_davenport_pvalue`` are then ``None``,
    ``iman_davenport_not_applicable`` says why, and ``exact_pvalue`` holds the exact
    permutation p-value of Friedman's statistic (METHODS 4).
    """

    n_datasets: int
    n_algorithms: int
    mean_ranks: tuple[float, ...] | None
    statistic: float | None
    statistic_uncorrected: float | None
    pvalue: float | None
    df: int | None
    iman_davenport: float | None
    iman_davenport_uncorrected: float | None
    iman_davenport_pvalue: float | None
    iman_davenport_df: tuple[int, int] | None
    not_applicable: str | None
    iman_davenport_not_applicable: str | None = None
    exact_pvalue: float | None = None

    def to_dict(self) -> dict:
        return {
            "n_datasets": self.n_datasets,
            "n_algorithms": self.n_algorithms,
            "mean_ranks": None if self.mean_ranks is None else list(self.mean_ranks),
            "statistic": self.statistic,
            "statistic_uncorrected": self.statistic_uncorrected,
            "pvalue": self.pvalue,
            "df": self.df,
            "iman_davenport": self.iman_davenport,
            "iman_davenport_uncorrected": self.iman_davenport_uncorrected,
            "iman_davenport_pvalue": self.iman_davenport_pvalue,
            "iman_davenport_df": None
            if self.iman_davenport_df is None
            else list(self.iman_davenport_df),
            "not_applicable": self.not_applicable,
            "iman_davenport_not_applicable": self.iman_davenport_not_applicable,
            "exact_pvalue": self.exact_pvalue,
        }


PERFECT_AGREEMENT = (
    "every dataset ranks the algorithms identically: Friedman's statistic is at its "
    "maximum, Iman–Davenport's F is infinite and its p-value has no meaning (see the "
    "exact p-value)"
)


def _exact_agreement_pvalue(ranks: np.ndarray) -> float:
    """Exact p-value of Friedman's statistic when every dataset has the same ranks.

    Under the null each dataset's rank vector is equally likely to be any of the
    ``D = m! / prod(t_g!)`` arrangements of its tie pattern; the statistic reaches its
    maximum only when all ``n`` agree, so ``p = D**(1 - n)`` (``(m!)**(1 - n)``
    without ties; ``m = 2, n = 2``: 0.5).
    """
    n, m = ranks.shape
    ordered = np.sort(ranks[0])
    starts = np.flatnonzero(np.r_[True, np.abs(np.diff(ordered)) > 1e-9])
    sizes = np.diff(np.append(starts, m))
    log_arrangements = special.gammaln(m + 1) - special.gammaln(sizes + 1).sum()
    if (n - 1) * log_arrangements < 600:  # exact integers, one rounding
        arrangements = math.factorial(m) // math.prod(math.factorial(int(t)) for t in sizes)
        return 1.0 / arrangements ** (n - 1)
    return float(np.exp((1 - n) * log_arrangements))


def _iman_davenport(chi2: float, n: int, m: int) -> float | None:
    denominator = n * (m - 1) - chi2
    # Perfect agreement gives chi2 = n (m - 1) up to rounding: F is infinite.
    if denominator <= 1e-12 * n * (m - 1):
        return None
    return float((n - 1) * chi2 / denominator)


def friedman(ranks: np.ndarray, *, known_positions: int | None = None) -> FriedmanResult:
    """Friedman test and its Iman-Davenport F version.

    Parameters
    ----------
    ranks : array_like, shape (n, m)
        Average ranks per dataset (1 = best), complete block (no ``NaN``).
    known_positions : int, optional
        Number of known top positions when the ranks come from a top-K-only table;
        the test is then not applicable.

    Returns
    -------
    FriedmanResult

    Notes
    -----
    ``chi2 = 12 n / (m (m + 1)) (sum_a R_a^2 - m (m + 1)^2 / 4)`` with ``R_a`` the mean
    ranks; the tie-corrected form divides by ``1 - sum(t^3 - t) / (n m (m^2 - 1))``.
    ``F = (n - 1) chi2 / (n (m - 1) - chi2)`` with ``(m - 1, (m - 1)(n - 1))`` degrees
    of freedom. The chi-square approximation wants roughly ``n > 10`` and ``m > 5``;
    Iman and Davenport's F is less conservative and preferred (Demšar 2006).

    References
    ----------
    .. [1] J. Demšar, "Statistical comparisons of classifiers over multiple data
       sets", JMLR 7, 1-30, 2006.
    .. [2] R. L. Iman and J. M. Davenport, "Approximations of the critical region of
       the Friedman statistic", Comm. Statist. A 9, 571-595, 1980.
    """
    ranks = _check_rank_matrix(ranks)
    n, m = ranks.shape
    reason = rank_test_not_applicable(ranks, known_positions=known_positions)
    if reason is not None:
        return FriedmanResult(n, m, None, None, None, None, None, None, None, None, None, reason)
    mean_ranks = ranks.mean(axis=0)
    uncorrected = 12 * n / (m * (m + 1)) * (np.sum(mean_ranks**2) - m * (m + 1) ** 2 / 4)
    tie_factor = 1 - _tie_term(ranks) / (n * m * (m * m - 1))
    corrected = uncorrected / tie_factor
    iman = _iman_davenport(corrected, n, m)
    df2 = (m - 1) * (n - 1)
    # F is infinite exactly when every dataset has the same rank vector (ties included).
    agreement = iman is None
    return FriedmanResult(
        n_datasets=n,
        n_algorithms=m,
        mean_ranks=tuple(float(x) for x in mean_ranks),
        statistic=float(corrected),
        statistic_uncorrected=float(uncorrected),
        pvalue=float(stats.chi2.sf(corrected, m - 1)),
        df=m - 1,
        iman_davenport=iman,
        iman_davenport_uncorrected=_iman_davenport(uncorrected, n, m),
        iman_davenport_pvalue=None if iman is None else float(stats.f.sf(iman, m - 1, df2)),
        iman_davenport_df=(m - 1, df2),
        not_applicable=None,
        iman_davenport_not_applicable=PERFECT_AGREEMENT if agreement else None,
        exact_pvalue=_exact_agreement_pvalue(ranks) if agreement else None,
    )


# --------------------------------------------------------------------------------------
# Nemenyi


@dataclass(frozen=True)
class NemenyiResult:
    """Nemenyi post-hoc test: critical difference and all pairwise p-values.

    ``pvalues[a, b]`` is symmetric with 1 on the diagonal; ``significant[a, b]`` is
    ``pvalues < alpha`` (equivalently ``|R_a - R_b| > critical_difference``).
    """

    n_datasets: int
    n_algorithms: int
    alpha: float
    q_alpha: float | None
    critical_difference: float | None
    mean_ranks: np.ndarray | None
    pvalues: np.ndarray | None
    significant: np.ndarray | None
    not_applicable: str | None

    def to_dict(self) -> dict:
        return {
            "n_datasets": self.n_datasets,
            "n_algorithms": self.n_algorithms,
            "alpha": self.alpha,
            "q_alpha": self.q_alpha,
            "critical_difference": self.critical_difference,
            "mean_ranks": None if self.mean_ranks is None else [float(x) for x in self.mean_ranks],
            "pvalues": None if self.pvalues is None else _matrix_to_list(self.pvalues),
            "significant": None if self.significant is None else self.significant.tolist(),
            "not_applicable": self.not_applicable,
        }


def nemenyi(
    ranks: np.ndarray, *, alpha: float = 0.05, known_positions: int | None = None
) -> NemenyiResult:
    """Nemenyi test for all pairs of algorithms after a Friedman test.

    Parameters
    ----------
    ranks : array_like, shape (n, m)
        Average ranks per dataset (1 = best), complete block.
    alpha : float, default 0.05
        Family-wise significance level of the critical difference.
    known_positions : int, optional
        Known top positions of a top-K-only table (then not applicable).

    Returns
    -------
    NemenyiResult

    Notes
    -----
    ``CD = q_alpha(m, inf) / sqrt(2) * sqrt(m (m + 1) / (6 n))`` with ``q_alpha`` the
    upper ``alpha`` quantile of the studentized range of ``m`` standard normals
    (``scipy.stats.studentized_range`` with ``df = inf``); the p-value of a pair is
    ``studentized_range.sf(sqrt(2) |R_a - R_b| / sqrt(m (m + 1) / (6 n)), m, inf)``,
    as in scikit-posthocs. scipy computes the survival function as ``1 - cdf``, so
    p-values below about ``1e-15`` are reported as 0. With more than a few dozen
    distinct distances the survival function comes from a verified interpolant
    (:mod:`estimation.core.studentized_range`, within 1e-6 of scipy). Ties are not
    corrected for.

    References
    ----------
    .. [1] P. Nemenyi, "Distribution-free multiple comparisons", PhD thesis,
       Princeton University, 1963.
    .. [2] J. Demšar, JMLR 7, 1-30, 2006.
    """
    alpha = _check_alpha(alpha)
    ranks = _check_rank_matrix(ranks)
    n, m = ranks.shape
    reason = rank_test_not_applicable(ranks, known_positions=known_positions)
    if reason is not None:
        return NemenyiResult(n, m, alpha, None, None, None, None, None, reason)
    mean_ranks = ranks.mean(axis=0)
    scale = math.sqrt(m * (m + 1) / (6 * n))
    q_alpha = float(stats.studentized_range.ppf(1 - alpha, m, np.inf))
    q_values = np.sqrt(2) * np.abs(mean_ranks[:, None] - mean_ranks[None, :]) / scale
    # The studentized range integral is slow; evaluate it once per distinct distance.
    upper = np.triu_indices(m, 1)
    distinct, inverse = np.unique(q_values[upper], return_inverse=True)
    pvalues = np.ones((m, m))
    pvalues[upper] = np.clip(studentized_range_sf(distinct, m, np.inf), 0, 1)[inverse]
    pvalues = np.minimum(pvalues, pvalues.T)
    significant = pvalues < alpha
    np.fill_diagonal(significant, False)
    return NemenyiResult(
        n_datasets=n,
        n_algorithms=m,
        alpha=alpha,
        q_alpha=q_alpha,
        critical_difference=q_alpha / math.sqrt(2) * scale,
        mean_ranks=mean_ranks,
        pvalues=pvalues,
        significant=significant,
        not_applicable=None,
    )


# --------------------------------------------------------------------------------------
# Wilcoxon signed-rank, all pairs


def adjust_pvalues(pvalues: np.ndarray, *, correction: str = "holm") -> np.ndarray:
    """Holm step-down or Bonferroni adjustment of a 1-D array of p-values.

    ``NaN`` entries are left out of the family and stay ``NaN``.
    """
    correction = _check_correction(correction)
    pvalues = np.asarray(pvalues, dtype=float)
    adjusted = np.full_like(pvalues, np.nan)
    present = np.flatnonzero(~np.isnan(pvalues))
    k = present.size
    if k == 0:
        return adjusted
    values = pvalues[present]
    if correction == "bonferroni":
        adjusted[present] = np.minimum(1.0, k * values)
        return adjusted
    order = np.argsort(values, kind="stable")
    stepped = np.maximum.accumulate((k - np.arange(k)) * values[order])
    adjusted[present[order]] = np.minimum(1.0, stepped)
    return adjusted


@lru_cache(maxsize=64)
def _signed_rank_counts(n: int) -> np.ndarray:
    """Number of sign patterns of ranks 1..n with each sum ``0..n(n+1)/2`` (exact ints)."""
    counts = np.zeros(n * (n + 1) // 2 + 1)
    counts[0] = 1
    for k in range(1, n + 1):
        counts[k:] = counts[k:] + counts[:-k].copy()
    counts.setflags(write=False)
    return counts


def _exact_pvalues(r_plus: np.ndarray, count: np.ndarray) -> np.ndarray:
    """scipy's exact two-sided p-value, ``2 min(P(T >= floor r), P(T <= ceil r))``.

    The counts are exact integers below 2**53, so every tail probability is an exact
    dyadic fraction and the result equals scipy's bit for bit.
    """
    pvalues = np.empty(r_plus.shape)
    for n in np.unique(count):
        rows = count == n
        cumulative = np.cumsum(_signed_rank_counts(int(n)))
        total = 2.0**n
        low = cumulative[np.ceil(r_plus[rows]).astype(int)] / total
        floor = np.floor(r_plus[rows]).astype(int)
        high = (total - np.where(floor > 0, cumulative[np.maximum(floor - 1, 0)], 0.0)) / total
        pvalues[rows] = np.clip(2 * np.minimum(low, high), 0, 1)
    return pvalues


def _permutation_pvalues(
    doubled_ranks: np.ndarray, valid: np.ndarray, r_plus: np.ndarray
) -> np.ndarray:
    """scipy's exact sign-flip permutation p-value for up to 13 observations.

    Sums of doubled (integer) mid-ranks over all ``2**N`` sign patterns are counted
    by dynamic programming, zeros included (rank 0: a flip does not change the sum),
    which is the null distribution scipy enumerates.
    """
    rows, width = doubled_ranks.shape
    max_sum = int(doubled_ranks.sum(axis=1).max()) if rows else 0
    counts = np.zeros((rows, max_sum + 1))
    counts[:, 0] = 1
    cells = np.arange(max_sum + 1)[None, :]
    for column in range(width):
        shift = doubled_ranks[:, column][:, None]
        source = cells - shift
        shifted = np.where(
            source >= 0, np.take_along_axis(counts, np.maximum(source, 0), axis=1), 0
        )
        counts = np.where(valid[:, column][:, None], counts + shifted, counts)
    total = counts.sum(axis=1)
    observed = np.rint(2 * r_plus).astype(int)
    cumulative = np.cumsum(counts, axis=1)
    at_most = np.take_along_axis(cumulative, observed[:, None], axis=1)[:, 0]
    below = np.where(
        observed > 0,
        np.take_along_axis(cumulative, np.maximum(observed - 1, 0)[:, None], axis=1)[:, 0],
        0.0,
    )
    return np.clip(2 * np.minimum(at_most / total, (total - below) / total), 0, 1)


_METHODS = np.array(["exact", "permutation", "asymptotic", None], dtype=object)
"""Names of the regimes by their code in ``_SignedRankBatch.method``; code 3: not tested."""


@dataclass(frozen=True)
class _SignedRankBatch:
    r_plus: np.ndarray
    r_minus: np.ndarray
    statistic: np.ndarray
    pvalue: np.ndarray
    n_observations: np.ndarray
    n_nonzero: np.ndarray
    method: np.ndarray


def _signed_rank_batch(
    differences: np.ndarray, *, complete: bool = False, overwrite: bool = False
) -> _SignedRankBatch:
    """``scipy.stats.wilcoxon`` defaults on every row of ``differences`` (NaN = absent).

    Rows are the paired differences of one pair of algorithms; absent observations
    are removed first, as the caller would before calling scipy. The choice of method
    follows scipy's ``method="auto"``: exact when at most 50 observations with neither
    ties nor zeros; the exact sign-flip permutation test (``PermutationMethod``) for at
    most 13 observations with ties or zeros; otherwise the normal approximation with
    tie correction and no continuity correction. Zeros are dropped (``"wilcox"``).

    ``complete=True`` promises that no difference is NaN (skips that check);
    ``overwrite=True`` lets the function reuse ``differences`` (a C-contiguous float
    array) as its sort keys, destroying it.
    """
    differences = np.asarray(differences, dtype=float)
    rows, width = differences.shape
    # Non-zero counts: NaN counts as non-zero, so absent differences are taken off.
    count = np.count_nonzero(differences, axis=1)
    if complete:
        n_observations = np.full(rows, width, dtype=np.intp)
    else:
        n_observations = width - np.count_nonzero(np.isnan(differences), axis=1)
        count = count - (width - n_observations)
    # One sort of integer keys instead of an argsort and two permutations: the bits of a
    # non-negative double order like its value, and shifting a double's bits left by one
    # drops its sign, so (bits << 1) - 2 orders by magnitude with zeros (and only they)
    # wrapping round to the largest even key, 2**64 - 2; the lowest bit then carries
    # d > 0. Absent differences (NaN) sort after every finite one, zeros last;
    # position < count marks the real ones.
    positive_cells = differences > 0
    if overwrite and differences.flags.c_contiguous:
        keys = differences.view(np.uint64)
        np.left_shift(keys, np.uint64(1), out=keys)
    else:
        keys = np.ascontiguousarray(differences).view(np.uint64) << np.uint64(1)
    keys -= np.uint64(2)
    keys |= positive_cells
    del positive_cells
    keys.sort(axis=1)
    positive = np.empty((rows, width), dtype=bool)
    np.bitwise_and(keys, np.uint64(1), out=positive.view(np.uint8), casting="unsafe")
    keys >>= np.uint64(1)
    position = np.arange(width)
    # Ties between neighbours; only those among the real observations count, which
    # matters only in rows with a tie somewhere (zeros and absent values tie at the end).
    equal_next = keys[:, 1:] == keys[:, :-1]
    candidates = np.flatnonzero(equal_next.any(axis=1))
    has_ties = np.zeros(rows, dtype=bool)
    tied_with_previous_candidates = equal_next[candidates] & (
        position[None, 1:] < count[candidates][:, None]
    )
    del equal_next
    has_ties[candidates] = tied_with_previous_candidates.any(axis=1)
    # Without ties the rank of the k-th smallest magnitude is k + 1, so R+ is a dot
    # product; rows with ties get mid-ranks. Every R+ is a sum of integers and halves
    # far below 2**53, hence exact in any order of summation.
    # einsum, not a matrix product: BLAS threads would spin against the caller's threads.
    r_plus = np.einsum("ij,j->i", positive, position + 1.0)
    tie_term = np.zeros(rows)
    tied_rows = np.flatnonzero(has_ties)
    tied_ranks = np.zeros((0, width))
    real_tied = position[None, :] < count[tied_rows][:, None]
    if tied_rows.size:
        starts = np.ones((tied_rows.size, width), dtype=bool)
        starts[:, 1:] = ~tied_with_previous_candidates[has_ties[candidates]]
        flat_starts = np.flatnonzero(starts.ravel())
        sizes = np.diff(np.append(flat_starts, starts.size))
        group_of_cell = np.cumsum(starts.ravel()) - 1
        midranks = flat_starts % width + (sizes + 1) / 2
        tied_ranks = midranks[group_of_cell].reshape(starts.shape)
        tied_ranks[~real_tied] = 0.0
        r_plus[tied_rows] = (tied_ranks * positive[tied_rows]).sum(axis=1)
        group_row = flat_starts // width
        real_group = flat_starts % width < count[tied_rows][group_row]
        tie_term[tied_rows] = np.bincount(
            group_row,
            weights=np.where(real_group, sizes.astype(float) ** 3 - sizes, 0.0),
            minlength=tied_rows.size,
        )
    # Mid-ranks of the real observations sum to count (count + 1) / 2, exactly.
    r_minus = count * (count + 1.0) / 2 - r_plus

    exact = (n_observations <= _EXACT_MAX) & ~has_ties & (count == n_observations)
    permutation = ~exact & (n_observations <= _PERMUTATION_MAX)
    asymptotic = ~exact & ~permutation
    pvalue = np.full(rows, np.nan)
    usable = count > 0
    if (exact & usable).any():
        chosen = exact & usable
        pvalue[chosen] = _exact_pvalues(r_plus[chosen], count[chosen])
    if (permutation & usable).any():
        chosen = permutation & usable
        # Ranks of the chosen rows (0 for zeros and absent observations); the zeros are
        # valid observations of rank 0 (sorted after the non-zero ones, before the
        # absent ones).
        ranks = np.where(position[None, :] < count[chosen][:, None], position + 1.0, 0.0)
        tied_chosen = has_ties[chosen]
        if tied_chosen.any():
            ranks[tied_chosen] = tied_ranks[
                np.searchsorted(tied_rows, np.flatnonzero(chosen & has_ties))
            ]
        valid = position[None, :] < n_observations[chosen][:, None]
        doubled = np.rint(2 * ranks).astype(int)
        pvalue[chosen] = _permutation_pvalues(doubled, valid, r_plus[chosen])
    if (asymptotic & usable).any():
        chosen = asymptotic & usable
        n_used = count[chosen].astype(float)
        # Same operation order as scipy so that the results agree to the last bit.
        mean = n_used * (n_used + 1.0) * 0.25
        variance = n_used * (n_used + 1.0) * (2.0 * n_used + 1.0)
        variance -= tie_term[chosen] / 2
        se = np.sqrt(variance / 24)
        z = (r_plus[chosen] - mean) / se
        pvalue[chosen] = 2 * special.ndtr(-np.abs(z))
    method = np.where(exact, 0, np.where(permutation, 1, 2)).astype(np.int8)
    return _SignedRankBatch(
        r_plus=r_plus,
        r_minus=r_minus,
        statistic=np.minimum(r_plus, r_minus),
        pvalue=pvalue,
        n_observations=n_observations,
        n_nonzero=count,
        method=method,
    )


@dataclass(frozen=True)
class PairwiseSignedRank:
    """Paired signed-rank tests for all pairs of algorithms (shared by METHODS 4 and 5).

    Matrices are ``(m, m)``: ``pvalues``/``pvalues_corrected``/``statistic``/
    ``n_common``/``n_nonzero`` symmetric, ``effect_size`` antisymmetric (positive when
    the row algorithm tends to score higher). Entries of pairs that are not applicable
    (and the diagonal of the p-values) are ``NaN`` in the arrays, ``None`` in
    ``to_dict()``, and ``not_applicable[a, b]`` gives the reason. ``method`` and
    ``not_applicable`` are ``(m, m)`` object arrays of ``str`` or ``None``.
    """

    alpha: float
    correction: str
    pvalues: np.ndarray
    pvalues_corrected: np.ndarray
    significant: np.ndarray
    statistic: np.ndarray
    effect_size: np.ndarray
    n_common: np.ndarray
    n_nonzero: np.ndarray
    method: np.ndarray
    not_applicable: np.ndarray

    def not_applicable_pairs(self) -> list[tuple[int, int, str]]:
        """``(a, b, reason)`` for every pair ``a < b`` that could not be tested."""
        first, second = np.nonzero(np.triu(self.not_applicable != None, 1))  # noqa: E711
        return [
            (a, b, str(self.not_applicable[a, b]))
            for a, b in zip(first.tolist(), second.tolist(), strict=True)
        ]

    def to_dict(self) -> dict:
        return {
            "alpha": self.alpha,
            "correction": self.correction,
            "pvalues": _matrix_to_list(self.pvalues),
            "pvalues_corrected": _matrix_to_list(self.pvalues_corrected),
            "significant": self.significant.tolist(),
            "statistic": _matrix_to_list(self.statistic),
            "effect_size": _matrix_to_list(self.effect_size),
            "n_common": self.n_common.astype(int).tolist(),
            "n_nonzero": self.n_nonzero.astype(int).tolist(),
            "method": self.method.tolist(),
            "not_applicable": self.not_applicable.tolist(),
        }


WilcoxonPairwiseResult = PairwiseSignedRank


def _paired_signed_rank(
    samples: np.ndarray, *, correction: str, alpha: float, unit: str
) -> PairwiseSignedRank:
    """All-pairs signed-rank tests on the columns of ``samples`` (rows = blocks)."""
    alpha = _check_alpha(alpha)
    correction = _check_correction(correction)
    samples = np.asarray(samples, dtype=float)
    if samples.ndim != 2:
        raise ValueError(f"scores must be a 2-D array ({unit}s x algorithms), got {samples.ndim}-D")
    if np.isinf(samples).any():
        raise ValueError("scores must be finite or NaN (missing)")
    length, m = samples.shape
    if length and m and np.nanmax(np.abs(samples), initial=0.0) > np.finfo(float).max / 2:
        # Halved (exactly, bar the last bit of subnormals), no difference overflows; the
        # signed-rank test does not depend on the scale.
        samples = samples / 2
    first, second = np.triu_indices(m, 1)
    n_pairs = first.size
    # Pairs in batches whose (pairs x blocks) arrays hold _PAIR_CHUNK_ELEMENTS, written
    # into per-pair arrays: memory is O(chunk + m^2), never O(m^2 x blocks).
    chunk = max(1, _PAIR_CHUNK_ELEMENTS // max(length, 1))
    columns = np.ascontiguousarray(samples.T)
    exponents = decimal_exponents(columns)
    per_pair = {
        name: np.zeros(n_pairs, dtype=dtype)
        for name, dtype in (
            ("pvalue", float),
            ("n_observations", np.int64),
            ("n_nonzero", np.int64),
            ("r_plus", float),
            ("r_minus", float),
            ("statistic", float),
            ("method", np.int8),
        )
    }
    complete = not np.isnan(samples).any()
    # Pairs (a, b) come in upper-triangle order: those of one ``a`` are consecutive,
    # with ``b = a + 1 ... m - 1``, so a batch's differences are a few broadcast
    # subtractions into one reused buffer, rounded by the fold-mean rule
    # (table.paired_differences: differences equal in decimal are equal, hence ties).
    first_pair_of = np.concatenate([[0], np.cumsum(np.arange(m - 1, 0, -1))])

    def test_batches(starts: Iterable[int]) -> None:
        buffer = np.empty((min(chunk, n_pairs), length))
        for start in starts:
            stop = min(start + chunk, n_pairs)
            differences = buffer[: stop - start]
            pair = start
            while pair < stop:
                a = int(first[pair])
                end = min(stop, int(first_pair_of[a + 1]))
                b = int(second[pair])
                paired_differences(
                    columns[a],
                    columns[b : b + end - pair],
                    out=differences[pair - start : end - start],
                    exponents=(exponents[a], exponents[b : b + end - pair]),
                )
                pair = end
            batch = _signed_rank_batch(differences, complete=complete, overwrite=True)
            for name, values in per_pair.items():
                values[start:stop] = getattr(batch, name)

    # Each batch writes its own slice of the per-pair arrays.
    run_interleaved(test_batches, range(0, n_pairs, chunk))
    pvalue, n_common, n_nonzero = (
        per_pair["pvalue"],
        per_pair["n_observations"],
        per_pair["n_nonzero"],
    )
    r_plus, r_minus, statistic = per_pair["r_plus"], per_pair["r_minus"], per_pair["statistic"]
    methods = per_pair["method"]
    # Identical on every block: no evidence of a difference, p = 1 (METHODS 4), with a
    # note. The pair stays in the correction's family: the family is every pair tested,
    # fixed before the data are seen, so leaving a pair out after seeing it would shrink
    # the others' corrected p-values and weaken the family-wise guarantee.
    identical = (n_common > 0) & (n_nonzero == 0)
    pvalue = np.where(identical, 1.0, pvalue)
    corrected = adjust_pvalues(pvalue, correction=correction)
    statistic = np.where(identical, 0.0, statistic)
    with np.errstate(invalid="ignore", divide="ignore"):
        effect = np.where(n_nonzero > 0, (r_plus - r_minus) / (r_plus + r_minus), np.nan)
    effect = np.where(identical, 0.0, effect)

    def symmetric(values: np.ndarray, diagonal: float, sign: float = 1.0) -> np.ndarray:
        matrix = np.full((m, m), diagonal, dtype=float)
        matrix[first, second] = values
        matrix[second, first] = sign * values
        return matrix

    reasons = np.full((m, m), None, dtype=object)
    no_common = n_common == 0
    all_zero = ~no_common & (n_nonzero == 0)
    reasons[first[no_common], second[no_common]] = f"no {unit} with results for both algorithms"
    for count in np.unique(n_common[all_zero]).tolist():
        pairs = all_zero & (n_common == count)
        reasons[first[pairs], second[pairs]] = (
            f"identical on every {unit}: all {int(count)} paired differences are zero, p = 1"
        )
    reasons[second, first] = reasons[first, second]
    # One shared string object per regime, not one per pair.
    codes = np.full((m, m), 3, dtype=np.int8)
    codes[first, second] = np.where(no_common | all_zero, 3, methods)
    codes[second, first] = codes[first, second]
    method_matrix = _METHODS[codes]
    corrected_matrix = symmetric(corrected, np.nan)
    significant = np.nan_to_num(corrected_matrix, nan=1.0) < alpha
    return PairwiseSignedRank(
        alpha=alpha,
        correction=correction,
        pvalues=symmetric(pvalue, np.nan),
        pvalues_corrected=corrected_matrix,
        significant=significant,
        statistic=symmetric(np.where(identical | (n_nonzero > 0), statistic, np.nan), np.nan),
        effect_size=symmetric(effect, 0.0, sign=-1.0),
        n_common=symmetric(n_common.astype(float), float(length)),
        n_nonzero=symmetric(n_nonzero.astype(float), 0.0),
        method=method_matrix,
        not_applicable=reasons,
    )


def wilcoxon_pairwise(
    scores: np.ndarray, *, correction: Correction = "holm", alpha: float = 0.05
) -> PairwiseSignedRank:
    """Wilcoxon signed-rank test for every pair of algorithms over datasets.

    Parameters
    ----------
    scores : array_like, shape (n, m)
        Dataset-level scores, larger is better, ``NaN`` for a missing result; a pair
        uses the datasets where both algorithms have a value.
    correction : {"holm", "bonferroni"}, default "holm"
        Family-wise adjustment over the applicable pairs.
    alpha : float, default 0.05
        Level for the ``significant`` matrix (on corrected p-values).

    Returns
    -------
    PairwiseSignedRank

    Notes
    -----
    Identical to calling ``scipy.stats.wilcoxon(x, y)`` with its defaults on each
    pair (two-sided, zeros dropped, ``method="auto"``), vectorised over pairs: see
    ``_signed_rank_batch`` for the three regimes. With few non-zero differences the
    smallest attainable p-value is large (``2 / 2**k`` for ``k`` differences without
    ties), so a small benchmark may be unable to show any difference. Paired
    differences are rounded by the fold-mean rule first
    (:func:`estimation.core.table.paired_differences`: at the 15th significant digit of
    the larger score), so differences that are equal in decimal are ties, and zeros,
    whatever the float noise of the subtraction (0.70 - 0.68 and 0.52 - 0.50 tie; scipy
    on the raw floats would rank them 1 and 2). This is scipy's test on the exact
    decimal differences; on such input it can differ from scipy on the floats, also in
    the regime (ties send ``method="auto"`` from exact to the normal approximation). A
    pair identical
    on every dataset has p = 1 and a note, and counts in the Holm or Bonferroni family
    like every other pair with a common dataset (pairs without one have no test and are
    left out). The effect size
    is the matched-pairs rank-biserial correlation ``(R+ - R-) / (R+ + R-)`` (Kerby
    2014), in ``[-1, 1]``, positive when the row algorithm scores higher.

    References
    ----------
    .. [1] F. Wilcoxon, "Individual comparisons by ranking methods", Biometrics
       Bulletin 1(6), 80-83, 1945.
    .. [2] S. Holm, "A simple sequentially rejective multiple test procedure",
       Scand. J. Statist. 6, 65-70, 1979.
    .. [3] D. S. Kerby, "The simple difference formula: an approach to teaching
       nonparametric correlation", Comprehensive Psychology 3, 2014.
    """
    return _paired_signed_rank(scores, correction=correction, alpha=alpha, unit="dataset")


# --------------------------------------------------------------------------------------
# groups of algorithms that cannot be told apart


def _check_groups_input(
    significant: np.ndarray, mean_ranks: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    significant = np.asarray(significant, dtype=bool)
    mean_ranks = np.asarray(mean_ranks, dtype=float)
    m = mean_ranks.size
    if mean_ranks.ndim != 1 or significant.shape != (m, m):
        raise ValueError(
            f"significant must be (m, m) and mean_ranks (m,), got {significant.shape} and {mean_ranks.shape}"
        )
    if not (significant == significant.T).all():
        raise ValueError("significant must be symmetric")
    return significant | significant.T, mean_ranks


def _in_rank_order(
    significant: np.ndarray, mean_ranks: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The order of the algorithms by mean rank (best first) and the matrix in that order."""
    order = np.argsort(mean_ranks, kind="stable")
    return order, significant[np.ix_(order, order)]


def _run_ends(inside: np.ndarray) -> np.ndarray:
    """``end[s]``: the last position of the run that starts at ``s`` (see :func:`cd_groups`).

    A run from ``s`` can take position ``c`` while no member so far differs from it,
    that is while ``last_conflict[c] < s``, where ``last_conflict[c]`` is the latest
    earlier position that differs from ``c`` (-1 if none). The end of the run is one
    before the first ``c > s`` with ``last_conflict[c] >= s``.
    """
    m = inside.shape[0]
    earlier = np.tril(inside, -1)  # earlier[c, i]: i < c and they differ
    has_conflict = earlier.any(axis=1)
    last_conflict = np.where(has_conflict, m - 1 - np.argmax(earlier[:, ::-1], axis=1), -1)
    # first_blocked[s] = min{c > s : last_conflict[c] >= s}; conflicts are monotone in s,
    # so a running pointer finds every end in O(m) steps after the O(m^2) scan above.
    ends = np.empty(m, dtype=np.int64)
    end = 0
    for start in range(m):
        end = max(end, start)
        while end + 1 < m and last_conflict[end + 1] < start:
            end += 1
        ends[start] = end
    return ends


def cd_groups(significant: np.ndarray, mean_ranks: np.ndarray) -> list[tuple[int, ...]]:
    """Bars of a critical-difference diagram.

    Returns the maximal runs of algorithms, contiguous in mean-rank order (best first),
    with no significant difference between any two members; each run lists algorithm
    indices best first. Runs of one algorithm are included (an algorithm different
    from both neighbours); a diagram usually draws only runs of two or more.

    Notes
    -----
    For each starting position the run is extended while the new member differs from
    none of the members so far; runs contained in an earlier one are dropped. When the
    significance pattern is not monotone in the mean ranks (possible with Wilcoxon
    tests) a set of mutually indistinguishable algorithms that is not contiguous does
    not form a bar; :func:`compact_letter_display` captures such sets. The runs come
    from one pass over the matrix (``O(m^2)`` element operations, ``O(m)`` Python
    steps).
    """
    significant, mean_ranks = _check_groups_input(significant, mean_ranks)
    order, inside = _in_rank_order(significant, mean_ranks)
    ends = _run_ends(inside)
    runs: list[tuple[int, ...]] = []
    furthest = -1
    for start, end in enumerate(ends.tolist()):
        if end > furthest:
            runs.append(tuple(order[start : end + 1].tolist()))
            furthest = end
    return runs


def _monotone(inside: np.ndarray) -> bool:
    """Whether, in mean-rank order, a significant pair stays significant when either
    member moves further out (as for Nemenyi, whose p-value falls with the distance).
    Then the maximal cliques of "not significantly different" are exactly the CD bars.
    """
    upper = np.triu(inside, 1)
    right = (upper[:, :-1] <= upper[:, 1:]).all()  # moving the later member later
    up = (upper[1:, :] <= upper[:-1, :]).all()  # moving the earlier member earlier
    return bool(right and up)


def _maximal_cliques(
    adjacent: np.ndarray, *, max_groups: int, max_per_vertex: int | None = None
) -> tuple[list[frozenset[int]], str | None]:
    """Bron-Kerbosch with pivoting on the 'not significantly different' graph.

    Returns the maximal cliques, or the cliques found so far and the reason the
    enumeration stopped: more than ``max_groups`` cliques, or a vertex in more than
    ``max_per_vertex`` of them. The pivot's count of candidate neighbours uses the
    neighbourhoods as bit sets (one AND and one popcount); the enumeration order, and
    so the order of the letters, is the same as with plain sets.
    """
    m = len(adjacent)
    neighbours = [frozenset(np.flatnonzero(row).tolist()) for row in adjacent]
    bits = [
        int.from_bytes(np.packbits(row, bitorder="little").tobytes(), "little") for row in adjacent
    ]
    per_vertex = [0] * m
    cliques: list[frozenset[int]] = []
    empty: frozenset[int] = frozenset()
    stack = [(empty, frozenset(range(m)), empty, (1 << m) - 1)]
    while stack:
        clique, candidates, excluded, candidate_bits = stack.pop()
        if not candidates and not excluded:
            cliques.append(clique)
            if len(cliques) > max_groups:
                return cliques, f"the significance pattern has more than {max_groups} groups"
            if max_per_vertex is not None:
                for vertex in clique:
                    per_vertex[vertex] += 1
                    if per_vertex[vertex] > max_per_vertex:
                        return cliques, (
                            f"an algorithm belongs to more than {max_per_vertex} groups"
                        )
            continue
        pivot = max(candidates | excluded, key=lambda v: (bits[v] & candidate_bits).bit_count())
        for vertex in sorted(candidates - neighbours[pivot]):
            stack.append(
                (
                    clique | {vertex},
                    candidates & neighbours[vertex],
                    excluded & neighbours[vertex],
                    candidate_bits & bits[vertex],
                )
            )
            candidates = candidates - {vertex}
            candidate_bits &= ~(1 << vertex)
            excluded = excluded | {vertex}
    return cliques, None


def _letter(index: int) -> str:
    """'a'..'z', 'A'..'Z', then '[53]', '[54]', ... so that concatenations stay unambiguous."""
    if index < 26:
        return chr(ord("a") + index)
    if index < 52:
        return chr(ord("A") + index - 26)
    return f"[{index + 1}]"


def _letters(
    significant: np.ndarray, mean_ranks: np.ndarray, *, max_per_vertex: int | None
) -> tuple[tuple[str, ...], str | None]:
    """Compact letters on checked input, or ``((), reason)`` when they are not shown."""
    m = mean_ranks.size
    if m == 0:
        return (), None
    order, inside = _in_rank_order(significant, mean_ranks)
    position = np.empty(m, dtype=int)
    position[order] = np.arange(m)
    if _monotone(inside):
        # The maximal cliques are the CD bars, already sorted by (first, last) position.
        ends = _run_ends(inside)
        starts = np.flatnonzero(ends > np.maximum.accumulate(np.r_[-1, ends[:-1]]))
        if max_per_vertex is not None:
            covering = np.zeros(m + 1, dtype=np.int64)
            np.add.at(covering, starts, 1)
            np.add.at(covering, ends[starts] + 1, -1)
            if np.cumsum(covering)[:m].max() > max_per_vertex:
                return (), f"an algorithm belongs to more than {max_per_vertex} groups"
        if starts.size > _MAX_LETTER_GROUPS:
            return (), f"the significance pattern has more than {_MAX_LETTER_GROUPS} groups"
        cliques = [frozenset(order[s : ends[s] + 1].tolist()) for s in starts.tolist()]
    else:
        adjacent = ~significant
        np.fill_diagonal(adjacent, False)
        cliques, reason = _maximal_cliques(
            adjacent, max_groups=_MAX_LETTER_GROUPS, max_per_vertex=max_per_vertex
        )
        if reason is not None:
            return (), reason
        cliques.sort(key=lambda c: (min(position[v] for v in c), max(position[v] for v in c)))
    labels = [""] * m
    for index, clique in enumerate(cliques):
        for vertex in sorted(clique):
            labels[vertex] += _letter(index)
    return tuple(labels), None


def compact_letter_display(significant: np.ndarray, mean_ranks: np.ndarray) -> tuple[str, ...]:
    """Letters per algorithm; two algorithms share a letter iff not significantly different.

    Notes
    -----
    Each letter is one maximal clique of the graph joining algorithms that are not
    significantly different (Bron-Kerbosch with pivoting), so sharing a letter is
    equivalent to "no significant difference" (Piepho 2004 reaches the same letters by
    insert-and-absorb). Letters are assigned in the order of each group's best mean
    rank (ties by its worst), so "a" marks the group of the best algorithm; after
    "z" come "A".."Z", then bracketed numbers such as "[53]". When the pattern is
    monotone in the mean ranks (Nemenyi) the cliques are the CD bars and need no
    search. A pattern with more than 10 000 groups is rejected as unreadable
    (``ValueError``); :func:`indistinguishable_groups` reports it, and labels longer
    than the alphabet, as not applicable instead.

    References
    ----------
    .. [1] H.-P. Piepho, "An algorithm for a letter-based representation of
       all-pairwise comparisons", J. Comput. Graph. Stat. 13(2), 456-466, 2004.
    """
    significant, mean_ranks = _check_groups_input(significant, mean_ranks)
    letters, reason = _letters(significant, mean_ranks, max_per_vertex=None)
    if reason is not None:
        raise ValueError(f"{reason}; a compact letter display would not be readable")
    return letters


MAX_CD_ALGORITHMS = 200
"""A critical-difference diagram is drawn for at most this many algorithms."""

MAX_LETTERS_PER_ALGORITHM = 26
"""Compact letters are shown when no algorithm needs more letters than the alphabet has."""


@dataclass(frozen=True)
class IndistinguishableGroups:
    """CD-diagram bars and compact letters for one significance matrix.

    Either may be ``None`` with a reason in plain words in ``bars_not_applicable`` /
    ``letters_not_applicable``: a view that would not be readable at this size.
    """

    bars: tuple[tuple[int, ...], ...] | None
    letters: tuple[str, ...] | None
    bars_not_applicable: str | None = None
    letters_not_applicable: str | None = None

    def to_dict(self) -> dict:
        return {
            "bars": None if self.bars is None else [list(bar) for bar in self.bars],
            "letters": None if self.letters is None else list(self.letters),
            "bars_not_applicable": self.bars_not_applicable,
            "letters_not_applicable": self.letters_not_applicable,
        }


def indistinguishable_groups(
    significant: np.ndarray, mean_ranks: np.ndarray
) -> IndistinguishableGroups:
    """Both groupings of :func:`cd_groups` and :func:`compact_letter_display`, each
    reported as not applicable where it would not be readable.

    Bars are drawn for at most :data:`MAX_CD_ALGORITHMS` algorithms; letters are shown
    when no algorithm belongs to more than :data:`MAX_LETTERS_PER_ALGORITHM` groups and
    there are at most 10 000 groups in all. Never raises for a valid matrix.
    """
    significant, mean_ranks = _check_groups_input(significant, mean_ranks)
    m = mean_ranks.size
    bars: tuple[tuple[int, ...], ...] | None = None
    bars_reason = None
    if m > MAX_CD_ALGORITHMS:
        bars_reason = (
            f"a critical-difference diagram of {m} algorithms would not be readable "
            f"(it is drawn for at most {MAX_CD_ALGORITHMS})"
        )
    else:
        bars = tuple(cd_groups(significant, mean_ranks))
    letters, reason = _letters(significant, mean_ranks, max_per_vertex=MAX_LETTERS_PER_ALGORITHM)
    letters_reason = None
    if reason is not None:
        letters_reason = f"{reason}: a compact letter display would not be readable"
    return IndistinguishableGroups(
        bars=bars,
        letters=None if letters_reason else letters,
        bars_not_applicable=bars_reason,
        letters_not_applicable=letters_reason,
    )
