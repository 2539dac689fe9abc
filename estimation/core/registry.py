"""The estimators of the probability that an algorithm wins a new dataset: one list.

Every layer reads this registry (the engine, the snapshot contract, the API, the pages,
the exports and the command line), so an estimator is added, renamed or described here
and nowhere else. The order of :data:`ESTIMATORS` is the reading order of every table.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["ESTIMATORS", "ESTIMATOR_KEYS", "Estimator", "estimator_get"]


@dataclass(frozen=True)
class Estimator:
    """One estimator as readers name and explain it.

    Attributes
    ----------
    key : str
        The stable identifier used in payloads, URLs and settings.
    label : str
        The name a table or a legend shows.
    short_label : str
        A short name for narrow places (chart axes, column headers).
    meaning : str
        One sentence a reader can act on: what the number rewards.
    uses_top_k : bool
        Whether it weights the first K positions of every ranking (K = ``k_used``).
    needs_scores, needs_folds : bool
        Whether it needs scores (not only rankings) or fold-level scores; none of the
        current estimators does, so each applies to every benchmark.
    """

    key: str
    label: str
    short_label: str
    meaning: str
    uses_top_k: bool = False
    needs_scores: bool = False
    needs_folds: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


ESTIMATORS: tuple[Estimator, ...] = (
    Estimator(
        key="loo_kl",
        label="Leave-one-out weights (log loss)",
        short_label="LOO (log loss)",
        meaning="Weights the top-K positions so as to predict held-out winners best "
        "(log loss, leave-one-out over datasets).",
        uses_top_k=True,
    ),
    Estimator(
        key="loo_brier",
        label="Leave-one-out weights (Brier score)",
        short_label="LOO (Brier)",
        meaning="Weights the top-K positions so as to predict held-out winners best, "
        "judged by the Brier score, a proper score (leave-one-out over datasets).",
        uses_top_k=True,
    ),
    Estimator(
        key="loo_tv",
        label="Leave-one-out weights (total variation)",
        short_label="LOO (TV)",
        meaning="Weights the top-K positions so as to predict held-out winners best, "
        "judged by total-variation distance (leave-one-out over datasets). The paper's "
        "estimator; TV is an improper score that rewards putting all the mass on the "
        "leader (METHODS.md section 2.1): prefer the log-loss or Brier weights.",
        uses_top_k=True,
    ),
    Estimator(
        key="minimax",
        label="Minimax weights",
        short_label="Minimax",
        meaning="Data-independent weights on the top-K positions, chosen to bound the "
        "worst-case error whatever the data look like.",
        uses_top_k=True,
    ),
    Estimator(
        key="mle",
        label="Win rate",
        short_label="Win rate",
        meaning="The share of datasets each algorithm won (a shared win counts 1/t): "
        "the plain win rate.",
    ),
    Estimator(
        key="borda",
        label="Borda count",
        short_label="Borda",
        meaning="Points for every position (m − rank) as a share of all points: rewards "
        "being near the top everywhere, not only winning.",
    ),
    Estimator(
        key="plackett_luce",
        label="Plackett–Luce",
        short_label="Plackett–Luce",
        meaning="Fits a worth for each algorithm from whole rankings; its probability is "
        "its share of the total worth.",
    ),
)

ESTIMATOR_KEYS: tuple[str, ...] = tuple(e.key for e in ESTIMATORS)
_BY_KEY = {e.key: e for e in ESTIMATORS}


def estimator_get(key: str) -> Estimator:
    """The registry entry of ``key``; a ``ValueError`` names the known keys."""
    try:
        return _BY_KEY[key]
    except KeyError:
        raise ValueError(f"estimator must be one of {list(ESTIMATOR_KEYS)}, got {key!r}") from None
