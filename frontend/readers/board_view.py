"""Typed view models of the reader pages: what a leaderboard shows, built once from the
snapshot's typed board section (``estimation.core.contract.Board``) by
:func:`frontend.readers.presenters.leaderboard_board`, and read by presenters, views and
templates as attributes (no board dicts between the layers)."""

from __future__ import annotations

from dataclasses import dataclass

from estimation.core.contract import Board
from estimation.core.registry import estimator_get


@dataclass(frozen=True)
class EstimatorView:
    """One estimator of the board, in the registry's words."""

    key: str
    label: str
    description: str

    @property
    def quantity(self) -> str:
        """What its number is called ("P(win)", "Borda score", ...): the registry's word."""
        return estimator_get(self.key).quantity


@dataclass(frozen=True)
class EstimatorChoice:
    """An estimator as the switcher offers it: the page and fragment links that pick it."""

    estimator: EstimatorView
    selected: bool
    recommended: bool
    url: str
    fragment_url: str

    @property
    def key(self) -> str:
        return self.estimator.key

    @property
    def label(self) -> str:
        return self.estimator.label

    @property
    def description(self) -> str:
        return self.estimator.description


@dataclass(frozen=True)
class BoardView:
    """What a leaderboard shows besides its rows, and the typed board the rows come from."""

    typed: Board
    recommended: str
    recommended_by: str
    # How the held-out evaluation relates to the recommended estimator, one sentence
    # (estimation.recommendation); the verdict carries it when it speaks of that one.
    evaluation_note: str | None
    uncertainty_pending: bool  # served before its bootstrap and evaluation
    estimators: tuple[EstimatorView, ...]
    n_algorithms: int
    has_mean_rank: bool
    has_significance_rank: bool
    has_scores: bool
    group_test: str | None  # the test whose letters the table shows, None: no letters
    notes: tuple[str, ...]

    def estimator(self, key: str) -> EstimatorView:
        return next(e for e in self.estimators if e.key == key)
