"""Practical equivalence: the Bayesian signed-rank test with a ROPE (METHODS 6.1).

A p-value says whether a difference is detectable, not whether it matters. Given a
region of practical equivalence ``[-rope, rope]`` (metric units, set by the benchmark's
maintainer), the Bayesian signed-rank test of Benavoli, Corani, Mangili, Zaffalon &
Ruggeri (2014), as used in Benavoli, Corani, Demšar & Zaffalon (2017), gives for two
algorithms A and B, from their dataset-level scores:

* P(A practically better), P(practically equivalent), P(B practically better).

The model: the paired differences ``d_i = score_A - score_B`` (oriented: larger is
better) over datasets, plus one pseudo-observation at 0 with weight ``prior`` (0.5),
define a Dirichlet-process posterior; each posterior draw ``w ~ Dirichlet(prior, 1,
..., 1)`` gives the three masses

    theta_A    = sum_{i, j} w_i w_j H(d_i + d_j - 2 rope)
    theta_B    = sum_{i, j} w_i w_j H(-(d_i + d_j) - 2 rope)
    theta_rope = 1 - theta_A - theta_B

(``H`` the Heaviside step, 1/2 at 0: Walsh averages above the ROPE, below it, inside),
and the three probabilities are the shares of draws in which each mass is the largest
(``baycomp.SignedRankTest``). With ``rope = 0`` there is no equivalence region and
``theta_B = 1 - theta_A``, as baycomp does.

Cost and what is approximated: the probabilities are Monte-Carlo estimates from
:data:`N_SAMPLES` posterior draws (a standard error of at most ``0.5 / sqrt(N)``,
0.0056 at 8000 draws). Each draw is evaluated in O(n) by sorting the differences once
per pair (the Walsh averages above a threshold are a suffix of the sorted differences
for each ``i``), so a pair costs O(N n), not O(N n^2). The same Dirichlet draws serve
every pair (common random numbers; each pair's posterior is exact in distribution),
so any pair can be recomputed alone, on demand, to the same numbers. A pair with
missing scores keeps the draws of its datasets, renormalised (the aggregation
property: a renormalised sub-vector of a Dirichlet vector is Dirichlet).

Differences are exact where the scores are decimals or means of decimal folds
(:func:`estimation.core.table.decimal_grid`), so differences equal in exact arithmetic
are ties here as in Wilcoxon's test; a Walsh average within a few units in the last place of the threshold counts as
on it (``H = 1/2``).

Where folds exist, the section also carries the hierarchical model over datasets x
folds (:mod:`estimation.core.hierarchical`), the leader against the next algorithms.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from estimation.core.contract import (
    Board,
    NotApplicable,
    PairwiseMatrix,
    PracticalLeader,
    PracticalSection,
    PracticalVersus,
)
from estimation.core.hierarchical import hierarchical_comparison
from estimation.core.table import decimal_grid
from estimation.core.wording import counted

__all__ = [
    "DECISION_LEVEL",
    "N_SAMPLES",
    "PRIOR_STRENGTH",
    "PracticalPair",
    "dirichlet_draws",
    "equivalence_sentence",
    "practical_probabilities",
    "practical_sections",
    "signed_rank_posterior",
]

N_SAMPLES = 4000
"""Posterior draws per pair: a Monte-Carlo standard error of at most 0.0079 per
probability (0.5 / sqrt(4000)), 0.0034 near the 0.95 decision level; pages show two
decimals."""

PRIOR_STRENGTH = 0.5
"""Weight of the pseudo-observation at 0 (baycomp's default for the signed-rank test)."""

DECISION_LEVEL = 0.95
"""A probability at or above this is a decision (Benavoli et al. 2017 use 0.95)."""

CELL_BUDGET = 25_000_000
"""Largest total of draws x datasets x pairs; above it the draws shrink (to
:data:`MIN_SAMPLES`), then pairs are left out."""

MIN_SAMPLES = 2000

_ULPS = 8.0


@dataclass(frozen=True)
class PracticalPair:
    """P(A practically better), P(equivalent), P(B practically better) for a pair."""

    a_better: float
    equivalent: float
    b_better: float
    n_datasets: int


def dirichlet_draws(n: int, *, rng: int | np.random.Generator, n_samples: int = N_SAMPLES):
    """``n_samples`` draws of ``Dirichlet(prior, 1, ..., 1)`` over the pseudo-observation
    and ``n`` datasets, shape ``(n + 1, n_samples)``: one draw per column, row 0 the
    pseudo-observation."""
    generator = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    shape = np.ones((n + 1, 1))
    shape[0] = PRIOR_STRENGTH
    gammas = generator.standard_gamma(shape, size=(n + 1, int(n_samples)))
    return gammas / gammas.sum(axis=0, keepdims=True)


def _check_rope(rope: float) -> float:
    rope = float(rope)
    if not np.isfinite(rope) or rope < 0:
        raise ValueError(f"rope must be a finite number >= 0 (metric units), got {rope!r}")
    return rope


def signed_rank_posterior(
    differences: Any, rope: float, weights: np.ndarray
) -> tuple[float, float, float]:
    """The three probabilities from the differences ``d`` (A - B, larger is better) and
    posterior draws ``weights`` (``(N, len(d) + 1)``, column 0 the pseudo-observation).

    Returns ``(P(A better), P(equivalent), P(B better))``.
    """
    rope = _check_rope(rope)
    d = np.concatenate([[0.0], np.asarray(differences, dtype=float)])
    if weights.ndim != 2 or weights.shape[0] != d.size:
        raise ValueError(
            f"weights must have {d.size} rows (pseudo-observation + differences), "
            f"got shape {weights.shape}"
        )
    order = np.argsort(d, kind="stable")
    ds = d[order]
    # Datasets on rows, draws on columns: the gathers below take whole rows.
    w = weights[order]
    cumulative = np.zeros((w.shape[0] + 1, w.shape[1]))
    np.cumsum(w, axis=0, out=cumulative[1:])
    total = cumulative[-1]
    scale = max(float(np.abs(ds).max(initial=0.0)), 2 * rope, np.finfo(float).tiny)
    tol = _ULPS * np.finfo(float).eps * scale

    def weighted(first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """sum_i w_i (C[first_i] + C[second_i]) / 2, per draw (C: cumulative weights)."""
        if np.array_equal(first, second):
            return np.einsum("ij,ij->j", w, cumulative[first])
        return 0.5 * np.einsum("ij,ij->j", w, cumulative[first] + cumulative[second])

    def mass_above(threshold: float) -> np.ndarray:
        """sum_{i,j} w_i w_j H(d_i + d_j - threshold), H(0) = 1/2."""
        t = threshold - ds
        strict = np.searchsorted(ds, t + tol, side="right")
        at_or_above = np.searchsorted(ds, t - tol, side="left")
        return total * total - weighted(strict, at_or_above)

    def mass_below(threshold: float) -> np.ndarray:
        """sum_{i,j} w_i w_j H(-(d_i + d_j) - threshold)."""
        t = -threshold - ds
        strict = np.searchsorted(ds, t - tol, side="left")
        at_or_below = np.searchsorted(ds, t + tol, side="right")
        return weighted(strict, at_or_below)

    above = mass_above(2 * rope)
    if rope > 0:
        below = mass_below(2 * rope)
    else:
        below = 1.0 - above
    inside = 1.0 - above - below
    # baycomp's columns: left (B - A < -rope: A better), rope, right (B better)
    masses = np.stack([above, inside, below])
    winners = np.bincount(np.argmax(masses, axis=0), minlength=3) / masses.shape[1]
    return float(winners[0]), float(winners[1]), float(winners[2])


def practical_probabilities(
    scores: Any,
    pairs: Sequence[tuple[int, int]],
    *,
    rope: float,
    rng: int | np.random.Generator,
    n_samples: int = N_SAMPLES,
) -> dict[tuple[int, int], PracticalPair | str]:
    """The signed-rank posterior probabilities of each pair ``(a, b)`` of columns.

    Parameters
    ----------
    scores : array_like, shape (n, m)
        Oriented dataset-level scores (larger is better), NaN where missing.
    pairs : sequence of (int, int)
        Column pairs to compare.
    rope : float
        Half-width of the region of practical equivalence, in metric units (>= 0).
    rng : int or numpy.random.Generator
        Seed of the posterior draws, shared by every pair.
    n_samples : int
        Posterior draws (see :data:`N_SAMPLES`).

    Returns
    -------
    dict
        A :class:`PracticalPair` per pair, or a reason (a string) where it does not
        apply (fewer than two datasets with both scores).
    """
    rope = _check_rope(rope)
    scores = np.asarray(scores, dtype=float)
    if scores.ndim != 2:
        raise ValueError(f"scores must be 2-D (datasets x algorithms), got {scores.ndim}-D")
    if isinstance(n_samples, bool) or int(n_samples) != n_samples or n_samples < 1:
        raise ValueError(f"n_samples must be a positive integer, got {n_samples!r}")
    n = scores.shape[0]
    weights = dirichlet_draws(n, rng=rng, n_samples=int(n_samples))
    grid = decimal_grid(scores)
    out: dict[tuple[int, int], PracticalPair | str] = {}
    for a, b in pairs:
        present = np.isfinite(scores[:, a]) & np.isfinite(scores[:, b])
        count = int(present.sum())
        if count < 2:
            out[(a, b)] = "fewer than two datasets with results of both"
            continue
        d = grid.pair_differences(a, b, present)
        if not np.isfinite(d).all():
            out[(a, b)] = "the score differences leave the float range"
            continue
        # Scaled by a power of two with the rope (exact): the sums d_i + d_j stay finite.
        largest = max(float(np.abs(d).max(initial=0.0)), rope)
        exponent = int(np.frexp(largest)[1]) if largest > 0 else 0
        d_scaled, rope_scaled = np.ldexp(d, -exponent), float(np.ldexp(rope, -exponent))
        w = weights
        if count < n:
            w = weights[np.concatenate([[True], present])]
            w = w / w.sum(axis=0, keepdims=True)
        a_better, equivalent, b_better = signed_rank_posterior(d_scaled, rope_scaled, w)
        out[(a, b)] = PracticalPair(a_better, equivalent, b_better, count)
    return out


def planned_samples(n: int, n_pairs: int, n_samples: int = N_SAMPLES) -> tuple[int, int]:
    """Draws per pair and how many pairs fit :data:`CELL_BUDGET` (all, when they fit)."""
    per_pair = max(n + 1, 1)
    samples = int(n_samples)
    if samples * per_pair * n_pairs <= CELL_BUDGET:
        return samples, n_pairs
    samples = max(MIN_SAMPLES, CELL_BUDGET // max(per_pair * n_pairs, 1))
    samples = min(samples, int(n_samples))
    pairs = min(n_pairs, CELL_BUDGET // max(samples * per_pair, 1))
    return samples, max(int(pairs), 0)


MAX_COMPARED = 10
"""The practical section compares every pair of the board's first this many algorithms
(45 pairs); the leader is compared with every algorithm for the verdict. Any other pair
the head-to-head page computes on demand (:func:`practical_probabilities` on the same
datasets in the same order with the section's seed and draws: the same numbers)."""


def practical_sections(
    board: Board,
    scores: np.ndarray | None,
    *,
    seed: int,
    fold_scores: np.ndarray | None = None,
) -> tuple[PracticalLeader | NotApplicable, PracticalSection | NotApplicable]:
    """The board's :class:`PracticalLeader` and the payload's :class:`PracticalSection`.

    ``scores`` are the oriented dataset-level scores the board was ranked from (None for
    ranking input); ``board.settings.rope`` the region's half-width (None: not set).
    """
    rope = board.settings.rope
    reason = _not_applicable(rope, scores, len(board.algorithms))
    if reason is not None:
        return reason, reason
    assert rope is not None and scores is not None  # checked by _not_applicable
    names = board.algorithms
    order = board.order(board.recommended)
    compared, chosen, samples, notes = _planned_pairs(order, len(names), scores.shape[0])
    results = practical_probabilities(scores, chosen, rope=rope, rng=seed, n_samples=samples)
    summary = _leader_summary(results, names, order, rope=float(rope), n_samples=samples)
    better, equivalent, counts = _compared_matrices(results, compared)
    section = PracticalSection(
        algorithms=tuple(names[i] for i in compared),
        rope=float(rope),
        better=PairwiseMatrix.from_square(better),
        equivalent=PairwiseMatrix.from_square(equivalent),
        n_datasets=PairwiseMatrix.from_square(counts),
        n_samples=samples,
        seed=int(seed),
        decision_level=DECISION_LEVEL,
        notes=notes,
        hierarchical=hierarchical_comparison(
            names,
            order,
            fold_scores,
            rope=float(rope),
            seed=int(seed),
            alpha=board.settings.alpha,
        ),
    )
    return summary, section


def _not_applicable(rope: float | None, scores: np.ndarray | None, m: int) -> NotApplicable | None:
    """Why the practical sections do not apply, or None when they do."""
    if rope is None:
        return NotApplicable(
            "no region of practical equivalence is set for this metric (the maintainer "
            "sets one; analyze --rope)"
        )
    if scores is None:
        return NotApplicable("ranking-only input has no score differences to compare")
    if m < 2 or scores.shape[0] < 2:
        return NotApplicable("practical equivalence needs two algorithms and two datasets")
    return None


def _planned_pairs(
    order: Sequence[int], n_algorithms: int, n_datasets: int
) -> tuple[list[int], list[tuple[int, int]], int, tuple[str, ...]]:
    """The algorithms of the matrix, the pairs computed, the draws per pair and the notes
    on what the cost budget left out."""
    m = n_algorithms
    leader = order[0]
    compared = sorted(order[:MAX_COMPARED])
    wanted = [(a, b) for x, a in enumerate(compared) for b in compared[x + 1 :]]
    wanted += [(leader, j) for j in order[1:] if j not in compared]
    notes: list[str] = []
    samples, fitted = planned_samples(n_datasets, len(wanted))
    if samples < N_SAMPLES:
        notes.append(
            f"{samples} posterior draws per pair instead of {N_SAMPLES}, to bound the cost"
        )
    if fitted < len(wanted):
        notes.append(f"{counted(len(wanted) - fitted, 'pair')} left out to bound the cost")
    if m > MAX_COMPARED:
        notes.append(
            f"every pair of the first {MAX_COMPARED} of {m} algorithms is compared; the "
            "leader with every algorithm"
        )
    # the leader's pairs first, so that the verdict keeps them within the budget
    leader_pairs = [p for p in wanted if leader in p]
    others = [p for p in wanted if leader not in p]
    return compared, (leader_pairs + others)[:fitted], samples, tuple(notes)


def _leader_summary(
    results: dict[tuple[int, int], PracticalPair | str],
    names: Sequence[str],
    order: Sequence[int],
    *,
    rope: float,
    n_samples: int,
) -> PracticalLeader:
    """The leader against every algorithm whose pair was computed, seen from the leader."""
    leader = order[0]
    versus = []
    for j in order[1:]:
        pair = results.get((min(leader, j), max(leader, j)))
        if not isinstance(pair, PracticalPair):
            continue
        mine, theirs = (
            (pair.a_better, pair.b_better) if leader < j else (pair.b_better, pair.a_better)
        )
        versus.append(PracticalVersus(names[j], mine, pair.equivalent, theirs))
    return PracticalLeader(
        rope=rope,
        leader=names[leader],
        versus=tuple(versus),
        decision_level=DECISION_LEVEL,
        n_samples=n_samples,
    )


def _compared_matrices(
    results: dict[tuple[int, int], PracticalPair | str], compared: list[int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """P(row better), P(equivalent) and the datasets of each pair of ``compared``; NaN
    where the pair was not computed or does not apply."""
    k = len(compared)
    better = np.full((k, k), np.nan)
    equivalent = np.full((k, k), np.nan)
    counts = np.full((k, k), np.nan)
    for x, a in enumerate(compared):
        for y in range(x + 1, k):
            pair = results.get((a, compared[y]))
            if isinstance(pair, PracticalPair):
                better[x, y], better[y, x] = pair.a_better, pair.b_better
                equivalent[x, y] = equivalent[y, x] = pair.equivalent
                counts[x, y] = counts[y, x] = pair.n_datasets
    return better, equivalent, counts


def equivalence_sentence(practical: PracticalLeader) -> tuple[str | None, tuple[str, ...]]:
    """The verdict's sentence on practical equivalence, and the algorithms practically
    equivalent to the leader."""
    level = practical.decision_level
    rope = f"{practical.rope:g}"
    same = tuple(v.algorithm for v in practical.versus if v.equivalent >= level)
    worse = [v.algorithm for v in practical.versus if v.leader_better >= level]
    leader = practical.leader
    if same:
        listed = ", ".join(same)
        verb = "is" if len(same) == 1 else "are"
        return (
            f"{listed} {verb} practically equivalent to {leader}: differences within "
            f"±{rope} (the metric's region of practical equivalence) with probability "
            f"≥ {level:.2f} (Bayesian signed-rank test).",
            same,
        )
    if practical.versus and len(worse) == len(practical.versus):
        return (
            f"{leader} is practically better than every other algorithm compared (by more "
            f"than ±{rope}, probability ≥ {level:.2f}, Bayesian signed-rank test).",
            (),
        )
    return (
        f"No algorithm is practically equivalent to {leader} with probability ≥ {level:.2f} "
        f"(region of practical equivalence ±{rope}, Bayesian signed-rank test).",
        (),
    )
