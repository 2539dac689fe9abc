"""Pairwise sections that do not cost m² memory (issue 25): one rule for which pairs a
snapshot stores, and any other pair computed exactly from O(m·n) and O(m) data.

Up to :data:`MAX_PAIRWISE_ALGORITHMS` algorithms the wins, Nemenyi and Wilcoxon sections
hold every pair. Above it they hold the pairs of the first ``MAX_PAIRWISE_ALGORITHMS`` by
mean rank (then name), and :class:`~estimation.core.contract.PairwiseScope` says so; any
other pair comes from :func:`pair_tests`, from the pair's two columns of ranks and scores
and what the family-wise corrections need:

- **Nemenyi** needs only the two mean ranks, ``m`` and ``n``: the same studentized-range
  spline as the engine, so the same value.
- **Wilcoxon, Bonferroni** needs the family's size: ``min(1, N p)``.
- **Wilcoxon, Holm** needs the sorted raw p-values of the whole family, but only where
  the corrected value is below 1: the corrected p-value is a step function of the raw
  one (the running maximum of ``(N - k + 1) p_(k)``), stored as its steps
  (:func:`holm_steps`) up to the raw p-value from which it is 1. With at most
  ``_PERMUTATION_MAX`` datasets every raw p-value is at least ``2^-n``, so when
  ``N 2^-n >= 1`` every corrected value is 1 and no pair needs testing at all
  (:func:`holm_all_one`): the case of thousands of models on a handful of tasks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from estimation.core.aggregates import pairwise_win_matrix
from estimation.core.rankings import rank_scores
from estimation.core.significance import wilcoxon_pairwise
from estimation.core.significance.signed_rank import _PERMUTATION_MAX
from estimation.core.studentized_range import studentized_range_sf

__all__ = [
    "MAX_HOLM_STEPS",
    "MAX_PAIRWISE_ALGORITHMS",
    "FamilyCorrection",
    "PairTests",
    "corrected_pvalue",
    "holm_all_one",
    "holm_steps",
    "nemenyi_pair_pvalues",
    "nemenyi_statistic",
    "pair_tests",
    "pairwise_top",
    "win_shares",
]

MAX_PAIRWISE_ALGORITHMS = 632
"""Algorithms whose every pair is stored: 632 x 631 / 2 = 199,396 pairs, the 200,000 a
stored matrix had before (at m = 5000 the whole Wilcoxon section was 12.5 million pairs
x 3 matrices, about 600 MB of JSON)."""
MAX_HOLM_STEPS = 200_000
"""Steps of the Holm step function stored; beyond, pairs outside the stored sections have
no corrected p-value on demand (the section says so)."""
# Relative slack when a pair's raw p-value is looked up among the steps: a value
# recomputed for one pair may differ from the batch's in the last bits.
_LOOKUP_RTOL = 1e-12


def pairwise_top(names: Sequence[str], ranks: np.ndarray) -> np.ndarray | None:
    """Indices (ascending) of the algorithms the pairwise sections cover when not all:
    the first :data:`MAX_PAIRWISE_ALGORITHMS` by mean rank, then name; None when every
    pair is stored."""
    m = len(names)
    if m <= MAX_PAIRWISE_ALGORITHMS:
        return None
    order = np.lexsort((np.asarray(names, dtype=str), np.asarray(ranks).mean(axis=0)))
    return np.sort(order[:MAX_PAIRWISE_ALGORITHMS])


def win_shares(ranks: np.ndarray) -> np.ndarray:
    """:func:`aggregates.pairwise_win_matrix` of some columns of a board's ranks (ranked
    again among themselves: the same order and ties, so the same shares)."""
    return pairwise_win_matrix(rank_scores(-np.asarray(ranks, dtype=float)))


def nemenyi_pair_pvalues(
    first: np.ndarray | float, second: np.ndarray | float, *, m: int, n: int
) -> np.ndarray:
    """Nemenyi p-values of pairs with mean ranks ``first`` and ``second`` (broadcast) on a
    board of ``m`` algorithms and ``n`` datasets: :func:`significance.nemenyi`'s formula
    and spline, so its values."""
    q = nemenyi_statistic(first, second, m=m, n=n)
    # The studentized range integral is slow; evaluate it once per distinct distance.
    distinct, inverse = np.unique(q.ravel(), return_inverse=True)
    return np.clip(studentized_range_sf(distinct, m, np.inf), 0, 1)[inverse].reshape(q.shape)


def nemenyi_statistic(
    first: np.ndarray | float, second: np.ndarray | float, *, m: int, n: int
) -> np.ndarray:
    """``sqrt(2) |R_a - R_b| / sqrt(m (m + 1) / (6 n))``, broadcast."""
    scale = np.sqrt(m * (m + 1) / (6 * n))
    return np.sqrt(2) * np.abs(np.asarray(first, float) - np.asarray(second, float)) / scale


def holm_all_one(n_datasets: int, family: int, complete: bool) -> bool:
    """Whether every Holm (and Bonferroni) corrected p-value is 1 without testing a pair:
    with complete scores on at most ``_PERMUTATION_MAX`` datasets every test is exact or
    a full permutation test, so every raw p-value is at least ``2^-n``, and the first
    step of Holm's procedure, ``N p_(1)``, is already at least 1."""
    return complete and n_datasets <= _PERMUTATION_MAX and family * 2.0**-n_datasets >= 1.0


@dataclass(frozen=True)
class FamilyCorrection:
    """What correcting one pair's raw p-value for the whole family needs (O(steps))."""

    correction: str
    family: int
    holm_raw: tuple[float, ...] = ()
    holm_corrected: tuple[float, ...] = ()
    holm_one_from: float | None = None


def holm_steps(raw: np.ndarray) -> tuple[tuple[float, ...], tuple[float, ...], float | None]:
    """Holm's corrected p-value as a step function of the raw one, from every raw p-value
    of the family (NaN: not in it): the raw values where it steps up, the corrected value
    from each, and the raw value from which it is 1 (None: never). Empty steps (and
    None) when there are more than :data:`MAX_HOLM_STEPS`."""
    values = np.sort(np.asarray(raw, dtype=float)[~np.isnan(raw)])
    k = values.size
    stepped = np.maximum.accumulate((k - np.arange(k)) * values)
    reaching = np.flatnonzero(stepped >= 1.0)
    end = int(reaching[0]) if reaching.size else k
    one_from = float(values[end]) if reaching.size else None
    below = stepped[:end]
    rises = np.flatnonzero(np.diff(below, prepend=-np.inf) > 0)
    if rises.size > MAX_HOLM_STEPS:
        return (), (), None
    return tuple(values[rises].tolist()), tuple(below[rises].tolist()), one_from


def corrected_pvalue(raw: float, family: FamilyCorrection) -> float | None:
    """``raw`` corrected for the whole family (None: the steps were not stored)."""
    if family.correction == "bonferroni":
        return min(1.0, family.family * raw)
    if family.holm_one_from is not None and raw >= family.holm_one_from * (1 - _LOOKUP_RTOL):
        return 1.0
    steps = np.asarray(family.holm_raw, dtype=float)
    at = int(np.searchsorted(steps, raw * (1 + _LOOKUP_RTOL), side="right")) - 1
    if at < 0:
        return None
    return min(1.0, family.holm_corrected[at])


@dataclass(frozen=True)
class PairTests:
    """One pair's wins share and tests, as the stored sections would have held them."""

    share: float | None  # of datasets where a ranks above b, ties half (wins section)
    nemenyi: float | None  # None: not applicable (given as such)
    wilcoxon: float | None  # corrected for the whole family; None: not available
    wilcoxon_raw: float | None
    rank_biserial: float | None  # positive: a better
    wilcoxon_note: str | None  # the test's note for the pair (as not_applicable_pairs)


def pair_tests(
    ranks: np.ndarray,
    scores: np.ndarray | None,
    *,
    mean_ranks: tuple[float, float] | None,
    m: int,
    family: FamilyCorrection | None,
    alpha: float,
) -> PairTests:
    """The pair ``(a, b)`` from its columns: ``ranks`` (n, 2) of the analysis, oriented
    ``scores`` (n, 2, larger is better; None for rankings), the two board mean ranks
    (None: Nemenyi not applicable), the board's size ``m`` and the Wilcoxon family (None:
    not applicable)."""
    ranks = np.asarray(ranks, dtype=float)
    share = float(win_shares(ranks)[0, 1])
    nemenyi = None
    if mean_ranks is not None:
        nemenyi = float(nemenyi_pair_pvalues(mean_ranks[0], mean_ranks[1], m=m, n=len(ranks)))
    raw = effect = corrected = None
    note = None
    if family is not None and scores is not None:
        test = wilcoxon_pairwise(np.asarray(scores, float), correction="bonferroni", alpha=alpha)
        note = test.not_applicable[0, 1]
        if not np.isnan(test.pvalues[0, 1]):
            raw = float(test.pvalues[0, 1])
            effect = float(test.effect_size[0, 1])
            corrected = corrected_pvalue(raw, family)
    return PairTests(
        share=None if np.isnan(share) else share,
        nemenyi=nemenyi,
        wilcoxon=corrected,
        wilcoxon_raw=raw,
        rank_biserial=effect,
        wilcoxon_note=note,
    )
