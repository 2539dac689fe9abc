"""The Friedman test with the Iman-Davenport F and the exact p-value of perfect agreement,
and the Nemenyi post-hoc test (METHODS 4)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from estimation.core.rankings import _ranks_iv
from estimation.core.significance.checks import (
    _check_alpha,
    _matrix_to_list,
    _rank_test_reason,
    _tie_term,
)
from estimation.core.studentized_range import studentized_range_isf, studentized_range_sf

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
    ranks = _ranks_iv(ranks)
    n, m = ranks.shape
    reason = _rank_test_reason(ranks, known_positions=known_positions)
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
    as in scikit-posthocs, from :mod:`estimation.core.studentized_range` (within 1e-6
    relative of scipy where ``sf >= 1e-7``; below, scipy's ``1 - cdf`` is rounding noise
    and ours keeps its relative accuracy), and ``q_alpha`` from the same function. Ties
    are not corrected for.

    References
    ----------
    .. [1] P. Nemenyi, "Distribution-free multiple comparisons", PhD thesis,
       Princeton University, 1963.
    .. [2] J. Demšar, JMLR 7, 1-30, 2006.
    """
    alpha = _check_alpha(alpha)
    ranks = _ranks_iv(ranks)
    n, m = ranks.shape
    reason = _rank_test_reason(ranks, known_positions=known_positions)
    if reason is not None:
        return NemenyiResult(n, m, alpha, None, None, None, None, None, reason)
    mean_ranks = ranks.mean(axis=0)
    scale = math.sqrt(m * (m + 1) / (6 * n))
    q_alpha = studentized_range_isf(alpha, m, np.inf)
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
