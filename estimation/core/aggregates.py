"""Aggregations of per-dataset rankings shown beside the win probability (METHODS 3).

All functions take ``ranks``, an ``(n, m)`` array of average ranks per dataset
(1 = best, tied algorithms share the mean of their positions). With top-K-only input
the algorithms below the known top ``known_positions`` are tied at the mean of the
unknown positions; :func:`plackett_luce` then uses only the known stages.

``dataset_weights`` (shape ``(n,)`` or ``(B, n)``, non-negative) multiplies the
contribution of every dataset: multinomial bootstrap counts or 0/1 training masks of a
cross-validation split. A ``(B, n)`` weight matrix gives ``(B, m)`` results, computed
for all rows at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from .pairwise_wins import pairwise_win_matrix
from .rankings import _ranks_iv
from .threads import run_interleaved

__all__ = [
    "PlackettLuceResult",
    "borda_probabilities",
    "mean_rank",
    "pairwise_win_matrix",
    "plackett_luce",
    "plackett_luce_probabilities",
]

# Elements of the one (algorithms x datasets x replicates) working array of the batched
# Plackett-Luce fit: 8 MB at float64 stays in a typical L3 cache across the passes of an
# MM iteration, and measured faster than both smaller chunks (per-call overhead) and
# larger ones (memory bandwidth), by up to three times.
_PL_CHUNK_ELEMENTS = 1_000_000
# Below this many elements in one (datasets x replicates) slab, the MM denominators
# run along rows instead of slab by slab (measured crossover: 100 to 200).
_SLAB_MIN_ELEMENTS = 128


# --------------------------------------------------------------------------------------
# validation helpers


def _check_weights(dataset_weights: np.ndarray | None, n: int) -> tuple[np.ndarray, bool]:
    """Return weights as (B, n) and whether the caller passed a batch."""
    if dataset_weights is None:
        return np.ones((1, n)), False
    weights = np.asarray(dataset_weights, dtype=float)
    batched = weights.ndim == 2
    if weights.ndim not in (1, 2) or weights.shape[-1] != n:
        raise ValueError(
            f"dataset_weights must have shape (n,) or (B, n) with n = {n}, got {weights.shape}"
        )
    weights = np.atleast_2d(weights)
    if not np.isfinite(weights).all() or (weights < 0).any():
        raise ValueError("dataset_weights must be finite and non-negative")
    if (weights.sum(axis=1) <= 0).any():
        raise ValueError("every row of dataset_weights must have a positive sum")
    return weights, batched


def _check_known_positions(known_positions: int | None, m: int) -> int:
    if known_positions is None:
        return m
    if int(known_positions) != known_positions or known_positions < 1:
        raise ValueError(
            f"known_positions must be a positive integer or None, got {known_positions!r}"
        )
    return min(int(known_positions), m)


def _check_positive(name: str, value: float, *, allow_zero: bool = False) -> float:
    value = float(value)
    if not np.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be a finite number {bound}, got {value!r}")
    return value


# --------------------------------------------------------------------------------------
# simple aggregations


def mean_rank(ranks: np.ndarray) -> np.ndarray:
    """Average rank of every algorithm over datasets, shape ``(m,)`` (1 = best)."""
    return _ranks_iv(ranks).mean(axis=0)


def borda_probabilities(
    ranks: np.ndarray, *, dataset_weights: np.ndarray | None = None
) -> np.ndarray:
    """Borda count as a probability vector.

    Dataset ``i`` gives algorithm ``a`` the points ``m - rank_i(a)``; the estimate is
    an algorithm's points over the total points.

    Parameters
    ----------
    ranks : array_like, shape (n, m)
        Average ranks per dataset, 1 = best, no missing values.
    dataset_weights : array_like, shape (n,) or (B, n), optional
        Non-negative multiplier of each dataset's points.

    Returns
    -------
    ndarray, shape (m,) or (B, m)
        Probabilities summing to 1.

    Notes
    -----
    Every dataset hands out ``m (m - 1) / 2`` points, so the ordering is the mean-rank
    ordering (reversed). With a single algorithm there are no points and the result is
    ``[1.0]``.
    """
    ranks = _ranks_iv(ranks)
    n, m = ranks.shape
    weights, batched = _check_weights(dataset_weights, n)
    if m == 1:
        result = np.ones((weights.shape[0], 1))
    else:
        points = weights @ (m - ranks)
        result = points / points.sum(axis=1, keepdims=True)
    return result if batched else result[0]


# --------------------------------------------------------------------------------------
# Plackett-Luce


@dataclass(frozen=True)
class PlackettLuceResult:
    """One Plackett-Luce fit.

    Attributes
    ----------
    worths : ndarray, shape (m,)
        Worth parameters normalised to sum 1 (the probability of ranking first).
    log_likelihood : float
        Log-likelihood of the (weighted) stages at the fit, without the prior term.
    log_posterior : float
        ``log_likelihood`` plus the log Gamma prior (up to a constant), the quantity
        the MM iterations increase.
    iterations : int
        MM iterations performed.
    converged : bool
        Whether the largest change of a log worth fell below ``tol``.
    prior_strength : float
        The Gamma prior strength used.
    n_stages : float
        Weighted number of choice stages that entered the likelihood.
    """

    worths: np.ndarray
    log_likelihood: float
    log_posterior: float
    iterations: int
    converged: bool
    prior_strength: float
    n_stages: float

    def to_dict(self) -> dict:
        return {
            "worths": [float(x) for x in self.worths],
            "log_likelihood": float(self.log_likelihood),
            "log_posterior": float(self.log_posterior),
            "iterations": int(self.iterations),
            "converged": bool(self.converged),
            "prior_strength": float(self.prior_strength),
            "n_stages": float(self.n_stages),
        }


@dataclass(frozen=True)
class _StageDesign:
    """Choice stages of every dataset, laid out position-major for the MM sweeps.

    ``order_t[p, i]`` is the algorithm at position ``p`` (0-based) of dataset ``i``;
    ``stage_size_t[p, i]`` is the size of the tie group chosen at a stage starting at
    position ``p`` of dataset ``i`` (0 where no used stage starts); ``chosen[i, a]`` is 1
    when algorithm ``a`` is chosen at one of dataset ``i``'s stages.

    Only the first ``n_used`` positions can start a used stage (``m - 1`` for complete
    rankings, about ``K`` for top-K input). ``scatter`` is the sparse ``(m, n_used * n)``
    0/1 (or count) matrix that adds cell ``(p, i)`` of a position-major array into the
    row of every algorithm whose position in dataset ``i`` is ``p``, or ``>= p`` for the
    last used position ``p = n_used - 1``; ``unit_stages`` says whether every used
    position starts a stage of size 1 (tie-free complete rankings).
    """

    order_t: np.ndarray
    stage_size_t: np.ndarray
    chosen: np.ndarray
    n_used: int
    scatter: sparse.csc_matrix
    unit_stages: bool


def _stage_design(ranks: np.ndarray, known: int) -> _StageDesign:
    n, m = ranks.shape
    order = np.argsort(ranks, axis=1, kind="stable")
    sorted_ranks = np.take_along_axis(ranks, order, axis=1)
    # Average ranks of different tie groups differ by at least 1/2; the tolerance only
    # absorbs rounding of published or recomputed averages.
    starts = np.ones((n, m), dtype=bool)
    starts[:, 1:] = np.abs(np.diff(sorted_ranks, axis=1)) > 1e-9
    group_id = np.cumsum(starts, axis=1) - 1
    group_sizes = np.zeros((n, m), dtype=int)
    np.add.at(group_sizes, (np.repeat(np.arange(n), m), group_id.ravel()), 1)
    position = np.arange(m)[None, :]
    # A stage is known when its first position is within the top `known`; a final
    # singleton stage chooses from itself and carries no information.
    size_here = np.take_along_axis(group_sizes, group_id, axis=1)
    used_start = starts & (position < known) & (m - position > 1)
    stage_size = np.where(used_start, size_here, 0).astype(float)
    group_used = np.zeros((n, m), dtype=bool)
    group_used[np.nonzero(used_start)[0], group_id[used_start]] = True
    chosen = np.zeros((n, m))
    np.put_along_axis(chosen, order, np.take_along_axis(group_used, group_id, axis=1), axis=1)
    used_positions = np.flatnonzero(used_start.any(axis=0))
    n_used = int(used_positions[-1]) + 1 if used_positions.size else 1
    # Below the last used position every algorithm is in the same choice sets, so its
    # cell folds into that of the last used position.
    cells = np.minimum(np.arange(m), n_used - 1)[:, None] * n + np.arange(n)[None, :]
    # Column-compressed: the product then streams through the cells in memory order and
    # accumulates into the small (m, B) result.
    scatter = sparse.csc_matrix(
        (np.ones(m * n), (order.T.ravel(), cells.ravel())), shape=(m, n_used * n)
    )
    scatter.sum_duplicates()
    return _StageDesign(
        order_t=np.ascontiguousarray(order.T),
        stage_size_t=np.ascontiguousarray(stage_size.T),
        chosen=chosen,
        n_used=n_used,
        scatter=scatter,
        unit_stages=bool((stage_size[:, :n_used] == 1).all()),
    )


def _choice_set_totals(gamma: np.ndarray, design: _StageDesign) -> np.ndarray:
    """``S[p, i, b]``: total worth of the algorithms at positions ``>= p`` of dataset ``i``.

    The cumulative sums run as a loop over the ``m`` positions of contiguous
    ``(n, B)`` slabs: numpy's ``cumsum`` along a non-contiguous axis is about ten times
    slower.
    """
    totals = np.ascontiguousarray(gamma.T)[design.order_t]  # (m, n, B)
    for position in range(totals.shape[0] - 2, -1, -1):
        np.add(totals[position], totals[position + 1], out=totals[position])
    return totals


def _denominators(
    gamma: np.ndarray,
    weights_t: np.ndarray,
    design: _StageDesign,
    buffer: np.ndarray | None = None,
) -> np.ndarray:
    """``D[b, a] = sum_stages w * t / S`` over the stages whose choice set holds ``a``.

    ``weights_t`` holds the weights transposed, a C-contiguous ``(n, B)`` array: a fit
    transposes them once (:func:`_weights_of`), not at every MM step.
    ``buffer`` is optional flat scratch space of at least ``m * n * B`` elements,
    reused across MM iterations. One pass gathers the worths in position order; then,
    slab by slab over the used positions, come the choice-set totals (a reverse
    cumulative sum), the stage terms ``t w / S`` and their forward cumulative sum (an
    algorithm at position ``p`` is in the choice set of every stage starting at or
    before ``p``); one sparse product adds each cell into its algorithm's row.
    """
    m, n = design.order_t.shape
    rows = gamma.shape[0]
    used = design.n_used
    if n * rows < _SLAB_MIN_ELEMENTS:
        return _denominators_by_row(gamma, weights_t.T, design)
    if buffer is None or buffer.size < m * n * rows:
        buffer = np.empty(m * n * rows)
    work = buffer[: m * n * rows].reshape(m, n, rows)
    # mode="clip": the indices are valid, and the default "raise" buffers the output.
    np.take(np.ascontiguousarray(gamma.T), design.order_t, axis=0, out=work, mode="clip")
    highest = min(used, m - 1) - 1
    if m - used > 1:
        # The tail below the last used position only enters through its total.
        work[used - 1] = work[used - 1 :].sum(axis=0)
        highest = used - 2
    for position in range(highest, -1, -1):
        np.add(work[position], work[position + 1], out=work[position])
    stage_terms = work[:used]
    # The contiguous (n, B) weights: broadcasting a transposed view over the slabs takes
    # numpy's strided loop, which made this division twice as slow.
    np.divide(weights_t[None, :, :], stage_terms, out=stage_terms)
    if not design.unit_stages:
        stage_terms *= design.stage_size_t[:used, :, None]
    for position in range(1, used):
        np.add(work[position], work[position - 1], out=work[position])
    return np.asarray(design.scatter @ stage_terms.reshape(used * n, rows)).T


def _denominators_by_row(
    gamma: np.ndarray, weights: np.ndarray, design: _StageDesign
) -> np.ndarray:
    """:func:`_denominators` with the positions as the last axis, for small batches.

    When the ``(n, B)`` slabs are small (a few slow replicates left, or few datasets)
    the ``m`` slab operations cost more in calls than in arithmetic; here each
    cumulative sum is one call along contiguous rows. The additions happen in the same
    order (``a + b == b + a`` in floating point), so the result is the same to the bit.
    """
    m, n = design.order_t.shape
    used = design.n_used
    work = np.take(gamma, design.order_t.T, axis=1, mode="clip")  # (B, n, m)
    highest = min(used, m - 1) - 1
    if m - used > 1:
        # The tail's total, summed from position used - 1 down the list as in the slabs.
        work[..., used - 1] = np.cumsum(work[..., used - 1 :], axis=-1)[..., -1]
        highest = used - 2
    totals = work[..., : highest + 2][..., ::-1]
    np.cumsum(totals, axis=-1, out=totals)
    stage_terms = work[..., :used]
    np.divide(weights[:, :, None], stage_terms, out=stage_terms)
    if not design.unit_stages:
        stage_terms *= design.stage_size_t[:used].T[None, :, :]
    np.cumsum(stage_terms, axis=-1, out=stage_terms)
    cells = np.ascontiguousarray(stage_terms.transpose(2, 1, 0)).reshape(used * n, -1)
    return np.asarray(design.scatter @ cells).T


def _log_likelihood(gamma: np.ndarray, weights: np.ndarray, design: _StageDesign) -> np.ndarray:
    totals = _choice_set_totals(gamma, design)
    stage_terms = (design.stage_size_t[:, :, None] * np.log(totals)).sum(axis=0)  # (n, B)
    chosen_terms = design.chosen @ np.log(gamma).T  # (n, B)
    return ((chosen_terms - stage_terms) * weights.T).sum(axis=0)


def _mm_fit(
    design: _StageDesign,
    weights: np.ndarray,
    start: np.ndarray,
    prior_strength: float,
    tol: float,
    max_iter: int,
    capacity: int | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hunter's MM iterations, accelerated (:func:`_accelerated_cycle`), for a batch of
    weight vectors.

    Returns the unnormalised worths, iterations per row and a converged flag per row.
    At most ``capacity`` rows (default: all) are iterated at once; a row that has
    converged leaves the working set and the next waiting row takes its place, so the
    working set stays full while slow rows finish (every row's arithmetic is its own,
    so the results do not depend on which rows share a pass).
    """
    n_rows = len(weights)
    capacity = n_rows if capacity is None else max(1, min(capacity, n_rows))
    # (B, m), fixed during the fit. Integer weights (bootstrap counts, 0/1 masks) give
    # integer sums that are exact in any order of summation: one product for all rows.
    # Other weights: per block of `capacity` rows, the products the fit always used.
    if _exact_integer_sums(weights):
        wins = weights @ design.chosen
    else:
        wins = np.concatenate(
            [
                weights[first : first + capacity] @ design.chosen
                for first in range(0, n_rows, capacity)
            ]
        )
    wins += prior_strength
    gamma = np.repeat(start, n_rows, axis=0) if len(start) == 1 else start.copy()
    if capacity == 1:
        iterations, converged = _mm_fit_rows(
            design, weights, wins, gamma, prior_strength, tol, max_iter
        )
        return gamma, iterations, converged
    iterations = np.zeros(n_rows, dtype=int)
    converged = np.zeros(n_rows, dtype=bool)
    step_limit = np.ones(n_rows)
    active = np.arange(capacity)
    waiting = capacity
    buffer = np.empty(design.order_t.size * capacity)
    weights_t = np.ascontiguousarray(weights.T)

    while active.size:

        def step(
            part: np.ndarray, current: np.ndarray, rows: np.ndarray = active
        ) -> tuple[np.ndarray, np.ndarray]:
            return _mm_step(
                current,
                _weights_of(weights_t, rows[part]),
                wins[rows[part]],
                design,
                prior_strength,
                buffer,
            )

        done, evaluations, step_limit[active] = _accelerated_cycle(
            step,
            gamma,
            active,
            tol,
            step_limit[active],
            max_iter - iterations[active],
        )
        iterations[active] += evaluations
        converged[active[done]] = True
        active = active[~done & (iterations[active] < max_iter)]
        if active.size < capacity and waiting < n_rows:
            joining = np.arange(waiting, min(n_rows, waiting + capacity - active.size))
            active = np.concatenate([active, joining])
            waiting += joining.size
    return gamma, iterations, converged


def _weights_of(weights_t: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The transposed weights of ``rows`` (increasing), C-contiguous: the array itself
    when they are all of its rows."""
    if rows.size == weights_t.shape[1] and rows[-1] == rows.size - 1:
        return weights_t
    return np.take(weights_t, rows, axis=1)


def _mm_step(
    current: np.ndarray,
    weights_t: np.ndarray,
    wins: np.ndarray,
    design: _StageDesign,
    prior_strength: float,
    buffer: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """One MM update of the rows ``current`` (``weights_t``: their weights transposed, as
    :func:`_denominators` reads them) and the largest change of a log worth per row."""
    m = current.shape[1]
    denominators = _denominators(current, weights_t, design, buffer)
    denominators += prior_strength
    updated = wins / denominators
    # The likelihood ignores the scale of the worths and the prior's optimal scale
    # given their ratios is sum = m: rescaling is an exact maximisation step, so
    # the iteration stays monotone, and it removes the slow drift of the scale that
    # plain MM shows under a weak prior.
    updated *= m / updated.sum(axis=1, keepdims=True)
    change = np.abs(np.log(updated) - np.log(current)).max(axis=1)
    return updated, change


# Growth factor of a row's extrapolation step bound after a step that reached it
# (SQUAREM's default, Varadhan and Roland 2008).
_STEP_GROWTH = 4.0


def _accelerated_cycle(
    step: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]],
    gamma: np.ndarray,
    rows: np.ndarray,
    tol: float,
    step_limit: np.ndarray,
    budget: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One SQUAREM cycle (Varadhan and Roland 2008, scheme S3) of the rows ``rows`` of
    ``gamma``, updated in place: two MM steps, an extrapolation along them in log worths,
    and an MM step from there.

    With n = 6 and thousands of algorithms, plain MM crawls (its rate is near 1: 50 to
    160 steps from the full-data fit at tolerance 1e-5, still 1e-4 from the fixed
    point); the extrapolation removes that slow direction. A row stops at the first MM
    step whose change is below ``tol``, as plain MM does, so the tolerance means the
    same. The extrapolation is kept only when the MM step from it changes the worths
    less than the second step did, else the row continues from the second step
    (plain MM, which increases the posterior at every step). ``step(part, current)``
    is an MM step of the rows ``rows[part]``; a row takes at most ``budget`` steps.
    Returns which rows converged, the MM steps taken per row, and each row's step
    bound for the next cycle.
    """
    count = rows.size
    done = np.zeros(count, dtype=bool)
    evaluations = np.zeros(count, dtype=int)
    start = gamma[rows]
    everyone = np.arange(count)
    first, change = step(everyone, start)
    evaluations += 1
    done[change < tol] = True
    gamma[rows] = first
    going = np.flatnonzero(~done & (budget > 1))
    if not going.size:
        return done, evaluations, step_limit
    second, second_change = step(going, first[going])
    evaluations[going] += 1
    finished = second_change < tol
    done[going[finished]] = True
    gamma[rows[going]] = second
    keep = ~finished & (budget[going] > 2)
    going, second, second_change = going[keep], second[keep], second_change[keep]
    if not going.size:
        return done, evaluations, step_limit
    log_start, log_first = np.log(start[going]), np.log(first[going])
    r = log_first - log_start
    v = np.log(second) - 2.0 * log_first + log_start
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = -np.sqrt((r * r).sum(axis=1) / (v * v).sum(axis=1))
    limit = step_limit[going]
    alpha = np.where(np.isfinite(alpha), alpha, -1.0)
    alpha = np.clip(alpha, -limit, -1.0)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        extrapolated = np.exp(log_start - 2.0 * alpha[:, None] * r + (alpha * alpha)[:, None] * v)
        extrapolated *= extrapolated.shape[1] / extrapolated.sum(axis=1, keepdims=True)
        third, third_change = step(going, extrapolated)
    evaluations[going] += 1
    accepted = np.isfinite(third_change) & (third_change <= second_change)
    gamma[rows[going[accepted]]] = third[accepted]
    done[going[accepted & (third_change < tol)]] = True
    reached = accepted & (alpha <= -limit)
    limit = np.where(reached, limit * _STEP_GROWTH, limit)
    limit = np.where(accepted, limit, np.maximum(1.0, limit / _STEP_GROWTH))
    step_limit = step_limit.copy()
    step_limit[going] = limit
    return done, evaluations, step_limit


def _exact_integer_sums(weights: np.ndarray) -> bool:
    """Whether every weight is a whole number and every row's total is below 2**53."""
    return bool(np.array_equal(weights, np.rint(weights)) and weights.sum(axis=1).max() < 2.0**52)


def _sub_design(
    design: _StageDesign, keep: np.ndarray, ones: np.ndarray, counting: np.ndarray
) -> _StageDesign:
    """``design`` restricted to the datasets ``keep`` (indices, in order).

    A dataset of weight 0 adds exact zeros to every denominator (its stage terms are
    ``0 / S``), so leaving it out gives the same sums to the bit: the remaining cells
    keep their order (cell ``(p, i)`` before ``(p, j)`` for ``i < j``, position-major),
    and each algorithm's row of the scatter receives one term per cell as before.
    For :func:`_denominators` only: ``chosen`` is left empty. ``ones`` (float) and
    ``counting`` (``0, 1, 2, ...`` as int32), each of at least ``m * n + 1`` elements, are
    read-only arrays shared by every sub-design of ``design``: the matrix takes slices
    of them instead of new arrays.
    """
    m = design.order_t.shape[0]
    used = design.n_used
    order_t = np.take(design.order_t, keep, axis=1)
    n = keep.size
    # Columns (p, i) of the used positions below the last hold one algorithm each; the
    # last used position's column holds the algorithms at positions >= used - 1.
    tail = m - used + 1
    # 32-bit indices, as scipy stores them (m * n is far below 2**31 in any fit that fits
    # in memory), so that the matrix takes them without a conversion.
    indices = np.concatenate(
        [order_t[: used - 1].ravel(), order_t[used - 1 :].T.ravel()],
        dtype=np.int32,
        casting="same_kind",
    )
    indptr = np.concatenate(
        [counting[: (used - 1) * n + 1], (used - 1) * n + tail * counting[1 : n + 1]]
    )
    # Every entry is 1: an algorithm has one position per dataset, so no cell holds it twice.
    scatter = sparse.csc_matrix((ones[: indices.size], indices, indptr), shape=(m, used * n))
    # Tie-free complete stages: every dataset's column of stage sizes is the same.
    stage_size_t = (
        np.broadcast_to(design.stage_size_t[:, :1], order_t.shape)
        if design.unit_stages
        else np.take(design.stage_size_t, keep, axis=1)
    )
    return _StageDesign(
        order_t=order_t,
        stage_size_t=stage_size_t,
        chosen=np.empty((0, m)),  # the denominators do not read it (the wins are fixed)
        n_used=used,
        scatter=scatter,
        unit_stages=design.unit_stages,
    )


def _mm_fit_rows(
    design: _StageDesign,
    weights: np.ndarray,
    wins: np.ndarray,
    gamma: np.ndarray,
    prior_strength: float,
    tol: float,
    max_iter: int,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_mm_fit` one row at a time (capacity 1), each on its own datasets.

    The iterations are those of :func:`_mm_fit` to the bit; only the datasets of
    weight 0 in a row (a third of them in a bootstrap replicate) are left out of its
    denominators (see :func:`_sub_design`). The rows are shared out between threads
    (:func:`~estimation.core.threads.run_interleaved`), each with its own working array.
    Updates ``gamma`` in place; returns the iterations and the converged flag of each row.
    """
    n_rows = gamma.shape[0]
    n = design.order_t.shape[1]
    iterations = np.zeros(n_rows, dtype=int)
    converged = np.zeros(n_rows, dtype=bool)

    ones = np.ones(design.order_t.size)
    counting = np.arange(design.order_t.size + 1, dtype=np.int32)
    ones.setflags(write=False)
    counting.setflags(write=False)

    only = np.zeros(1, dtype=int)

    def fit_rows(rows: Iterable[int]) -> None:
        buffer = np.empty(design.order_t.size)
        for row in rows:
            row_weights = weights[row : row + 1]
            keep = np.flatnonzero(row_weights[0] > 0)
            row_design = design
            if keep.size < n:
                row_design = _sub_design(design, keep, ones, counting)
                row_weights = row_weights[:, keep]
            current = gamma[row : row + 1].copy()
            row_wins = wins[row : row + 1]
            step_limit = np.ones(1)

            def step(
                part: np.ndarray,
                values: np.ndarray,
                row_weights: np.ndarray = row_weights,
                row_design: _StageDesign = row_design,
                row_wins: np.ndarray = row_wins,
            ) -> tuple[np.ndarray, np.ndarray]:
                return _mm_step(values, row_weights.T, row_wins, row_design, prior_strength, buffer)

            while True:
                done, evaluations, step_limit = _accelerated_cycle(
                    step, current, only, tol, step_limit, max_iter - iterations[row : row + 1]
                )
                iterations[row] += int(evaluations[0])
                if done[0]:
                    converged[row] = True
                    break
                if iterations[row] >= max_iter:
                    break
            gamma[row] = current[0]

    # Every row is fitted on its own (each thread writes only its rows).
    run_interleaved(fit_rows, range(n_rows))
    return iterations, converged


def _fit_batch(
    ranks: np.ndarray,
    known_positions: int | None,
    dataset_weights: np.ndarray | None,
    prior_strength: float,
    tol: float,
    max_iter: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, _StageDesign, bool]:
    ranks = _ranks_iv(ranks)
    n, m = ranks.shape
    known = _check_known_positions(known_positions, m)
    prior_strength = _check_positive("prior_strength", prior_strength)
    tol = _check_positive("tol", tol)
    if int(max_iter) != max_iter or max_iter < 1:
        raise ValueError(f"max_iter must be a positive integer, got {max_iter!r}")
    weights, batched = _check_weights(dataset_weights, n)
    design = _stage_design(ranks, known)
    n_rows = weights.shape[0]
    chunk = max(1, _PL_CHUNK_ELEMENTS // (n * m))
    start = np.ones((1, m))
    if n_rows > 1:
        # Warm start: every replicate starts from the fit with the mean weights, which
        # is close to each of them and cuts the MM iterations several-fold.
        mean_weights = weights.mean(axis=0, keepdims=True)
        start, _, _ = _mm_fit(design, mean_weights, start, prior_strength, tol, max_iter)
    gamma, iterations, converged = _mm_fit(
        design, weights, start, prior_strength, tol, max_iter, capacity=chunk
    )
    return gamma, iterations, converged, weights, design, batched


def plackett_luce_probabilities(
    ranks: np.ndarray,
    *,
    known_positions: int | None = None,
    dataset_weights: np.ndarray | None = None,
    prior_strength: float = 0.1,
    tol: float = 1e-8,
    max_iter: int = 10_000,
) -> np.ndarray:
    """Plackett-Luce win probabilities ``gamma / sum(gamma)``, batched over weights.

    Parameters
    ----------
    ranks : array_like, shape (n, m)
        Average ranks per dataset (1 = best). Ties are handled by the Breslow
        convention.
    known_positions : int, optional
        Number of known top positions ``K``; only the stages starting within the top
        ``K`` enter the likelihood. ``None`` (default) uses the full rankings.
    dataset_weights : array_like, shape (n,) or (B, n), optional
        Non-negative multiplier of each dataset's log-likelihood; a ``(B, n)`` matrix
        is fitted for all rows at once (chunked so that the working array stays near
        8 MB).
    prior_strength : float, default 0.1
        ``lambda`` of the Gamma(1 + lambda, rate lambda) prior on each worth.
    tol : float, default 1e-8
        Convergence threshold on the largest change of a normalised log worth
        between two iterations.
    max_iter : int, default 10000
        Iteration cap per fit.

    Returns
    -------
    ndarray, shape (m,) or (B, m)
        Normalised worths (sum 1 per row).

    Notes
    -----
    See :func:`plackett_luce` for the model, the prior and the algorithm. With a
    ``(B, n)`` weight matrix, the fit with the mean weight vector is computed first and
    used as the warm start of every row.
    """
    gamma, _, _, _, _, batched = _fit_batch(
        ranks, known_positions, dataset_weights, prior_strength, tol, max_iter
    )
    probabilities = gamma / gamma.sum(axis=1, keepdims=True)
    return probabilities if batched else probabilities[0]


def plackett_luce(
    ranks: np.ndarray,
    *,
    known_positions: int | None = None,
    dataset_weights: np.ndarray | None = None,
    prior_strength: float = 0.1,
    tol: float = 1e-8,
    max_iter: int = 10_000,
) -> PlackettLuceResult:
    """Fit a Plackett-Luce model to (possibly tied, possibly top-K) rankings.

    Parameters
    ----------
    ranks : array_like, shape (n, m)
        Average ranks per dataset (1 = best), no missing values. For top-K input the
        algorithms below the top ``known_positions`` share the mean unknown position.
    known_positions : int, optional
        Number of known top positions; ``None`` means complete rankings.
    dataset_weights : array_like, shape (n,), optional
        Non-negative multiplier of each dataset's log-likelihood.
    prior_strength : float, default 0.1
        ``lambda`` of the Gamma(1 + lambda, rate lambda) prior on each worth.
    tol : float, default 1e-8
        Convergence threshold (largest change of a normalised log worth).
    max_iter : int, default 10000
        Iteration cap.

    Returns
    -------
    PlackettLuceResult

    Notes
    -----
    A ranking is a sequence of choices: the best tie group is chosen from all
    algorithms, the next from the rest, and so on. Ties follow the Breslow convention:
    the ``t`` members of a tie group are each chosen from the same remaining set ``R``,
    contributing ``sum_{a in G} log gamma_a - t log sum_{b in R} gamma_b``. With top-K
    input only the stages that start within the top ``K`` are used; the unknown tail
    never forms a stage. A final singleton stage is dropped (it is always 0).

    The worths maximise the log-likelihood plus a Gamma(1 + lambda, lambda) log prior
    on each worth, ``lambda (log gamma - gamma)``. Without it an algorithm that never
    wins a stage has worth 0 (the maximum likelihood estimate does not exist); with it
    every worth is positive, and the prior's mode 1 pulls towards equal worths by the
    equivalent of ``lambda`` extra stage wins. ``lambda -> 0`` recovers the maximum
    likelihood fit whenever it exists.

    The fit uses the minorisation-maximisation (MM) algorithm of Hunter (2004),
    ``gamma_a <- (W_a + lambda) / (sum_stages t / S_stage + lambda)``, which increases
    the log posterior at every step, accelerated by SQUAREM (Varadhan and Roland 2008):
    after two MM steps the worths are extrapolated along them in log space, and the
    extrapolation is kept when the MM step from it moves the worths less than the
    second step did. Iterations stop when an MM step moves no normalised log worth by
    more than ``tol``; ``iterations`` counts MM steps.

    References
    ----------
    .. [1] D. R. Hunter, "MM algorithms for generalized Bradley-Terry models",
       Annals of Statistics 32(1), 384-406, 2004.
    .. [2] F. Caron and A. Doucet, "Efficient Bayesian inference for generalized
       Bradley-Terry models", J. Comput. Graph. Stat. 21(1), 174-196, 2012.
    .. [3] R. Varadhan and C. Roland, "Simple and globally convergent methods for
       accelerating the convergence of any EM algorithm", Scand. J. Stat. 35(2),
       335-353, 2008.
    """
    if dataset_weights is not None and np.ndim(dataset_weights) != 1:
        raise ValueError("dataset_weights must have shape (n,) for a single fit")
    gamma, iterations, converged, weights, design, _ = _fit_batch(
        ranks, known_positions, dataset_weights, prior_strength, tol, max_iter
    )
    log_likelihood = float(_log_likelihood(gamma, weights, design)[0])
    log_prior = float((prior_strength * (np.log(gamma) - gamma)).sum())
    return PlackettLuceResult(
        worths=gamma[0] / gamma[0].sum(),
        log_likelihood=log_likelihood,
        log_posterior=log_likelihood + log_prior,
        iterations=int(iterations[0]),
        converged=bool(converged[0]),
        prior_strength=float(prior_strength),
        n_stages=float(weights[0] @ (design.stage_size_t > 0).sum(axis=0)),
    )
