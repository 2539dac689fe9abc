"""Groups of algorithms the tests cannot tell apart: critical-difference bars, compact
letter displays and their bounded variants (METHODS 4)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

# Guard against pathological significance graphs in the compact letter display.
_MAX_LETTER_GROUPS = 10_000


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
    """``end[s]``: the last position of the run that starts at ``s`` (see :func:`cd_groups`),
    from the significance matrix in rank order: each position's latest earlier
    position that differs from it (``O(m^2)`` element operations), then
    :func:`_ends_of_runs`."""
    m = inside.shape[0]
    earlier = np.tril(inside, -1)  # earlier[c, i]: i < c and they differ
    has_conflict = earlier.any(axis=1)
    last_conflict = np.where(has_conflict, m - 1 - np.argmax(earlier[:, ::-1], axis=1), -1)
    return _ends_of_runs(last_conflict)


def _ends_of_runs(last_conflict: np.ndarray) -> np.ndarray:
    """``end[s]`` from ``last_conflict[c]``, the latest position before ``c`` that differs
    from ``c`` (-1 if none).

    A run from ``s`` can take position ``c`` while no member so far differs from it,
    that is while ``last_conflict[c] < s``. The end of the run is one before the first
    ``c > s`` with ``last_conflict[c] >= s``; conflicts are monotone in ``s``, so a
    running pointer finds every end in ``O(m)`` steps.
    """
    m = last_conflict.size
    ends = np.empty(m, dtype=np.int64)
    end = 0
    for start in range(m):
        end = max(end, start)
        while end + 1 < m and last_conflict[end + 1] < start:
            end += 1
        ends[start] = end
    return ends


def _last_conflicts_by_distance(
    sorted_ranks: np.ndarray, differ: Callable[[np.ndarray, np.ndarray], np.ndarray]
) -> np.ndarray:
    """``last_conflict`` (see :func:`_ends_of_runs`) when whether two algorithms differ
    depends only on, and grows with, the distance of their mean ranks (Nemenyi):
    the positions before ``c`` that differ from it are a prefix, whose length a
    bisection finds for every ``c`` at once (``O(m log m)`` calls of ``differ`` on
    ``m`` pairs, no ``m x m`` array)."""
    m = sorted_ranks.size
    low = np.zeros(m, dtype=np.int64)
    high = np.arange(m, dtype=np.int64)
    while True:
        open_ = np.flatnonzero(low < high)
        if not open_.size:
            return low - 1
        middle = (low[open_] + high[open_]) // 2
        differs = np.asarray(differ(sorted_ranks[middle], sorted_ranks[open_]), dtype=bool)
        low[open_] = np.where(differs, middle + 1, low[open_])
        high[open_] = np.where(differs, high[open_], middle)


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
    if mean_ranks.size == 0:
        return []
    order, inside = _in_rank_order(significant, mean_ranks)
    return _bars_of_runs(order, _run_ends(inside))


def _bars_of_runs(order: np.ndarray, ends: np.ndarray) -> list[tuple[int, ...]]:
    """The runs of :func:`_ends_of_runs` not contained in an earlier one, best first."""
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
        return _letters_of_runs(order, _run_ends(inside), max_per_vertex=max_per_vertex)
    adjacent = ~significant
    np.fill_diagonal(adjacent, False)
    cliques, reason = _maximal_cliques(
        adjacent, max_groups=_MAX_LETTER_GROUPS, max_per_vertex=max_per_vertex
    )
    if reason is not None:
        return (), reason
    cliques.sort(key=lambda c: (min(position[v] for v in c), max(position[v] for v in c)))
    return _labels(cliques, m), None


def _letters_of_runs(
    order: np.ndarray, ends: np.ndarray, *, max_per_vertex: int | None
) -> tuple[tuple[str, ...], str | None]:
    """Compact letters of a pattern monotone in the mean ranks: the maximal cliques are
    the CD bars (the runs not inside an earlier one), already sorted by (first, last)
    position. ``order`` is the algorithms best first, ``ends`` :func:`_ends_of_runs`."""
    m = order.size
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
    return _labels(cliques, m), None


def _labels(cliques: list[frozenset[int]], m: int) -> tuple[str, ...]:
    labels = [""] * m
    for index, clique in enumerate(cliques):
        for vertex in sorted(clique):
            labels[vertex] += _letter(index)
    return tuple(labels)


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

MAX_LETTERS_PER_ALGORITHM = 26


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
    if m == 0:
        return _groups(0, (), (), None)
    bars = None if m > MAX_CD_ALGORITHMS else tuple(cd_groups(significant, mean_ranks))
    letters, reason = _letters(significant, mean_ranks, max_per_vertex=MAX_LETTERS_PER_ALGORITHM)
    return _groups(m, bars, letters, reason)


def indistinguishable_groups_by_distance(
    mean_ranks: np.ndarray, differ: Callable[[np.ndarray, np.ndarray], np.ndarray]
) -> IndistinguishableGroups:
    """:func:`indistinguishable_groups` of a significance that depends only on, and
    grows with, the distance of two mean ranks (Nemenyi's), with no ``m x m`` array:
    ``differ(first, second)`` says, pair by pair, whether algorithms of these mean
    ranks differ significantly. Memory ``O(m)``; ``O(m log m)`` pairs are evaluated.
    """
    mean_ranks = np.asarray(mean_ranks, dtype=float)
    if mean_ranks.ndim != 1:
        raise ValueError(f"mean_ranks must be (m,), got {mean_ranks.shape}")
    m = mean_ranks.size
    if m == 0:
        return _groups(0, (), (), None)
    order = np.argsort(mean_ranks, kind="stable")
    ends = _ends_of_runs(_last_conflicts_by_distance(mean_ranks[order], differ))
    bars = None if m > MAX_CD_ALGORITHMS else tuple(_bars_of_runs(order, ends))
    letters, reason = _letters_of_runs(order, ends, max_per_vertex=MAX_LETTERS_PER_ALGORITHM)
    return _groups(m, bars, letters, reason)


def _groups(
    m: int,
    bars: tuple[tuple[int, ...], ...] | None,
    letters: tuple[str, ...],
    reason: str | None,
) -> IndistinguishableGroups:
    """The result, with the reasons in words for what is not shown (``bars`` None:
    too many algorithms for a diagram; ``reason``: why the letters are not shown)."""
    bars_reason = None
    if bars is None:
        bars_reason = (
            f"a critical-difference diagram of {m} algorithms would not be readable "
            f"(it is drawn for at most {MAX_CD_ALGORITHMS})"
        )
    letters_reason = None
    if reason is not None:
        letters_reason = f"{reason}: a compact letter display would not be readable"
    return IndistinguishableGroups(
        bars=bars,
        letters=None if letters_reason else letters,
        bars_not_applicable=bars_reason,
        letters_not_applicable=letters_reason,
    )
