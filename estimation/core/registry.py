"""The estimators of the probability that an algorithm wins a new dataset: one list.

Every layer reads this registry (the engine, the snapshot contract, the API, the pages,
the exports and the command line), so an estimator is added, renamed or described here
and nowhere else. The order of :data:`ESTIMATORS` is the reading order of every table.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

__all__ = [
    "ESTIMATORS",
    "ESTIMATOR_KEYS",
    "PODIUM_DEFAULT_ESTIMATOR",
    "WIN_RATE_INTERVAL_KIND",
    "Estimator",
    "IntervalKind",
    "default_estimator_rule",
    "estimator_get",
    "interval_label",
]

IntervalKind = Literal["confidence", "spread"]


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
    estimand : str
        What the estimate tends to as datasets grow, in words: the quantity whose ranks
        the rank intervals cover (:mod:`estimation.core.rank_inference`).
    interval_kind : {"confidence", "spread"}
        What the estimator's own bootstrap interval may be called: "confidence" only
        when its measured coverage of the true win probability reaches 0.93 at nominal
        0.95 (the coverage table, bench/README.md "coverage"); otherwise "spread", the
        spread of the estimate. This field is the one place that decides.
    """

    key: str
    label: str
    short_label: str
    meaning: str
    uses_top_k: bool = False
    needs_scores: bool = False
    needs_folds: bool = False
    estimand: str = "probability of winning a new dataset"
    # What its number is called wherever it is shown: only estimators of the win
    # probability say "P(win)"; a Borda score or a worth share is no probability of winning.
    quantity: str = "P(win)"
    # Every estimator is a "spread" until the coverage table (bench/README.md
    # "coverage", `python -m bench coverage`) shows >= 0.93 at nominal 0.95 for it.
    interval_kind: IntervalKind = "spread"

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
        estimand=(
            "probability of winning a new dataset (log loss is a proper score, so the fitted "
            "weights tend to the win rate's as datasets grow)"
        ),
    ),
    Estimator(
        key="loo_brier",
        label="Leave-one-out weights (Brier score)",
        short_label="LOO (Brier)",
        meaning="Weights the top-K positions so as to predict held-out winners best, "
        "judged by the Brier score, a proper score (leave-one-out over datasets).",
        uses_top_k=True,
        estimand=(
            "probability of winning a new dataset (the Brier score is proper, so the fitted "
            "weights tend to the win rate's as datasets grow)"
        ),
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
        estimand=(
            "top-K shares of the population under the weights the TV loss tends to (TV is "
            "improper: not necessarily the win probability)"
        ),
    ),
    Estimator(
        key="minimax",
        label="Minimax weights",
        short_label="Minimax",
        meaning="Data-independent weights on the top-K positions, chosen to bound the "
        "worst-case error whatever the data look like.",
        uses_top_k=True,
        estimand=(
            "top-K shares of the population under the minimax weights for this number of datasets"
        ),
        quantity="minimax share",
    ),
    Estimator(
        key="mle",
        label="Win rate",
        short_label="Win rate",
        meaning="The share of datasets each algorithm won (a shared win counts 1/t): "
        "the plain win rate.",
        estimand="probability of winning a new dataset",
    ),
    Estimator(
        key="borda",
        label="Borda count",
        short_label="Borda",
        meaning="Points for every position (m − rank) as a share of all points: rewards "
        "being near the top everywhere, not only winning.",
        estimand="expected Borda share on a new dataset (the order of expected ranks)",
        quantity="Borda score",
    ),
    Estimator(
        key="plackett_luce",
        label="Plackett–Luce",
        short_label="Plackett–Luce",
        meaning="Fits a worth for each algorithm from whole rankings; its probability is "
        "its share of the total worth.",
        estimand=(
            "worth share of the Plackett–Luce model closest to the population (the win "
            "probability where the model holds)"
        ),
        quantity="PL worth share",
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


# The win rate's interval (Board.win_interval) is judged by the same rule. Wilson's, shown
# before engine 0.7.0, measured 0.845 at n = 10, m = 30 (it undercovers probabilities
# near 0; Brown, Cai & DasGupta 2001); the exact (Clopper-Pearson) interval that replaced
# it covers every p at least at the level for whole win counts (tests/core/test_intervals.py
# sums the binomial exactly), and the coverage table shows it at or above 0.93 in every
# cell, so it is a confidence interval.
WIN_RATE_INTERVAL_KIND: IntervalKind = "confidence"


def interval_label(kind: IntervalKind, level: float, *, source: str = "bootstrap") -> str:
    """The words readers see for an interval ("95 % confidence interval", or "95 %
    bootstrap spread" / "95 % exact spread" by ``source``): one wording for the page,
    the exports and the API."""
    name = "confidence interval" if kind == "confidence" else f"{source} spread"
    return f"{level:.0%} {name}".replace("%", " %")


PODIUM_DEFAULT_ESTIMATOR = "loo_kl"
"""Podium's default estimator: leave-one-out weights fitted by log loss, a proper score
(Painsky 2026's recommended estimator; METHODS.md section 2.1)."""


def default_estimator_rule(setting: str | None) -> tuple[str, str]:
    """The one rule that chooses a benchmark's default estimator, and the sentence that
    says which rule chose it: the maintainer's setting when there is one, else
    :data:`PODIUM_DEFAULT_ESTIMATOR`. The held-out evaluation and the advisor are shown
    beside it as evidence; they never change it (a default picked from the data it is
    judged on would flatter itself).

    ``setting`` is the benchmark's ``default_estimator`` (None: not set).
    """
    if setting is None or setting == PODIUM_DEFAULT_ESTIMATOR:
        label = estimator_get(PODIUM_DEFAULT_ESTIMATOR).short_label
        return PODIUM_DEFAULT_ESTIMATOR, (
            f"{label} is the default: Podium's default estimator (a proper score, fitted "
            "leave-one-out), which this benchmark keeps; a maintainer may choose another."
        )
    label = estimator_get(setting).short_label
    return setting, f"{label} is the default because the benchmark's maintainer chose it."
