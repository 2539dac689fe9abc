"""Comparison of every algorithm with a control (Demšar 2006, section 3.2.2; METHODS 4).

After a Friedman test, comparing ``m - 1`` algorithms with one baseline (the control)
needs fewer comparisons than all pairs, so it has more power than Nemenyi. For mean
ranks ``R`` over ``n`` datasets the statistic of algorithm ``a`` is

    z_a = (R_c - R_a) / sqrt(m (m + 1) / (6 n))

The sign is fixed: ``z > 0``: the algorithm has a better (lower) mean rank than the
control; ``z < 0``: a worse (higher) one. METHODS.md section 4 writes the numerator the
other way round, ``(R_a - R_c)``; the p-values are two-sided, so only the sign of ``z``
differs, and this one is the convention of the code, the snapshot contract
(``ControlComparison.z``), the pages and the methods page. Two-sided normal p-values are
corrected for the ``m - 1`` comparisons by Holm's step-down procedure or by
Bonferroni-Dunn. The Bonferroni-Dunn critical difference is
``q_alpha * sqrt(m (m + 1) / (6 n))`` with ``q_alpha`` the normal quantile at
``1 - alpha / (2 (m - 1))`` (m = 4, alpha = 0.05: 2.394, Demšar's Table 5(b)).

Everything here needs only the mean ranks and ``n``, so a page can compare with another
control than the benchmark's default without a recompute.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from scipy.stats import norm

from estimation.core.contract import ControlComparison, NotApplicable, floats
from estimation.core.significance import adjust_pvalues

__all__ = ["ControlResult", "compare_with_control", "control_comparison", "control_index"]


@dataclass(frozen=True)
class ControlResult:
    """Every algorithm against the control (the control's own entries are NaN/False)."""

    control: int
    n_datasets: int
    alpha: float
    se: float
    q_alpha: float
    critical_difference: float
    z: np.ndarray
    pvalue: np.ndarray
    pvalue_holm: np.ndarray
    pvalue_bonferroni_dunn: np.ndarray
    significant_holm: np.ndarray
    significant_bonferroni_dunn: np.ndarray


def compare_with_control(
    mean_ranks: Any, n_datasets: int, control: int, *, alpha: float = 0.05
) -> ControlResult:
    """Holm and Bonferroni-Dunn comparisons of every algorithm with ``control``.

    Parameters
    ----------
    mean_ranks : array_like, shape (m,)
        Mean rank of each algorithm over the datasets (1 = best), from complete rankings.
    n_datasets : int
        Datasets behind the mean ranks (at least 1).
    control : int
        Index of the control algorithm.
    alpha : float, default 0.05
        Family-wise significance level.

    Returns
    -------
    ControlResult

    Notes
    -----
    ``significant_bonferroni_dunn`` is ``|R_a - R_c| > CD``, equivalently the
    Bonferroni-adjusted p-value below ``alpha``. Holm rejects the hypotheses in order of
    increasing p-value while ``p_(i) < alpha / (m - i)``; the adjusted p-values are
    those of :func:`estimation.core.significance.adjust_pvalues`.

    References
    ----------
    .. [1] J. Demšar, "Statistical comparisons of classifiers over multiple data sets",
       JMLR 7, 1-30, 2006, section 3.2.2.

    Examples
    --------
    >>> result = compare_with_control([3.143, 2.000, 2.893, 1.964], 14, 0)
    >>> round(result.critical_difference, 3)
    1.168
    """
    ranks = np.asarray(mean_ranks, dtype=float)
    if ranks.ndim != 1 or ranks.size < 2:
        raise ValueError(f"mean_ranks must be a 1-D array of at least 2 values, got {ranks.shape}")
    if not np.isfinite(ranks).all():
        raise ValueError("mean_ranks must be finite")
    m = ranks.size
    if isinstance(n_datasets, bool) or int(n_datasets) != n_datasets or n_datasets < 1:
        raise ValueError(f"n_datasets must be a positive integer, got {n_datasets!r}")
    if isinstance(control, bool) or int(control) != control or not 0 <= control < m:
        raise ValueError(f"control must be an index in 0..{m - 1}, got {control!r}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    control = int(control)
    se = float(np.sqrt(m * (m + 1) / (6.0 * int(n_datasets))))
    z = (ranks[control] - ranks) / se
    z[control] = np.nan
    pvalue = 2.0 * norm.sf(np.abs(z))
    q_alpha = float(norm.isf(alpha / (2.0 * (m - 1))))
    holm = adjust_pvalues(pvalue, correction="holm")
    bonferroni = adjust_pvalues(pvalue, correction="bonferroni")
    others = np.arange(m) != control
    return ControlResult(
        control=control,
        n_datasets=int(n_datasets),
        alpha=float(alpha),
        se=se,
        q_alpha=q_alpha,
        critical_difference=q_alpha * se,
        z=z,
        pvalue=pvalue,
        pvalue_holm=holm,
        pvalue_bonferroni_dunn=bonferroni,
        significant_holm=others & (holm < alpha),
        significant_bonferroni_dunn=others & (bonferroni < alpha),
    )


def control_index(
    algorithms: Sequence[str], mean_ranks: Sequence[float], wanted: str | None
) -> tuple[int, bool]:
    """The control's index: ``wanted`` when it is ranked, else the best mean rank.

    Returns the index and whether ``wanted`` was used. A ``wanted`` name that is not
    among ``algorithms`` (left out for coverage, or mistyped) falls back to the best
    mean rank; the caller says so.
    """
    if wanted is not None and wanted in algorithms:
        return list(algorithms).index(wanted), True
    ranks = np.asarray(mean_ranks, dtype=float)
    return int(np.argmin(ranks)), False


def control_comparison(
    algorithms: Sequence[str],
    mean_ranks: Sequence[float | None] | NotApplicable,
    n_datasets: int,
    *,
    wanted: str | None,
    alpha: float,
    chosen_by_page: bool = False,
) -> ControlComparison | NotApplicable:
    """The contract's :class:`ControlComparison` for ``wanted`` (or the best mean rank).

    Used by the analysis (``wanted`` = the benchmark's setting) and by pages that pick
    another control from the board's mean ranks, without a recompute.
    """
    if isinstance(mean_ranks, NotApplicable):
        return NotApplicable(f"comparison with a control needs mean ranks: {mean_ranks.reason}")
    if len(algorithms) < 2:
        return NotApplicable("comparison with a control needs at least two algorithms")
    if n_datasets < 2:
        return NotApplicable("comparison with a control needs at least two datasets")
    if any(r is None for r in mean_ranks):
        return NotApplicable("comparison with a control needs every mean rank")
    ranks = [float(r) for r in mean_ranks if r is not None]
    index, used = control_index(algorithms, ranks, wanted)
    result = compare_with_control(ranks, n_datasets, index, alpha=alpha)
    chosen_by: Literal["setting", "best_mean_rank", "page"] = (
        ("page" if chosen_by_page else "setting") if used else "best_mean_rank"
    )
    return ControlComparison(
        control=algorithms[index],
        chosen_by=chosen_by,
        alpha=result.alpha,
        se=result.se,
        q_alpha=result.q_alpha,
        critical_difference=result.critical_difference,
        z=floats(result.z),
        pvalue=floats(result.pvalue),
        pvalue_holm=floats(result.pvalue_holm),
        pvalue_bonferroni_dunn=floats(result.pvalue_bonferroni_dunn),
        significant_holm=tuple(bool(v) for v in result.significant_holm),
        significant_bonferroni_dunn=tuple(bool(v) for v in result.significant_bonferroni_dunn),
    )
