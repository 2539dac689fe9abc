"""Pairwise Wilcoxon signed-rank tests, vectorised over pairs (exact, permutation or
asymptotic, as scipy chooses), with Holm or Bonferroni corrections (METHODS 4)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import special

from estimation.core.significance.checks import (
    Correction,
    _check_alpha,
    _check_correction,
    _matrix_to_list,
)
from estimation.core.table import DecimalGrid, decimal_grid
from estimation.core.threads import run_interleaved

# scipy.stats.wilcoxon (method="auto") switches to the normal approximation above 50
# observations, and uses an exact permutation test for up to 13 observations with ties
# or zeros (2**13 sign patterns fit in its default 9999 resamples).
_EXACT_MAX = 50
_PERMUTATION_MAX = 13
# Pairs of algorithms processed at once in the vectorised Wilcoxon (memory bound).
_PAIR_CHUNK_ELEMENTS = 2_000_000


# --------------------------------------------------------------------------------------
# Wilcoxon signed-rank, all pairs


def adjust_pvalues(pvalues: np.ndarray, *, correction: str = "holm") -> np.ndarray:
    """Holm step-down or Bonferroni adjustment of p-values; each row of a 2-D array is
    its own family (the pairs of one dataset), a 1-D array is one family.

    ``NaN`` entries are left out of the family and stay ``NaN``.
    """
    correction = _check_correction(correction)
    pvalues = np.asarray(pvalues, dtype=float)
    rows = np.atleast_2d(pvalues)
    present = ~np.isnan(rows)
    k = present.sum(axis=1, keepdims=True)  # each family's size
    if correction == "bonferroni":
        adjusted = np.minimum(1.0, k * rows)
        return adjusted.reshape(pvalues.shape)
    # NaN sorts last, so each row's family is its first k sorted entries.
    order = np.argsort(rows, axis=1, kind="stable")
    ordered = np.take_along_axis(rows, order, axis=1)
    stepped = np.fmax.accumulate((k - np.arange(rows.shape[1])) * ordered, axis=1)
    stepped = np.where(np.take_along_axis(present, order, axis=1), np.minimum(1.0, stepped), np.nan)
    adjusted = np.empty_like(rows)
    np.put_along_axis(adjusted, order, stepped, axis=1)
    return adjusted.reshape(pvalues.shape)


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


@dataclass(frozen=True)
class _SignedRankBatch:
    r_plus: np.ndarray
    r_minus: np.ndarray
    statistic: np.ndarray
    pvalue: np.ndarray
    n_observations: np.ndarray
    n_nonzero: np.ndarray
    method: np.ndarray


@dataclass(frozen=True)
class _Ties:
    """Tie structure of the rows with ties among their real observations."""

    has_ties: np.ndarray
    """(rows,) bool."""
    tied_rows: np.ndarray
    """Indices of the rows with ties."""
    tied_ranks: np.ndarray
    """(tied rows, width) mid-ranks of the sorted cells; 0 past each row's non-zero count."""
    tie_term: np.ndarray
    """(rows,) sum over tie groups of t^3 - t (0 in rows without ties)."""


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
    keys, positive = _magnitude_order(differences, overwrite)
    ties = _ties(keys, count)
    del keys
    # Without ties the rank of the k-th smallest magnitude is k + 1, so R+ is a dot
    # product; rows with ties get mid-ranks. Every R+ is a sum of integers and halves
    # far below 2**53, hence exact in any order of summation.
    # einsum, not a matrix product: BLAS threads would spin against the caller's threads.
    r_plus = np.einsum("ij,j->i", positive, np.arange(width) + 1.0)
    if ties.tied_rows.size:
        r_plus[ties.tied_rows] = (ties.tied_ranks * positive[ties.tied_rows]).sum(axis=1)
    # Mid-ranks of the real observations sum to count (count + 1) / 2, exactly.
    r_minus = count * (count + 1.0) / 2 - r_plus
    pvalue, method = _batch_pvalues(r_plus, count, n_observations, ties)
    return _SignedRankBatch(
        r_plus=r_plus,
        r_minus=r_minus,
        statistic=np.minimum(r_plus, r_minus),
        pvalue=pvalue,
        n_observations=n_observations,
        n_nonzero=count,
        method=method,
    )


def _magnitude_order(differences: np.ndarray, overwrite: bool) -> tuple[np.ndarray, np.ndarray]:
    """Each row's magnitudes sorted ascending (as order-preserving integer keys), and
    whether each sorted difference is positive.

    One sort of integer keys instead of an argsort and two permutations: the bits of a
    non-negative double order like its value, and shifting a double's bits left by one
    drops its sign, so (bits << 1) - 2 orders by magnitude with zeros (and only they)
    wrapping round to the largest even key, 2**64 - 2; the lowest bit then carries
    d > 0. Absent differences (NaN) sort after every finite one, zeros last; position <
    the row's non-zero count marks the real ones.
    """
    rows, width = differences.shape
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
    return keys, positive


def _ties(keys: np.ndarray, count: np.ndarray) -> _Ties:
    """Ties between neighbours of the sorted magnitudes; only those among the real
    observations count, which matters only in rows with a tie somewhere (zeros and
    absent values tie at the end)."""
    rows, width = keys.shape
    position = np.arange(width)
    equal_next = keys[:, 1:] == keys[:, :-1]
    candidates = np.flatnonzero(equal_next.any(axis=1))
    has_ties = np.zeros(rows, dtype=bool)
    tied_with_previous_candidates = equal_next[candidates] & (
        position[None, 1:] < count[candidates][:, None]
    )
    del equal_next
    has_ties[candidates] = tied_with_previous_candidates.any(axis=1)
    tie_term = np.zeros(rows)
    tied_rows = np.flatnonzero(has_ties)
    tied_ranks = np.zeros((0, width))
    if tied_rows.size:
        starts = np.ones((tied_rows.size, width), dtype=bool)
        starts[:, 1:] = ~tied_with_previous_candidates[has_ties[candidates]]
        flat_starts = np.flatnonzero(starts.ravel())
        sizes = np.diff(np.append(flat_starts, starts.size))
        group_of_cell = np.cumsum(starts.ravel()) - 1
        midranks = flat_starts % width + (sizes + 1) / 2
        tied_ranks = midranks[group_of_cell].reshape(starts.shape)
        tied_ranks[~(position[None, :] < count[tied_rows][:, None])] = 0.0
        group_row = flat_starts // width
        real_group = flat_starts % width < count[tied_rows][group_row]
        tie_term[tied_rows] = np.bincount(
            group_row,
            weights=np.where(real_group, sizes.astype(float) ** 3 - sizes, 0.0),
            minlength=tied_rows.size,
        )
    return _Ties(has_ties=has_ties, tied_rows=tied_rows, tied_ranks=tied_ranks, tie_term=tie_term)


def _batch_pvalues(
    r_plus: np.ndarray, count: np.ndarray, n_observations: np.ndarray, ties: _Ties
) -> tuple[np.ndarray, np.ndarray]:
    """Each row's p-value by the method scipy's ``method="auto"`` picks, and the method's
    code (0 exact, 1 permutation, 2 asymptotic)."""
    exact = (n_observations <= _EXACT_MAX) & ~ties.has_ties & (count == n_observations)
    permutation = ~exact & (n_observations <= _PERMUTATION_MAX)
    asymptotic = ~exact & ~permutation
    pvalue = np.full(r_plus.shape, np.nan)
    usable = count > 0
    if (exact & usable).any():
        chosen = exact & usable
        pvalue[chosen] = _exact_pvalues(r_plus[chosen], count[chosen])
    if (permutation & usable).any():
        chosen = permutation & usable
        pvalue[chosen] = _permutation_rows(chosen, r_plus, count, n_observations, ties)
    if (asymptotic & usable).any():
        chosen = asymptotic & usable
        n_used = count[chosen].astype(float)
        # Same operation order as scipy so that the results agree to the last bit.
        mean = n_used * (n_used + 1.0) * 0.25
        variance = n_used * (n_used + 1.0) * (2.0 * n_used + 1.0)
        variance -= ties.tie_term[chosen] / 2
        se = np.sqrt(variance / 24)
        z = (r_plus[chosen] - mean) / se
        pvalue[chosen] = 2 * special.ndtr(-np.abs(z))
    method = np.where(exact, 0, np.where(permutation, 1, 2)).astype(np.int8)
    return pvalue, method


def _permutation_rows(
    chosen: np.ndarray,
    r_plus: np.ndarray,
    count: np.ndarray,
    n_observations: np.ndarray,
    ties: _Ties,
) -> np.ndarray:
    """The permutation p-values of the ``chosen`` rows. Ranks are 0 for zeros and absent
    observations; the zeros are valid observations of rank 0 (sorted after the non-zero
    ones, before the absent ones)."""
    position = np.arange(ties.tied_ranks.shape[1])
    ranks = np.where(position[None, :] < count[chosen][:, None], position + 1.0, 0.0)
    tied_chosen = ties.has_ties[chosen]
    if tied_chosen.any():
        ranks[tied_chosen] = ties.tied_ranks[
            np.searchsorted(ties.tied_rows, np.flatnonzero(chosen & ties.has_ties))
        ]
    valid = position[None, :] < n_observations[chosen][:, None]
    doubled = np.rint(2 * ranks).astype(int)
    return _permutation_pvalues(doubled, valid, r_plus[chosen])


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


_COMMON_GRID, _FLOATS, _OWN_GRID = 0, 1, 2


def _common_numerators(grid: DecimalGrid) -> tuple[np.ndarray, np.ndarray]:
    """The columns (as rows, C-contiguous) over the table's common denominator, and each
    column's kind: on the common grid (exact numerators below 2**52), compared as floats
    (its values), or on its own grid only (numerators too large over the common
    denominator: its pairs are computed apart)."""
    on_grid = grid.denominators > 0
    kinds = np.where(on_grid, _COMMON_GRID, _FLOATS)
    columns = np.array(grid.values.T, dtype=float, order="C")
    if on_grid.any():
        # Denominators are 10**D * L with L dividing 25200: their lcm stays below 2**63.
        common = int(np.lcm.reduce(grid.denominators[on_grid]))
        scale = np.zeros(grid.denominators.shape, dtype=np.int64)
        scale[on_grid] = common // grid.denominators[on_grid]
        fits = on_grid & (grid.largest * scale <= 2.0**52)
        kinds = np.where(on_grid & ~fits, _OWN_GRID, kinds)
        columns[fits] = grid.numerators[:, fits].T * scale[fits, None].astype(float)
    return columns, kinds


_PER_PAIR_FIELDS = (
    ("pvalue", float),
    ("n_observations", np.int64),
    ("n_nonzero", np.int64),
    ("r_plus", float),
    ("r_minus", float),
    ("statistic", float),
    ("method", np.int8),
)


def _paired_signed_rank(
    samples: np.ndarray, *, correction: str, alpha: float, unit: str
) -> PairwiseSignedRank:
    """All-pairs signed-rank tests on the columns of ``samples`` (rows = blocks)."""
    alpha = _check_alpha(alpha)
    correction = _check_correction(correction)
    samples = _check_samples(samples, unit)
    pairs = np.triu_indices(samples.shape[1], 1)
    per_pair = _test_every_pair(samples, pairs)
    return _pairwise_result(
        per_pair, samples.shape, pairs, correction=correction, alpha=alpha, unit=unit
    )


def _check_samples(samples: np.ndarray, unit: str) -> np.ndarray:
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
    return samples


@dataclass(frozen=True)
class _PairDifferences:
    """Writes the paired differences of a run of consecutive pairs (upper-triangle order).

    Pairs (a, b) come in upper-triangle order: those of one ``a`` are consecutive, with
    ``b = a + 1 ... m - 1``, so a batch's differences are a few broadcast subtractions
    into one reused buffer: of the columns' numerators over the table's common
    denominator (exact, so differences equal in exact arithmetic are equal, hence ties),
    or of the values where neither column is on a grid. The few pairs of two kinds take
    their own common denominator (DecimalGrid.pair_numerators).
    """

    grid: DecimalGrid
    columns: np.ndarray
    kinds: np.ndarray
    first: np.ndarray
    second: np.ndarray
    first_pair_of: np.ndarray
    uniform: bool

    @classmethod
    def of(cls, samples: np.ndarray, pairs: tuple[np.ndarray, np.ndarray]) -> _PairDifferences:
        m = samples.shape[1]
        grid = decimal_grid(samples)
        columns, kinds = _common_numerators(grid)
        first, second = pairs
        return cls(
            grid=grid,
            columns=columns,
            kinds=kinds,
            first=first,
            second=second,
            first_pair_of=np.concatenate([[0], np.cumsum(np.arange(m - 1, 0, -1))]),
            uniform=m == 0 or (bool((kinds == kinds[0]).all()) and kinds[0] != _OWN_GRID),
        )

    def write(self, start: int, stop: int, differences: np.ndarray) -> None:
        """The differences of pairs ``start:stop`` into the rows of ``differences``."""
        kinds, pair = self.kinds, start
        while pair < stop:
            a = int(self.first[pair])
            end = min(stop, int(self.first_pair_of[a + 1]))
            b = int(self.second[pair])
            rows = differences[pair - start : end - start]
            np.subtract(self.columns[a], self.columns[b : b + end - pair], out=rows)
            if not self.uniform:
                others = np.arange(b, b + end - pair)
                mixed = (kinds[others] != kinds[a]) | (kinds[others] == _OWN_GRID)
                if kinds[a] == _OWN_GRID:
                    mixed[:] = True
                if mixed.any():
                    rows[mixed] = self.grid.pair_numerators(a, others[mixed])[0]
            pair = end


def _test_every_pair(
    samples: np.ndarray, pairs: tuple[np.ndarray, np.ndarray]
) -> dict[str, np.ndarray]:
    """The fields of :class:`_SignedRankBatch` for every pair in upper-triangle order.

    Pairs in batches whose (pairs x blocks) arrays hold _PAIR_CHUNK_ELEMENTS, written
    into per-pair arrays: memory is O(chunk + m^2), never O(m^2 x blocks).
    """
    length, m = samples.shape
    n_pairs = m * (m - 1) // 2
    chunk = max(1, _PAIR_CHUNK_ELEMENTS // max(length, 1))
    differences_of = _PairDifferences.of(samples, pairs)
    per_pair = {name: np.zeros(n_pairs, dtype=dtype) for name, dtype in _PER_PAIR_FIELDS}
    complete = not np.isnan(samples).any()

    def test_batches(starts: Iterable[int]) -> None:
        buffer = np.empty((min(chunk, n_pairs), length))
        for start in starts:
            stop = min(start + chunk, n_pairs)
            differences = buffer[: stop - start]
            differences_of.write(start, stop, differences)
            batch = _signed_rank_batch(differences, complete=complete, overwrite=True)
            for name, values in per_pair.items():
                values[start:stop] = getattr(batch, name)

    # Each batch writes its own slice of the per-pair arrays.
    run_interleaved(test_batches, range(0, n_pairs, chunk))
    return per_pair


def _pairwise_result(
    per_pair: dict[str, np.ndarray],
    shape: tuple[int, int],
    pairs: tuple[np.ndarray, np.ndarray],
    *,
    correction: str,
    alpha: float,
    unit: str,
) -> PairwiseSignedRank:
    """The (m, m) matrices of :class:`PairwiseSignedRank` from the per-pair arrays."""
    length, m = shape
    first, second = pairs
    n_common, n_nonzero = per_pair["n_observations"], per_pair["n_nonzero"]
    r_plus, r_minus = per_pair["r_plus"], per_pair["r_minus"]
    # Identical on every block: no evidence of a difference, p = 1 (METHODS 4), with a
    # note. The pair stays in the correction's family: the family is every pair tested,
    # fixed before the data are seen, so leaving a pair out after seeing it would shrink
    # the others' corrected p-values and weaken the family-wise guarantee.
    identical = (n_common > 0) & (n_nonzero == 0)
    pvalue = np.where(identical, 1.0, per_pair["pvalue"])
    corrected = adjust_pvalues(pvalue, correction=correction)
    statistic = np.where(identical, 0.0, per_pair["statistic"])
    with np.errstate(invalid="ignore", divide="ignore"):
        effect = np.where(n_nonzero > 0, (r_plus - r_minus) / (r_plus + r_minus), np.nan)
    effect = np.where(identical, 0.0, effect)

    def symmetric(values: np.ndarray, diagonal: float, sign: float = 1.0) -> np.ndarray:
        matrix = np.full((m, m), diagonal, dtype=float)
        matrix[first, second] = values
        matrix[second, first] = sign * values
        return matrix

    corrected_matrix = symmetric(corrected, np.nan)
    return PairwiseSignedRank(
        alpha=alpha,
        correction=correction,
        pvalues=symmetric(pvalue, np.nan),
        pvalues_corrected=corrected_matrix,
        significant=np.nan_to_num(corrected_matrix, nan=1.0) < alpha,
        statistic=symmetric(np.where(identical | (n_nonzero > 0), statistic, np.nan), np.nan),
        effect_size=symmetric(effect, 0.0, sign=-1.0),
        n_common=symmetric(n_common.astype(float), float(length)),
        n_nonzero=symmetric(n_nonzero.astype(float), 0.0),
        method=_method_matrix(per_pair["method"], n_common, n_nonzero, pairs, m),
        not_applicable=_not_applicable_reasons(n_common, n_nonzero, pairs, m, unit),
    )


def _not_applicable_reasons(
    n_common: np.ndarray,
    n_nonzero: np.ndarray,
    pairs: tuple[np.ndarray, np.ndarray],
    m: int,
    unit: str,
) -> np.ndarray:
    """(m, m) object array: why each pair has no test, or None."""
    first, second = pairs
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
    return reasons


def _method_matrix(
    methods: np.ndarray,
    n_common: np.ndarray,
    n_nonzero: np.ndarray,
    pairs: tuple[np.ndarray, np.ndarray],
    m: int,
) -> np.ndarray:
    """(m, m) object array of each pair's method name, None where nothing was tested."""
    first, second = pairs
    untested = (n_common == 0) | (n_nonzero == 0)
    # One shared string object per regime, not one per pair.
    codes = np.full((m, m), 3, dtype=np.int8)
    codes[first, second] = np.where(untested, 3, methods)
    codes[second, first] = codes[first, second]
    return _METHODS[codes]


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
    differences are taken exactly where the scores are decimals or means of decimal
    folds (:func:`estimation.core.table.decimal_grid`: integer numerators over a common
    denominator), so differences that are equal in exact arithmetic are ties, and
    zeros, whatever the float noise of the subtraction or of a repeating fold mean
    (0.70 - 0.68 and 0.52 - 0.50 tie; scipy on the raw floats would rank them 1 and 2;
    3-fold means whose differences are both 2/3 tie). This is scipy's test on the exact
    differences; on such input it can differ from scipy on the floats, also in the
    regime (ties send ``method="auto"`` from exact to the normal approximation). Scores
    that are not on a decimal grid (continuous values) are paired as floats, exactly as
    scipy pairs them. A pair identical on every dataset has p = 1 and a note, and counts
    in the Holm or Bonferroni family like every other pair with a common dataset (pairs
    without one have no test and are left out). The effect size
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
