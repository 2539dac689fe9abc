"""The hierarchical model for any pair of a snapshot, on demand (issue 24).

The payload stores the model for the leader against the next algorithms only; the
head-to-head page asks here for any other pair. What this decides, so that no view does:

- **When it applies**: the metric has a region of practical equivalence (the model's
  probabilities need one) and the results have folds; else a reason.
- **Stored first**: a pair the payload holds is read from it, not computed again.
- **Cached per snapshot**: a computed pair is kept under the snapshot's id, version and
  fingerprint and the engine version (a new snapshot version is a new key), for
  :data:`CACHE_SECONDS`; the two orders of a pair share one entry.
- **Reproducible**: the sampler's seed is the snapshot's practical seed
  (:func:`estimation.core.analysis.practical_seed`), the fold differences are the
  engine's datasets in its order, so the numbers are those of
  :func:`estimation.core.hierarchical.hierarchical_probabilities` for that pair.
- **Bounded**: only when asked (``compute``), at most :data:`MAX_CELLS` datasets x folds
  (datasets beyond are left out, a note says how many; the chains and steps are the
  engine's, 8 x 800), one computation at a time on the site (a lock of
  :data:`LOCK_SECONDS`) and :data:`CLIENT_BUDGET` computations per client per hour; a
  refused request says why and when to try again, and costs nothing.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
from django.core.cache import cache

from config.cache import pages_cache
from estimation.core.analysis import ENGINE_VERSION, practical_seed
from estimation.core.contract import (
    Board,
    HierarchicalComparison,
    NotApplicable,
    PracticalSection,
)
from estimation.core.hierarchical import (
    N_BURN,
    N_CHAINS,
    N_KEEP,
    hierarchical_probabilities,
    pair_folds,
)
from estimation.core.table import ResultTable
from estimation.models import ResultSnapshot

__all__ = [
    "CACHE_SECONDS",
    "CLIENT_BUDGET",
    "LOCK_SECONDS",
    "MAX_CELLS",
    "PairHierarchical",
    "PairHierarchicalOffer",
    "pair_hierarchical",
    "sampler_description",
]

MAX_CELLS = 2_000
"""Datasets x folds of one on-demand pair. The cost grows with the datasets; measured: 0.9
CPU s at 200 datasets x 10 folds, 2.3 s at 1000 x 2, the worst shape under the cap."""
CLIENT_BUDGET = 6
"""On-demand computations per client (signed-in user, else address) per hour."""
LOCK_SECONDS = 60
"""One on-demand computation at a time on the site; a lock left by a dead process expires."""
CACHE_SECONDS = 7 * 24 * 3600

Source = Literal["stored", "cache", "computed"]


@dataclass(frozen=True)
class PairHierarchical:
    """P(A practically better), P(equivalent), P(B practically better) on a new dataset
    under the hierarchical model, A and B as the page names them."""

    a: str
    b: str
    rope: float
    a_better: float
    equivalent: float
    b_better: float
    mc_se: float | None  # Monte-Carlo standard error (None: stored by an older engine)
    n_datasets: int
    n_folds: int
    n_draws: int
    seed: int
    notes: tuple[str, ...]
    source: Source


@dataclass(frozen=True)
class _PairEntry:
    """A pair's model as ``first`` against ``second``: what the cache keeps, in sorted
    order, so the two orders of a pair share it."""

    first: str
    second: str
    first_better: float
    equivalent: float
    second_better: float
    mc_se: float | None
    n_datasets: int
    n_folds: int
    n_draws: int
    seed: int
    notes: tuple[str, ...]


@dataclass(frozen=True)
class PairHierarchicalOffer:
    """Not computed for this request: whether asking for it would be served now, and why."""

    reason: str
    can_compute: bool


def pair_hierarchical(
    *,
    snapshot: ResultSnapshot,
    board: Board,
    practical: PracticalSection | NotApplicable | None,
    table: ResultTable,
    a: str,
    b: str,
    higher_is_better: bool,
    client: str,
    compute: bool,
) -> PairHierarchical | PairHierarchicalOffer | NotApplicable:
    """The hierarchical model for ``a`` against ``b`` of ``snapshot`` (see the module)."""
    if isinstance(board.practical, NotApplicable):
        return NotApplicable(board.practical.reason)
    rope = float(board.practical.rope)
    if table.fold_values is None:
        return NotApplicable("the results have no folds")
    stored = _stored(practical, a, b, rope)
    if stored is not None:
        return stored
    key = _cache_key(snapshot, a, b)
    cached = pages_cache.get(key)
    if isinstance(cached, _PairEntry):
        return _oriented(cached, a, b, rope, "cache")
    if not compute:
        return PairHierarchicalOffer("not computed for this pair yet", can_compute=True)
    x, notes = _pair_differences(board, table, a, b, higher_is_better)
    if x is None:
        return NotApplicable("fewer than two datasets with two folds of both")
    # The lock before the budget: a request refused for the lock costs nothing.
    lock = f"pair-hierarchical:lock:{ENGINE_VERSION}"
    if not cache.add(lock, 1, LOCK_SECONDS):
        return PairHierarchicalOffer(
            "another pair is being computed; try again in a minute", can_compute=False
        )
    try:
        refusal = _spend_budget(client)
        if refusal is not None:
            return PairHierarchicalOffer(refusal, can_compute=False)
        seed = practical_seed(board.settings.seed)
        pair = hierarchical_probabilities(x, rope=rope, rng=seed)
    finally:
        cache.delete(lock)
    entry = _PairEntry(
        first=a,
        second=b,
        first_better=pair.a_better,
        equivalent=pair.equivalent,
        second_better=pair.b_better,
        mc_se=pair.mc_se,
        n_datasets=pair.n_datasets,
        n_folds=pair.n_folds,
        n_draws=pair.n_draws,
        seed=seed,
        notes=tuple(notes),
    )
    pages_cache.set(key, _facing(entry, min(a, b)), CACHE_SECONDS)
    return _oriented(entry, a, b, rope, "computed")


def _stored(
    practical: PracticalSection | NotApplicable | None, a: str, b: str, rope: float
) -> PairHierarchical | None:
    if not isinstance(practical, PracticalSection):
        return None
    model = practical.hierarchical
    if not isinstance(model, HierarchicalComparison) or model.leader not in (a, b):
        return None
    other = b if model.leader == a else a
    row = next((v for v in model.versus if v.algorithm == other), None)
    if row is None:
        return None
    entry = _PairEntry(
        first=model.leader,
        second=other,
        first_better=row.leader_better,
        equivalent=row.equivalent,
        second_better=row.other_better,
        mc_se=row.mc_se,
        n_datasets=row.n_datasets,
        n_folds=row.n_folds,
        n_draws=model.n_draws,
        seed=model.seed,
        notes=(),
    )
    return _oriented(entry, a, b, rope, "stored")


def _pair_differences(
    board: Board, table: ResultTable, a: str, b: str, higher_is_better: bool
) -> tuple[np.ndarray | None, list[str]]:
    """The engine's fold differences of the pair: its datasets in its order, oriented."""
    assert table.fold_values is not None
    row_of = {name: i for i, name in enumerate(table.datasets)}
    rows = [row_of[d] for d in board.input.datasets if d in row_of]
    columns = [table.algorithms.index(a), table.algorithms.index(b)]
    sign = 1.0 if higher_is_better else -1.0
    folds = sign * table.fold_values[np.ix_(rows, range(table.fold_values.shape[1]), columns)]
    return pair_folds(folds, 0, 1, max_cells=MAX_CELLS)


def _facing(entry: _PairEntry, first: str) -> _PairEntry:
    """The same pair with ``first`` first: the one place a pair is turned round."""
    if entry.first == first:
        return entry
    return replace(
        entry,
        first=entry.second,
        second=entry.first,
        first_better=entry.second_better,
        second_better=entry.first_better,
    )


def _oriented(entry: _PairEntry, a: str, b: str, rope: float, source: Source) -> PairHierarchical:
    facing = _facing(entry, a)
    return PairHierarchical(
        a=a,
        b=b,
        rope=rope,
        a_better=facing.first_better,
        equivalent=facing.equivalent,
        b_better=facing.second_better,
        mc_se=facing.mc_se,
        n_datasets=facing.n_datasets,
        n_folds=facing.n_folds,
        n_draws=facing.n_draws,
        seed=facing.seed,
        notes=facing.notes,
        source=source,
    )


def _digest(*parts: object) -> str:
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).hexdigest()[:32]


def _cache_key(snapshot: ResultSnapshot, a: str, b: str) -> str:
    first, second = sorted((a, b))
    identity = (snapshot.pk, snapshot.version, snapshot.fingerprint, ENGINE_VERSION)
    return f"pair-hierarchical:{_digest(*identity, first, second)}"


def _spend_budget(client: str) -> str | None:
    """None when ``client`` may have one more computation this hour, else why not."""
    hour = int(time.time() // 3600)
    key = f"pair-hierarchical:budget:{_digest(client, hour)}"
    cache.add(key, 0, 3600)
    try:
        spent = cache.incr(key)
    except ValueError:  # expired between add and incr: a fresh hour
        cache.add(key, 1, 3600)
        spent = 1
    if spent > CLIENT_BUDGET:
        return f"at most {CLIENT_BUDGET} pairs are computed per visitor and hour; try again later"
    return None


def sampler_description() -> str:
    """What is approximated, in words for the page."""
    return (
        f"Gibbs sampler, {N_CHAINS} chains x {N_BURN + N_KEEP} steps "
        f"({N_CHAINS * N_KEEP} draws kept)"
    )
