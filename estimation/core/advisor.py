"""Estimator advisor and size planner (METHODS.md section 8).

Which estimator to trust at this benchmark's size, and what more datasets would buy: the
paper's section 6.1 simulations, run on the benchmark's own fitted model. Two truths:

``plackett_luce``
    The fitted Plackett-Luce model. Rankings are drawn by sequential choice with the
    fitted worths (Gumbel-max: ``argsort(log worth + Gumbel noise)``, one numpy call for
    a whole pool), cut to the top ``K`` positions when the input is top-K. The true win
    probabilities are exact: the first choice picks ``a`` with probability
    ``worth[a] / sum(worth)``, so there is no Monte-Carlo error in the truth.
``empirical``
    The benchmark's own rankings as the population (datasets resampled with
    replacement, exactly as the bootstrap does). Its true win probabilities are the
    empirical tie-split win shares.
``mixture``
    Each simulated dataset is drawn from the fitted Plackett-Luce model with probability
    1/2, else resampled from the benchmark's own rankings. Its true win probabilities
    are exactly the average of the two truths above. Each of those two is one
    candidate's own model (under the first the Plackett-Luce estimate of the full data
    is the truth, under the second the win rate's is), so each favours that candidate;
    the mixture is neither's model, and the advisor's recommendation reads it
    (:func:`estimation.core.verdict.advisor_evidence`).

For every size ``n'`` in ``{n, 2n, 4n}`` it draws ``S`` benchmarks, applies every
estimator of the registry to all of them at once
(:func:`estimation.core.resampling.scheme_estimates`, the batched refit the bootstrap
uses, so the LOO weights are refitted in each simulated benchmark) and reports each
estimator's mean errors, the spread of its estimate of the leader and how often it
ranks the true leader first.

Cost is bounded: the work of one size is ``S x P x m`` cells (``P`` the rankings in its
pools), and :data:`CELL_BUDGET` caps the sum over sizes and truths. Above it the number
of simulations shrinks (down to :data:`MIN_SIMULATIONS`), then the larger sizes are
dropped (saying so), and when even ``n`` does not fit the whole view is not applicable.
The Plackett-Luce refits inside the simulation stop at :data:`SIMULATION_PL_TOL`
(probabilities within about 1e-4 of the converged fit, far below the simulation error).

Randomness comes in as an argument; the same input and seed give the same output.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from estimation.core import aggregates
from estimation.core.contract import (
    AdvisorEstimator,
    AdvisorPower,
    AdvisorSection,
    AdvisorSize,
    AdvisorTruth,
    FoldsPower,
    NotApplicable,
    floats,
)
from estimation.core.intervals import exact_width
from estimation.core.rankings import _ranks_iv
from estimation.core.resampling import SCHEMES, scheme_estimates

__all__ = [
    "CELL_BUDGET",
    "MAX_ALGORITHMS",
    "AdvisorResult",
    "EstimatorError",
    "SizeResult",
    "TruthResult",
    "advise",
    "advisor_section",
    "plackett_luce_rankings",
    "size_label",
]

CELL_BUDGET = 16_000_000
"""Largest total of simulations x pooled rankings x algorithms over every size and truth,
weighted by ``sqrt(m / 20)`` above 20 algorithms (200 simulations and three truths: 0.33 s
of CPU at m = 20, n = 100, 10 folds with one OpenBLAS thread, 2026-12-05, bench/README.md;
on 2026-12-02, before the 14 % cut in bench/README.md, "Issue 43 item 5 again": 0.5 s with OpenBLAS's own threads, which
spin on a second core; 0.16 s at 3 x 5, where the cost is the fixed work of each
replicate's refits rather than the cells; a few seconds at most elsewhere)."""

MIN_SIMULATIONS = 40
"""Fewer simulated benchmarks than this would leave the errors too noisy to compare."""

MAX_ALGORITHMS = 2000
"""Above this many algorithms the advisor is not computed (every simulated benchmark
would be larger than the budget)."""

SIMULATION_PL_TOL = 1e-3
"""Plackett-Luce convergence tolerance inside the simulation (change of log worths)."""

SIZE_FACTORS: tuple[int, ...] = (1, 2, 4)
"""The sizes simulated, as multiples of the benchmark's number of datasets."""

_POOLS = 4
"""Independent Plackett-Luce pools per size (subsets of one pool overlap; several pools
keep the simulated benchmarks closer to independent)."""

_LEVEL = 0.95
"""Level of the confidence interval whose width the advisor reports."""

_TIE = 1e-12


@dataclass(frozen=True)
class EstimatorError:
    """One estimator's errors over the simulated benchmarks of one size."""

    key: str
    kl: float
    tv: float
    leader_first: float
    spread_width: float


@dataclass(frozen=True)
class SizeResult:
    """Every estimator at one number of datasets."""

    n_datasets: int
    factor: int
    n_simulations: int
    interval_width: float
    estimators: tuple[EstimatorError, ...]

    @property
    def best(self) -> str:
        """The estimator with the lowest mean KL error (the earlier scheme on a tie)."""
        return min(self.estimators, key=lambda e: e.kl).key


@dataclass(frozen=True)
class TruthResult:
    """One truth: its win probabilities and the simulated sizes."""

    truth: Literal["plackett_luce", "empirical", "mixture"]
    p: np.ndarray
    leader: int
    sizes: tuple[SizeResult, ...]


@dataclass(frozen=True)
class AdvisorResult:
    """The advisor's tables for both truths, or why it could not run."""

    K: int
    n_datasets: int
    n_simulations: int
    truths: tuple[TruthResult, ...]
    notes: tuple[str, ...]
    not_applicable: str | None = None


def plackett_luce_rankings(
    worths: Any, size: int, *, rng: np.random.Generator, known_positions: int | None = None
) -> np.ndarray:
    """``size`` rankings drawn from a Plackett-Luce model, as average ranks ``(size, m)``.

    Gumbel-max sampling: sorting ``log worth + Gumbel noise`` in decreasing order draws
    the whole sequential-choice ranking at once. With ``known_positions = K < m`` only
    the first ``K`` positions are kept; the others share the mean remaining position
    ``(K + 1 + m) / 2``, as a top-K input file is read.
    """
    log_worth = np.log(np.asarray(worths, dtype=float))
    m = log_worth.shape[0]
    known = m if known_positions is None else int(known_positions)
    noisy = log_worth + rng.gumbel(size=(int(size), m))
    order = np.argsort(-noisy, axis=1)
    positions = np.arange(1, m + 1, dtype=float)
    if known < m:
        positions[known:] = (known + 1 + m) / 2.0
    ranks = np.empty((int(size), m))
    np.put_along_axis(ranks, order, np.broadcast_to(positions, ranks.shape), axis=1)
    return ranks


def _leader_share(estimates: np.ndarray, leaders: np.ndarray) -> np.ndarray:
    """Per replicate, the share of its top estimates (ties split) held by true leaders."""
    best = estimates.max(axis=1, keepdims=True)
    top = estimates >= best - _TIE
    return (top & leaders[None, :]).sum(axis=1) / top.sum(axis=1)


def _errors(
    estimates: dict[str, np.ndarray], truth: np.ndarray, n: int, keys: Sequence[str]
) -> tuple[tuple[EstimatorError, ...], float]:
    """Each estimator's mean errors against ``truth`` over the replicates, and the mean
    width of the exact interval of the leader's win probability (from the win rate's
    estimates)."""
    m = truth.shape[0]
    leaders = truth >= truth.max() - _TIE
    leader = int(np.argmax(truth))
    positive = truth > 0
    rows = []
    for key in keys:
        p = estimates[key]
        # KL(truth || estimate) with the evaluation's add-half smoothing for every
        # estimator alike: raw estimates may be 0 where the truth is not.
        smoothed = (n * p + 0.5) / (n + m / 2.0)
        kl = (truth[positive] * np.log(truth[positive] / smoothed[:, positive])).sum(axis=1)
        tv = np.abs(p - truth[None, :]).sum(axis=1)
        low, high = np.quantile(p[:, leader], [0.025, 0.975])
        rows.append(
            EstimatorError(
                key=key,
                kl=float(kl.mean()),
                tv=float(tv.mean()),
                leader_first=float(_leader_share(p, leaders).mean()),
                spread_width=float(high - low),
            )
        )
    wins = estimates["mle"][:, leader] * n
    return tuple(rows), float(exact_width(wins, n, level=_LEVEL).mean())


def _width_weight(m: int) -> float:
    return float(np.sqrt(max(m, 20) / 20.0))


def _plan(n: int, m: int, n_simulations: int) -> tuple[int, list[int], list[str]]:
    """Simulations per size and the factors that fit :data:`CELL_BUDGET`."""
    notes: list[str] = []

    def cells(factors: Sequence[int], s: int) -> int:
        # Plackett-Luce pools hold 2 n' rankings; the empirical truth resamples n; the
        # mixture's pool holds both. A Plackett-Luce refit costs more per cell on wide
        # rankings (measured: 0.14 us a cell at m = 20, 0.46 at m = 179, 0.9 at
        # m = 2000): weigh by sqrt(m / 20).
        return int(sum(s * 2 * (2 * f * n + n) * m for f in factors) * _width_weight(m))

    factors = list(SIZE_FACTORS)
    s = int(n_simulations)
    while factors:
        fitted = min(s, CELL_BUDGET // max(cells(factors, 1), 1))
        if fitted >= MIN_SIMULATIONS or (fitted >= 1 and fitted == s):
            if fitted < s:
                notes.append(
                    f"{fitted} simulated benchmarks per size instead of {s}, to bound the cost"
                )
            return fitted, factors, notes
        dropped = factors.pop()
        notes.append(
            f"{dropped} x {n} = {dropped * n} datasets is too large to simulate within the "
            "cost bound; that size is left out"
        )
    return 0, [], notes


def advise(
    ranks: Any,
    *,
    rng: int | np.random.Generator,
    K: int = 3,
    known_positions: int | None = None,
    n_simulations: int = 200,
    schemes: Sequence[str] = SCHEMES,
    worths: Any = None,
    stop: Callable[[], bool] | None = None,
) -> AdvisorResult:
    """Simulate benchmarks from the fitted truths and score every estimator on them.

    Parameters
    ----------
    ranks : array_like, shape (n, m)
        Average ranks, 1 = best (top-K input: unknown positions share their mean).
    rng : int or numpy.random.Generator
        Seed or generator of every draw.
    K, known_positions
        Positions used by the linear family and by Plackett-Luce.
    n_simulations : int, default 200
        Simulated benchmarks per size and truth (``S``), lowered to fit the budget.
    schemes : sequence of str
        Estimators to score (default: every estimator of the registry).
    worths : array_like, shape (m,), optional
        Fitted Plackett-Luce worths (normalised or not); fitted here when omitted.
    stop : callable, optional
        Asked between blocks of simulations; when it returns true, :class:`AdvisorStopped`
        is raised (the caller no longer needs the result). It changes no number.

    Returns
    -------
    AdvisorResult
        ``not_applicable`` says why when it could not run (fewer than two algorithms or
        datasets, too many algorithms, or not even ``n`` fits the budget).

    Notes
    -----
    Errors against the truth ``t`` of an estimate ``p`` from ``n'`` datasets:

    * ``kl``: ``sum_a t[a] log(t[a] / p~[a])`` with the add-half smoothing
      ``p~ = (n' p + 1/2) / (n' + m/2)`` of the evaluation, applied to every estimator;
    * ``tv``: ``sum_a |p[a] - t[a]|`` (the L1 error the minimax bound of METHODS 2.2
      bounds; twice the total-variation distance);
    * ``leader_first``: share of simulated benchmarks whose highest estimate is a true
      leader (ties split);
    * ``spread_width``: the central 95 % range of the estimate of the leader's win
      probability across the simulated benchmarks (how wide a band around it must be).

    ``interval_width`` (per size) is the mean width of the 95 % exact (Clopper-Pearson)
    interval on the leader's tie-split win count: the confidence interval the
    leaderboard draws beside the win rate, the same for every estimator. A Plackett-Luce benchmark of ``n'`` datasets is a
    random subset of ``n'`` of a pool of ``2 n'`` independent draws, so it is exactly
    ``n'`` independent draws; four pools per size keep the benchmarks nearly
    independent of each other.
    """
    ranks = _ranks_iv(ranks)
    if ranks.shape[1] < 2:
        return AdvisorResult(
            K, ranks.shape[0], 0, (), (), "a single algorithm: there is no winner to predict"
        )
    n, m = ranks.shape
    generator = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    whole = not isinstance(n_simulations, bool) and int(n_simulations) == n_simulations
    if not whole or n_simulations < 1:
        raise ValueError(f"n_simulations must be a positive integer, got {n_simulations!r}")
    keys = tuple(schemes) if "mle" in schemes else ("mle", *schemes)
    s, factors, notes = _plan(n, m, int(n_simulations))
    reason = _not_simulated(n, m, factors)
    if reason is not None:
        notes = notes if n >= 2 and m <= MAX_ALGORITHMS else []
        return AdvisorResult(K, n, 0, (), tuple(notes), not_applicable=reason)

    if worths is None:
        worths = aggregates.plackett_luce(ranks, known_positions=known_positions).worths
    worths = np.asarray(worths, dtype=float)
    pl_truth = worths / worths.sum()
    empirical_truth = scheme_estimates(
        ranks, np.ones((1, n)), K=K, known_positions=known_positions, schemes=["mle"]
    )["mle"][0]
    mixture_truth = (pl_truth + empirical_truth) / 2.0
    simulation = _Simulation(
        ranks, worths, K, known_positions, keys, tuple(schemes), s, stop, generator
    )
    mixture_generator = _own_stream(generator)
    pl_sizes, empirical_sizes, mixture_sizes = [], [], []
    for factor in factors:
        pl_sizes.append(simulation.plackett_luce_size(factor, pl_truth))
        empirical_sizes.append(simulation.empirical_size(factor, empirical_truth))
        mixture_sizes.append(simulation.mixture_size(factor, mixture_truth, mixture_generator))
    truths = (
        TruthResult("plackett_luce", pl_truth, int(np.argmax(pl_truth)), tuple(pl_sizes)),
        TruthResult(
            "empirical", empirical_truth, int(np.argmax(empirical_truth)), tuple(empirical_sizes)
        ),
        TruthResult("mixture", mixture_truth, int(np.argmax(mixture_truth)), tuple(mixture_sizes)),
    )
    return AdvisorResult(K=K, n_datasets=n, n_simulations=s, truths=truths, notes=tuple(notes))


def _not_simulated(n: int, m: int, factors: list[int]) -> str | None:
    """Why :func:`advise` cannot simulate an ``(n, m)`` benchmark, or None."""
    if n < 2:
        return "a single dataset: the leave-one-out estimators need two"
    if m > MAX_ALGORITHMS:
        return (
            f"{m} algorithms: simulating benchmarks of this width exceeds the cost bound "
            f"(at most {MAX_ALGORITHMS})"
        )
    if not factors:
        return f"{n} datasets x {m} algorithms: even one size exceeds the simulation budget"
    return None


def _own_stream(generator: np.random.Generator) -> np.random.Generator:
    """A stream of the mixture truth's own, so that the two other truths draw what they
    drew before it."""
    seed_sequence = generator.bit_generator.seed_seq
    return np.random.default_rng(
        seed_sequence.spawn(1)[0]
        if isinstance(seed_sequence, np.random.SeedSequence)
        else generator.integers(0, 2**63 - 1)
    )


@dataclass(frozen=True)
class _Simulation:
    """What every simulated size of :func:`advise` reads; ``generator`` is the stream of
    the Plackett-Luce and empirical truths (each size draws from it in turn)."""

    ranks: np.ndarray
    worths: np.ndarray
    K: int
    known_positions: int | None
    keys: tuple[str, ...]
    schemes: tuple[str, ...]
    s: int
    stop: Callable[[], bool] | None
    generator: np.random.Generator

    def estimate(self, pool: np.ndarray, counts: np.ndarray) -> dict[str, np.ndarray]:
        return scheme_estimates(
            pool,
            counts,
            K=self.K,
            known_positions=self.known_positions,
            schemes=self.keys,
            pl_tol=SIMULATION_PL_TOL,
        )

    def pool(self, size: int, generator: np.random.Generator) -> np.ndarray:
        return plackett_luce_rankings(
            self.worths, size, rng=generator, known_positions=self.known_positions
        )

    def size_result(
        self, factor: int, estimates: dict[str, np.ndarray], truth: np.ndarray
    ) -> SizeResult:
        size = factor * self.ranks.shape[0]
        rows, width = _errors(estimates, truth, size, self.schemes)
        return SizeResult(size, factor, self.s, width, rows)

    def plackett_luce_size(self, factor: int, truth: np.ndarray) -> SizeResult:
        """Pools of 2 n' draws, each benchmark a random n'-subset of one."""
        size, generator = factor * self.ranks.shape[0], self.generator
        parts: list[dict[str, np.ndarray]] = []
        per_pool = np.diff(np.linspace(0, self.s, _POOLS + 1).round().astype(int))
        for count in per_pool[per_pool > 0]:
            _check(self.stop)
            pool = self.pool(2 * size, generator)
            # The n' smallest of each row's uniforms: the set a full argsort's first n'
            # columns hold (the uniforms have no ties), found in linear time.
            uniforms = generator.random((int(count), 2 * size))
            chosen = np.argpartition(uniforms, size - 1, axis=1)[:, :size]
            mask = np.zeros((int(count), 2 * size))
            np.put_along_axis(mask, chosen, 1.0, axis=1)
            parts.append(self.estimate(pool, mask))
        estimates = {key: np.concatenate([part[key] for part in parts]) for key in self.keys}
        return self.size_result(factor, estimates, truth)

    def empirical_size(self, factor: int, truth: np.ndarray) -> SizeResult:
        """The benchmark's own datasets, resampled with replacement."""
        _check(self.stop)
        n = self.ranks.shape[0]
        counts = self.generator.multinomial(factor * n, np.full(n, 1.0 / n), size=self.s)
        return self.size_result(factor, self.estimate(self.ranks, counts.astype(float)), truth)

    def mixture_size(
        self, factor: int, truth: np.ndarray, generator: np.random.Generator
    ) -> SizeResult:
        """k ~ Binomial(n', 1/2) rankings from a fresh Plackett-Luce pool, the other
        n' - k resampled from the benchmark's own."""
        _check(self.stop)
        n = self.ranks.shape[0]
        size = factor * n
        pool = np.vstack([self.pool(2 * size, generator), self.ranks])
        from_model = generator.binomial(size, 0.5, size=self.s)
        chosen = np.argsort(generator.random((self.s, 2 * size)), axis=1)
        mask = (_inverse_permutations(chosen) < from_model[:, None]).astype(float)
        resampled = generator.multinomial(size - from_model, np.full(n, 1.0 / n)).astype(float)
        return self.size_result(factor, self.estimate(pool, np.hstack([mask, resampled])), truth)


def _inverse_permutations(order: np.ndarray) -> np.ndarray:
    """Per row, each column's place in ``order`` (what ``argsort(order)`` returns for rows
    that are permutations, without a second sort)."""
    inverse = np.empty_like(order)
    places = np.broadcast_to(np.arange(order.shape[1]), order.shape)
    np.put_along_axis(inverse, order, places, axis=1)
    return inverse


class AdvisorStopped(Exception):
    """The ``stop`` callback of :func:`advise` asked it to give up."""


def _check(stop: Callable[[], bool] | None) -> None:
    if stop is not None and stop():
        raise AdvisorStopped("the advisor was stopped by its caller")


_SIZE_LABELS = {1: "at your size", 2: "with twice the datasets", 4: "with four times the datasets"}


def size_label(factor: int) -> str:
    """How pages name a simulated size ("at your size", "with twice the datasets")."""
    return _SIZE_LABELS.get(factor, f"with {factor} times the datasets")


def advisor_section(
    result: AdvisorResult,
    algorithms: Sequence[str],
    *,
    seed: int,
    power: AdvisorPower | NotApplicable | None = None,
    folds_power: FoldsPower | NotApplicable | None = None,
) -> AdvisorSection | NotApplicable:
    """The snapshot's ``advisor`` section from :func:`advise`'s result (and the power
    figures of :func:`estimation.core.power.advisor_power`)."""
    if result.not_applicable is not None:
        return NotApplicable(result.not_applicable)
    return AdvisorSection(
        power=power if power is not None else NotApplicable("not computed"),
        folds_power=folds_power if folds_power is not None else NotApplicable("not computed"),
        algorithms=tuple(algorithms),
        k_used=int(result.K),
        n_datasets=int(result.n_datasets),
        n_simulations=int(result.n_simulations),
        seed=int(seed),
        truths=tuple(
            AdvisorTruth(
                truth=truth.truth,
                p=floats(truth.p),
                leader=algorithms[truth.leader],
                sizes=tuple(
                    AdvisorSize(
                        n_datasets=size.n_datasets,
                        factor=size.factor,
                        n_simulations=size.n_simulations,
                        interval_width=_finite(size.interval_width),
                        best=size.best,
                        estimators=tuple(
                            AdvisorEstimator(
                                key=row.key,
                                kl=_finite(row.kl),
                                tv=_finite(row.tv),
                                leader_first=_finite(row.leader_first),
                                spread_width=_finite(row.spread_width),
                            )
                            for row in size.estimators
                        ),
                    )
                    for size in truth.sizes
                ),
            )
            for truth in result.truths
        ),
        notes=result.notes,
    )


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None
