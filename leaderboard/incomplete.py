"""What an algorithm with empty cells does to a board: the one rule, pure.

A benchmark's ``incomplete_submissions`` policy says what happens when an algorithm's
results do not cover every dataset the board analyses. The board's datasets are those
on which most of the algorithms that count (results on at least ``min_coverage`` of the
datasets, as the engine requires) have a result; an algorithm missing one of them is
*short*. The recompute (:mod:`estimation.tables`) and the three entry points' notice
(web form, file preview, API answer) all ask :func:`incomplete_decide`, and
:func:`incomplete_sentence` writes what the submitter reads.

A majority, not "every algorithm", so that one submission cannot take a dataset out of
the analysis (the issue: one blank cell dropped *liver disorders* for everyone), and
not "the newest" or "the oldest", so that the answer depends on the results only and a
recompute from scratch gives the same board.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

Policy = Literal["exclude", "rank_on_what_it_has", "drop_datasets"]
POLICIES: tuple[Policy, ...] = ("exclude", "rank_on_what_it_has", "drop_datasets")
Outcome = Literal["not_ranked", "ranked_last", "datasets_dropped"]


@dataclass(frozen=True, eq=False)
class IncompleteDecision:
    """The decision on one results table (datasets x algorithms).

    Attributes
    ----------
    board : ndarray of bool, shape (n,)
        The board's datasets: most counting algorithms have a result there.
    short : ndarray of bool, shape (m,)
        Counting algorithms without a result on some board dataset (empty when the
        policy is ``drop_datasets``, when the rule would leave fewer than two complete
        algorithms, or for a rank table).
    held_back : ndarray of bool, shape (m,)
        The short algorithms left out of the analysis (``exclude``).
    n_have : ndarray of int, shape (m,)
        Board datasets on which each algorithm has a result.
    """

    board: np.ndarray
    short: np.ndarray
    held_back: np.ndarray
    n_have: np.ndarray

    @property
    def n_board(self) -> int:
        return int(self.board.sum())


def incomplete_decide(
    present: np.ndarray, *, policy: str, min_coverage: float, ranks: bool = False
) -> IncompleteDecision:
    """Which datasets make the board and which algorithms fall short of them.

    Parameters
    ----------
    present : ndarray of bool, shape (n_datasets, n_algorithms)
        Whether each algorithm has a result on each dataset.
    policy : {"exclude", "rank_on_what_it_has", "drop_datasets"}
    min_coverage : float in [0, 1]
        The benchmark's threshold: algorithms below it do not vote (the engine leaves
        them out anyway).
    ranks : bool
        A rank table (published top-K lists): an unlisted position is not a missing
        result, so nobody is short.

    Notes
    -----
    A dataset is on the board when strictly more than half of the counting algorithms
    have a result there. If holding the short algorithms back would leave fewer than
    two, nobody is held back (the engine's ``missing`` policy then decides alone).
    """
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}; got {policy!r}")
    present = np.asarray(present, dtype=bool)
    if present.ndim != 2:
        raise ValueError(f"present must be a datasets x algorithms matrix, got {present.shape}")
    n, m = present.shape
    share = present.mean(axis=0) if n else np.zeros(m)
    voters = (share >= min_coverage) & (share > 0)
    board = present[:, voters].sum(axis=1) * 2 > voters.sum()
    n_have = present[board].sum(axis=0).astype(np.int64)
    short = voters & (n_have < board.sum())
    if ranks or policy == "drop_datasets" or not board.any() or (voters & ~short).sum() < 2:
        short = np.zeros(m, dtype=bool)
    held_back = short if policy == "exclude" else np.zeros(m, dtype=bool)
    return IncompleteDecision(board=board, short=short, held_back=held_back, n_have=n_have)


def incomplete_outcome(*, policy: str, missing_policy: str) -> Outcome:
    """What an empty cell does under the benchmark's two settings."""
    if policy == "exclude":
        return "not_ranked"
    if policy == "rank_on_what_it_has" or missing_policy == "worst":
        return "ranked_last"
    return "datasets_dropped"


def incomplete_sentence(*, n_empty: int, n_board: int, outcome: Outcome) -> str | None:
    """The sentence a submitter reads before their empty cells are stored (None: none)."""
    if n_empty <= 0:
        return None
    cells = f"{n_empty} empty cell{'' if n_empty == 1 else 's'}"
    those = "that dataset" if n_empty == 1 else "those datasets"
    consequence = {
        "not_ranked": "your algorithm will not be ranked until it has results on all "
        f"{n_board} datasets",
        "ranked_last": f"your algorithm will be ranked last on {those}",
        "datasets_dropped": f"{those} will be left out of the analysis for every algorithm",
    }[outcome]
    return f"{cells}: under this benchmark's policy {consequence}."


def not_ranked_label(*, n_have: int, n_board: int) -> str:
    """How the board lists an algorithm held back for empty cells."""
    return f"not ranked: results on {n_have} of {n_board} datasets"
