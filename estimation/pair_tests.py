"""The wins share, Nemenyi and Wilcoxon tests of any pair of a large snapshot, on demand.

Above :data:`estimation.core.analysis.MAX_PAIRWISE_ALGORITHMS` the payload's pairwise
sections hold the first algorithms' pairs only (its ``pairwise`` section says which);
the head-to-head page asks here for any other pair. What this decides, so that no view
does:

- **From the snapshot's own data**: the pair's columns of the stored ranks and
  dataset-level values, the board's mean ranks and the family the Wilcoxon correction
  ran over (:class:`~estimation.core.contract.PairwiseScope`), through
  :func:`estimation.core.pairwise_scope.pair_tests`: the values the whole matrices
  would have held.
- **Cached per snapshot**: kept under the snapshot's id, version and fingerprint and the
  engine version for :data:`CACHE_SECONDS`; the two orders of a pair share one entry.
- **When it applies**: the pair is outside the stored sections and the snapshot stored
  its ranks (and, for Wilcoxon, its values); else None (the stored sections answer, or
  the page says the section is not stored).
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Any

import numpy as np

from config.cache import pages_cache
from estimation.core.analysis import ENGINE_VERSION
from estimation.core.contract import (
    Board,
    DatasetScoresSection,
    NotApplicable,
    PairwiseScope,
    RankMatrixSection,
    WinsSection,
)
from estimation.core.pairwise_scope import FamilyCorrection, PairTests, pair_tests
from estimation.models import ResultSnapshot

__all__ = ["CACHE_SECONDS", "pair_tests_on_demand"]

CACHE_SECONDS = 7 * 24 * 3600


def _key(snapshot: ResultSnapshot, low: str, high: str) -> str:
    parts = "\x1f".join(
        map(str, (snapshot.pk, snapshot.version, snapshot.fingerprint, ENGINE_VERSION, low, high))
    )
    return "pair-tests:" + hashlib.sha256(parts.encode()).hexdigest()[:40]


def _flipped(tests: PairTests) -> PairTests:
    """The same pair seen from the other side (shares and effects change sign)."""
    return replace(
        tests,
        share=None if tests.share is None else 1.0 - tests.share,
        rank_biserial=None if tests.rank_biserial is None else -tests.rank_biserial,
    )


def pair_tests_on_demand(
    *, snapshot: ResultSnapshot, sections: Any, a: str, b: str
) -> PairTests | None:
    """``a`` against ``b`` of ``snapshot`` (``sections``: its typed sections by name)
    when its pairwise sections do not hold the pair; None when they do, or when the
    snapshot did not store the ranks the pair needs (see the module)."""
    wins, board = sections["wins"], sections["board"]
    if isinstance(wins, WinsSection) and len(wins.algorithms) == len(board.algorithms):
        return None  # every pair stored (the page reads the wins anyway: no extra query)
    scope = sections["pairwise"]
    if not isinstance(scope, PairwiseScope) or {a, b} <= set(scope.algorithms):
        return None
    low, high = sorted((a, b))
    key = _key(snapshot, low, high)
    try:
        cached = pages_cache.get(key)
    except Exception:  # the cache is an optimisation only
        cached = None
    if cached is None:
        cached = _computed(sections, scope, low, high)
        if cached is None:
            return None
        try:
            pages_cache.set(key, cached, timeout=CACHE_SECONDS)
        except Exception:
            pass
    return cached if a == low else _flipped(cached)


def _computed(sections: Any, scope: PairwiseScope, a: str, b: str) -> PairTests | None:
    board: Board = sections["board"]
    ranks = sections["rank_matrix"]
    if not isinstance(ranks, RankMatrixSection):
        return None
    ia, ib = ranks.algorithms.index(a), ranks.algorithms.index(b)
    pair_ranks = np.array([(row[ia], row[ib]) for row in ranks.ranks], dtype=float)
    family = scores = None
    values = sections["dataset_scores"]
    if not isinstance(board.wilcoxon, NotApplicable) and scope.wilcoxon_family is not None:
        if isinstance(values, DatasetScoresSection):
            ja, jb = values.algorithms.index(a), values.algorithms.index(b)
            sign = -1.0 if board.input.direction == "lower" else 1.0
            scores = sign * np.array(
                [(row[ja], row[jb]) for row in values.values], dtype=float
            )  # None -> NaN: missing
            family = FamilyCorrection(
                correction=board.wilcoxon.correction,
                family=scope.wilcoxon_family,
                holm_raw=scope.holm_raw,
                holm_corrected=scope.holm_corrected,
                holm_one_from=scope.holm_one_from,
            )
    mean_ranks = None
    if not isinstance(board.nemenyi, NotApplicable) and not isinstance(
        board.mean_rank, NotApplicable
    ):
        mean_rank = board.column(board.mean_rank)
        mean_ranks = (float(mean_rank[a]), float(mean_rank[b]))
    return pair_tests(
        pair_ranks,
        scores,
        mean_ranks=mean_ranks,
        m=scope.n_algorithms,
        family=family,
        alpha=board.settings.alpha,
    )
