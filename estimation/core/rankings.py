"""From scores to rankings: ties, missing results, coverage and positional counts.

Implements METHODS.md section 1. Every function takes and returns plain arrays (or the
frozen :class:`PreparedRankings`); nothing here knows about names beyond labelling.

Conventions
-----------
* Positions are 1-based; position 1 is the best algorithm on a dataset.
* Scores are *oriented*: larger is better. :meth:`ResultTable.oriented` does that.
* Ties share the mean of the positions they occupy ("average ranks").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from estimation.core.table import ResultTable

MissingPolicy = Literal["complete", "worst"]

__all__ = [
    "PreparedRankings",
    "cumulative_positions",
    "positional_counts",
    "prepare_rankings",
    "rank_scores",
    "tie_groups",
]


def _as_matrix(values: Any, name: str) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if array.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array (datasets x algorithms), got {array.ndim}-D")
    return array


def rank_scores(oriented_scores: Any, *, tie_tol: float = 0.0) -> np.ndarray:
    """Average ranks per dataset (row), 1 = best, from scores where larger is better.

    Parameters
    ----------
    oriented_scores : array_like, shape (n, m)
        One row per dataset. ``NaN`` marks a missing result.
    tie_tol : float, default 0
        Two scores tie when they differ by at most ``tie_tol`` (absolute). ``0`` means
        exact equality.

    Returns
    -------
    ndarray, shape (n, m)
        Average ranks: a tie group occupying positions ``s..s+t-1`` gets ``s + (t-1)/2``.

    Notes
    -----
    Tolerance ties are not transitive (0.0, 0.1, 0.2 with ``tie_tol=0.1``), so a rule is
    needed. Groups are formed greedily from the best: a group starts at the best
    remaining score and holds every remaining score within ``tie_tol`` of that start;
    the next group starts at the best score left. With ``tie_tol > 0`` a relative slack
    of ``1e-9 * tie_tol`` (plus a few ulps of the score) absorbs binary rounding, so that
    85.3 and 85.2 tie at ``tie_tol=0.1`` as the decimal numbers do.

    Missing results (``NaN``) rank last, tied with each other (the ``worst`` policy);
    callers that want the ``complete`` policy drop those datasets first
    (:func:`prepare_rankings`).
    """
    scores = _as_matrix(oriented_scores, "oriented_scores")
    tie_tol = float(tie_tol)
    if not np.isfinite(tie_tol) or tie_tol < 0:
        raise ValueError(f"tie_tol must be a finite number >= 0, got {tie_tol!r}")
    if np.isinf(scores).any():
        raise ValueError("oriented_scores must be finite or NaN (missing)")
    n, m = scores.shape
    if m == 0 or n == 0:
        return np.empty((n, m))
    # Descending order with NaN last (argsort puts NaN last; -NaN is NaN).
    order = np.argsort(-scores, axis=1, kind="stable")
    ordered = np.take_along_axis(scores, order, axis=1)
    new_group = _group_starts(ordered, np.isnan(ordered), tie_tol)
    ranks = np.empty((n, m))
    np.put_along_axis(ranks, order, _average_positions(new_group), axis=1)
    return ranks


def _group_starts(ordered: np.ndarray, missing: np.ndarray, tie_tol: float) -> np.ndarray:
    """Where each tie group begins along rows sorted best first (the rule of
    :func:`rank_scores`' Notes); ``missing`` marks the NaN, which tie with each other."""
    n, m = ordered.shape
    new_group = np.ones((n, m), dtype=bool)
    if tie_tol == 0.0:
        same = (ordered[:, 1:] == ordered[:, :-1]) | (missing[:, 1:] & missing[:, :-1])
        new_group[:, 1:] = ~same
        return new_group
    start = ordered[:, 0].copy()
    start_missing = missing[:, 0].copy()
    for j in range(1, m):
        value = ordered[:, j]
        slack = tie_tol * (1.0 + 1e-9) + 8.0 * np.finfo(float).eps * np.abs(
            np.where(start_missing, 0.0, start)
        )
        close = (
            ~start_missing & ~missing[:, j] & (start - np.where(missing[:, j], 0.0, value) <= slack)
        )
        same = close | (start_missing & missing[:, j])
        new_group[:, j] = ~same
        start = np.where(same, start, value)
        start_missing = np.where(same, start_missing, missing[:, j])
    return new_group


def _average_positions(new_group: np.ndarray) -> np.ndarray:
    """The average 1-based position of each sorted cell's tie group."""
    n, m = new_group.shape
    index = np.broadcast_to(np.arange(m), (n, m))
    group_start = np.maximum.accumulate(np.where(new_group, index, 0), axis=1)
    is_last = np.ones((n, m), dtype=bool)
    is_last[:, :-1] = new_group[:, 1:]
    group_end = np.minimum.accumulate(np.where(is_last, index, m)[:, ::-1], axis=1)[:, ::-1]
    return (group_start + group_end) / 2.0 + 1.0


def tie_groups(ranks: Any) -> tuple[np.ndarray, np.ndarray]:
    """First position ``s`` and size ``t`` of each entry's tie group, from average ranks.

    Members of one tie group share the same average rank ``s + (t-1)/2``; distinct
    groups occupy disjoint positions and so have distinct averages. Raises
    ``ValueError`` when ``ranks`` are not average ranks of a ranking of the row.
    """
    ranks = _as_matrix(ranks, "ranks")
    n, m = ranks.shape
    if np.isnan(ranks).any():
        raise ValueError("ranks must not contain NaN (rank missing results with rank_scores)")
    if n == 0 or m == 0:
        return np.empty((n, m), dtype=np.int64), np.empty((n, m), dtype=np.int64)
    order = np.argsort(ranks, axis=1, kind="stable")
    ordered = np.take_along_axis(ranks, order, axis=1)
    new_group = np.ones((n, m), dtype=bool)
    new_group[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    group_id = np.cumsum(new_group.ravel()) - 1
    sizes = np.bincount(group_id)[group_id].reshape(n, m)
    size = np.empty((n, m), dtype=np.int64)
    np.put_along_axis(size, order, sizes, axis=1)
    start_float = ranks - (size - 1) / 2.0
    start = np.rint(start_float).astype(np.int64)
    valid = (
        np.all(np.abs(start_float - start) <= 1e-9)
        and np.all(start >= 1)
        and np.all(start + size - 1 <= m)
        and np.allclose(ranks.sum(axis=1), m * (m + 1) / 2.0, rtol=0, atol=1e-9 * m * m)
    )
    if not valid:
        raise ValueError(
            "ranks must be average ranks (1 = best, ties share the mean of their positions)"
        )
    return start, size


def _ranks_iv(
    ranks: Any, *, allow_nan: bool = False, min_algorithms: int = 1, purpose: str = ""
) -> np.ndarray:
    """The one check of a rank matrix, called by every public function that takes one.

    A rank matrix is ``(datasets x algorithms)`` with at least one of each, finite (a
    missing result is resolved by :func:`prepare_rankings` first; ``allow_nan`` lets
    ``NaN`` mark one where a function reads the pairs that are present) and within
    ``[1, m]``. ``min_algorithms`` and ``purpose`` name what a function needs beyond
    that. Whether a row is a whole average ranking is left to :func:`tie_groups`, for
    the functions that read the tie structure: a Plackett-Luce fit with
    ``known_positions = K`` reads positions ``1..K`` only, whatever fills the rest.
    """
    ranks = _as_matrix(ranks, "ranks")
    n, m = ranks.shape
    if n < 1 or m < 1:
        raise ValueError(
            f"ranks must have at least one dataset and one algorithm, got {ranks.shape}"
        )
    if m < min_algorithms:
        raise ValueError(f"at least {min_algorithms} algorithms are needed to {purpose}, got {m}")
    missing = np.isnan(ranks)
    if np.isinf(ranks).any() or (missing.any() and not allow_nan):
        raise ValueError(
            "ranks must be finite or NaN (missing)"
            if allow_nan
            else "ranks must be finite; resolve missing results first (complete block or "
            "'worst' policy, see rankings)"
        )
    present = ranks[~missing]
    if present.size and (present.min() < 1 or present.max() > m):
        raise ValueError(f"ranks must lie in [1, m] = [1, {m}]")
    return ranks


def cumulative_positions(ranks: Any, K: int) -> np.ndarray:
    """Share of the top-k positions of each dataset held by each algorithm, k = 1..K.

    ``C[i, k-1, a]`` is how many of positions ``1..k`` on dataset ``i`` algorithm ``a``
    holds, counting a tie group at ``s..s+t-1`` as ``1/t`` of each of its positions
    (the expectation under a uniformly random tie break):
    ``clip((k - s + 1) / t, 0, 1)``. Each ``C[i, k-1, :]`` sums to ``k``.

    Returns
    -------
    ndarray, shape (n, K, m)
    """
    start, size = tie_groups(ranks)
    m = start.shape[1]
    K = _check_K(K, m)
    k = np.arange(1, K + 1)[None, :, None]
    return np.clip((k - start[:, None, :] + 1) / size[:, None, :], 0.0, 1.0)


def positional_counts(ranks: Any, K: int | None = None) -> np.ndarray:
    """``r[j-1, a]``: in how many datasets algorithm ``a`` finished in position ``j``.

    A tie group at ``s..s+t-1`` gives each member ``1/t`` at each of those positions, so
    with complete rankings every row and every column sums to ``n``. ``K`` (default
    ``m``) keeps the first ``K`` positions only.

    Returns
    -------
    ndarray, shape (K, m)
    """
    start, size = tie_groups(ranks)
    n, m = start.shape
    K = m if K is None else _check_K(K, m)
    # Difference array over positions: +1/t at s, -1/t after s+t-1.
    diff = np.zeros((m + 1, m))
    columns = np.broadcast_to(np.arange(m), (n, m)).ravel()
    share = (1.0 / size).ravel()
    np.add.at(diff, ((start - 1).ravel(), columns), share)
    np.add.at(diff, ((start - 1 + size).ravel(), columns), -share)
    return np.cumsum(diff, axis=0)[:K]


def _check_K(K: int, m: int) -> int:
    if isinstance(K, bool) or int(K) != K or not 1 <= int(K) <= m:
        raise ValueError(f"K must be an integer in 1..{m} (the number of algorithms), got {K!r}")
    return int(K)


@dataclass(frozen=True, eq=False)
class PreparedRankings:
    """Rankings ready for the estimators, with the coverage facts behind them.

    Attributes
    ----------
    algorithms, datasets : tuple of str
        The algorithms and datasets used, in table order.
    excluded_algorithms : tuple of str
        Left out for insufficient coverage (results on fewer than ``min_coverage`` of
        the datasets).
    coverage : dict of str to float
        Share of the table's datasets on which each table algorithm has a result.
    dropped_datasets : tuple of str
        Datasets left out: under ``complete``, those where a used algorithm has no
        result; under either policy, those where no used algorithm has one.
    dropped_by : dict of str to int
        For each algorithm that caused drops, on how many dropped datasets it lacks a
        result.
    ranks : ndarray, shape (n_used, m_used)
        Average ranks, 1 = best.
    known_positions : int
        Positions ``1..known_positions`` are exact on every dataset (``m`` for score
        tables; for top-K rank tables the shortest listing, see :func:`prepare_rankings`).
    scores : ndarray, shape (n_used, m_used) or None
        Oriented dataset-level scores (larger is better), ``NaN`` where missing under
        ``worst``; ``None`` for rank tables.
    fold_scores : ndarray, shape (n_used, f, m_used) or None
        Oriented fold-level scores, when the table has folds.
    standard_errors : ndarray, shape (n_used, m_used) or None
        The source's standard error of each used score (``NaN`` where it gave none),
        when the table has any.
    kind, missing, tie_tol, min_coverage
        The table kind and the settings used.
    """

    algorithms: tuple[str, ...]
    datasets: tuple[str, ...]
    excluded_algorithms: tuple[str, ...]
    coverage: dict[str, float]
    dropped_datasets: tuple[str, ...]
    dropped_by: dict[str, int]
    ranks: np.ndarray
    known_positions: int
    scores: np.ndarray | None
    fold_scores: np.ndarray | None
    kind: str
    missing: str
    tie_tol: float
    min_coverage: float
    n_datasets_total: int
    standard_errors: np.ndarray | None = None

    @property
    def n_datasets(self) -> int:
        return len(self.datasets)

    @property
    def n_algorithms(self) -> int:
        return len(self.algorithms)

    def positional_counts(self, K: int | None = None) -> np.ndarray:
        """Positional counts of the used rankings; ``K`` defaults to ``known_positions``."""
        return positional_counts(self.ranks, self.known_positions if K is None else K)

    def mean_ranks(self) -> np.ndarray:
        return self.ranks.mean(axis=0)

    def to_dict(self) -> dict[str, Any]:
        """The coverage facts every view states, JSON-ready."""
        return {
            "kind": self.kind,
            "missing": self.missing,
            "tie_tol": self.tie_tol,
            "min_coverage": self.min_coverage,
            "n_datasets_total": self.n_datasets_total,
            "n_datasets_used": self.n_datasets,
            "n_algorithms_used": self.n_algorithms,
            "algorithms": list(self.algorithms),
            "datasets": list(self.datasets),
            "excluded_algorithms": [
                {"algorithm": a, "coverage": self.coverage[a]} for a in self.excluded_algorithms
            ],
            "dropped_datasets": list(self.dropped_datasets),
            "dropped_by": dict(self.dropped_by),
            "known_positions": self.known_positions,
        }


def _readonly(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def _listed_positions_iv(oriented: np.ndarray) -> int:
    """The check of a rank table's listed positions (negated, ``NaN`` = not listed), and
    the number of positions every dataset fixes (``known_positions``)."""
    m = oriented.shape[1]
    listed = ~np.isnan(oriented)
    if (oriented[listed] > -1).any():
        raise ValueError("rank tables must hold positions >= 1")
    n_listed = listed.sum(axis=1)
    known = int(np.min(np.where(n_listed >= m - 1, m, n_listed)))
    if known < 1:
        raise ValueError("every dataset of a rank table must list at least its winner")
    return known


def prepare_rankings(
    table: ResultTable,
    *,
    missing: MissingPolicy = "complete",
    tie_tol: float = 0.0,
    min_coverage: float = 0.5,
) -> PreparedRankings:
    """Apply the coverage and missing-result policy of METHODS 1 and rank every dataset.

    Parameters
    ----------
    table : ResultTable
    missing : {"complete", "worst"}
        ``complete`` keeps the datasets on which every used algorithm has a result;
        ``worst`` ranks a missing result last on its dataset, tied with other missing
        ones.
    tie_tol : float
        Score tie tolerance, see :func:`rank_scores`.
    min_coverage : float in [0, 1]
        Algorithms with results on fewer than this share of the table's datasets are
        left out (under both policies; pass 0 to keep every algorithm).

    Notes
    -----
    Rank tables (``kind="rank"``) list given positions, often only the top few per
    dataset. A ``NaN`` there means "not listed", not "missing", so neither the coverage
    threshold nor the missing policy applies. Listed positions are re-ranked per
    dataset (so "1, 1, 3" becomes average ranks 1.5, 1.5, 3), and the unlisted
    algorithms of a dataset with ``k`` listed tie at the mean of positions
    ``k+1..m``. This leaves positions ``1..k`` exact, so :attr:`known_positions` is the
    shortest listing over datasets (``m`` when at most one algorithm is unlisted on
    every dataset, as its position is then determined).

    Raises
    ------
    ValueError
        When fewer than 2 algorithms or no dataset remain, or for an unknown policy.
    """
    min_coverage = _check_policy(missing, min_coverage)
    values = np.asarray(table.values, dtype=float)
    n_total = values.shape[0]
    present = ~np.isnan(values)
    keep_algorithms, coverage = _kept_algorithms(table, present, min_coverage)
    used_algorithms = _names(table.algorithms, keep_algorithms)
    keep_datasets, dropped_by = _kept_datasets(
        table, present[:, keep_algorithms], used_algorithms, missing
    )
    ranks, known, scores, fold_scores = _rank_kept(table, keep_datasets, keep_algorithms, tie_tol)
    return PreparedRankings(
        algorithms=used_algorithms,
        datasets=_names(table.datasets, keep_datasets),
        excluded_algorithms=_names(table.algorithms, ~keep_algorithms),
        coverage=coverage,
        dropped_datasets=_names(table.datasets, ~keep_datasets),
        dropped_by=dropped_by,
        ranks=_readonly(ranks),
        known_positions=known,
        scores=scores,
        fold_scores=fold_scores,
        kind=table.kind,
        missing=missing,
        tie_tol=float(tie_tol),
        min_coverage=min_coverage,
        n_datasets_total=n_total,
        standard_errors=None
        if table.standard_errors is None or table.kind == "rank"
        else _readonly(np.array(table.standard_errors[np.ix_(keep_datasets, keep_algorithms)])),
    )


def _check_policy(missing: str, min_coverage: float) -> float:
    if missing not in ("complete", "worst"):
        raise ValueError(f"missing must be 'complete' or 'worst', got {missing!r}")
    min_coverage = float(min_coverage)
    if not 0.0 <= min_coverage <= 1.0:
        raise ValueError(f"min_coverage must be in [0, 1], got {min_coverage!r}")
    return min_coverage


def _names(names: Sequence[str], keep: np.ndarray) -> tuple[str, ...]:
    return tuple(name for name, kept in zip(names, keep, strict=True) if kept)


def _kept_algorithms(
    table: ResultTable, present: np.ndarray, min_coverage: float
) -> tuple[np.ndarray, dict[str, float]]:
    """The algorithms with enough coverage, and every algorithm's share of datasets."""
    n_total, m_total = present.shape
    coverage_share = present.mean(axis=0) if n_total else np.zeros(m_total)
    coverage = {a: float(c) for a, c in zip(table.algorithms, coverage_share, strict=True)}
    if table.kind == "rank":
        keep_algorithms = np.ones(m_total, dtype=bool)
    else:
        # An algorithm without a single result says nothing about any dataset: it is
        # left out even at min_coverage 0 (under "worst" it would otherwise rank last
        # everywhere and enter every test silently) and listed as excluded.
        keep_algorithms = (coverage_share >= min_coverage) & (coverage_share > 0)
    if keep_algorithms.sum() < 2:
        raise ValueError(
            f"at least 2 algorithms are needed, {int(keep_algorithms.sum())} remain "
            f"(table has {m_total}; excluded for coverage below {min_coverage:.0%}: "
            f"{list(_names(table.algorithms, ~keep_algorithms))})"
        )
    return keep_algorithms, coverage


def _kept_datasets(
    table: ResultTable,
    used_present: np.ndarray,
    used_algorithms: tuple[str, ...],
    missing: str,
) -> tuple[np.ndarray, dict[str, int]]:
    """The datasets the missing policy keeps, and per used algorithm how many of the
    dropped ones lack its result."""
    if table.kind == "rank":
        keep_datasets: np.ndarray = np.ones(used_present.shape[0], dtype=bool)
    elif missing == "complete":
        keep_datasets = np.asarray(used_present.all(axis=1))
    else:
        keep_datasets = np.asarray(used_present.any(axis=1))
    lacking = (~used_present[~keep_datasets]).sum(axis=0)
    dropped_by = {a: int(c) for a, c in zip(used_algorithms, lacking, strict=True) if c > 0}
    if not keep_datasets.any():
        raise ValueError(
            f"no dataset remains under missing={missing!r}: every one of the "
            f"{used_present.shape[0]} datasets lacks a result of some used algorithm "
            f"({dropped_by})"
        )
    return keep_datasets, dropped_by


def _rank_kept(
    table: ResultTable, keep_datasets: np.ndarray, keep_algorithms: np.ndarray, tie_tol: float
) -> tuple[np.ndarray, int, np.ndarray | None, np.ndarray | None]:
    """Ranks, known positions, oriented scores and fold scores of the kept cells."""
    oriented = table.oriented()[np.ix_(keep_datasets, keep_algorithms)]
    if table.kind == "rank":
        known = _listed_positions_iv(oriented)
        return rank_scores(oriented), known, None, None
    ranks = rank_scores(oriented, tie_tol=tie_tol)
    fold_scores = None
    if table.fold_values is not None:
        folds = table.fold_values if table.higher_is_better else -table.fold_values
        fold_scores = _readonly(np.array(folds[keep_datasets][:, :, keep_algorithms]))
    return ranks, oriented.shape[1], _readonly(np.array(oriented)), fold_scores
