"""One recommendation per board, and how the rest of the evidence relates to it.

The rule (``estimation.core.registry.default_estimator_rule``, written out in README's
"Reading a leaderboard"): a board recommends the estimator its maintainer chose, else
Podium's default, leave-one-out weights fitted on log loss. The verdict, the badge, the
exports and the first screen all speak of that estimator. The held-out evaluation and the
advisor's simulations are evidence about it, never a second recommendation: each is told
in one sentence that relates it to the recommended estimator, and every sentence a reader
sees names estimators by their display names (``estimation.core.registry``), not by the
keys the API uses.
"""

from __future__ import annotations

from dataclasses import dataclass

from estimation.core.contract import AdvisorSection, Board, Evaluation, NotApplicable
from estimation.core.registry import estimator_get
from estimation.core.resampling import NO_CLEAR_WINNER
from estimation.core.verdict import advisor_evidence, evaluation_evidence


@dataclass(frozen=True)
class Recommendation:
    """The board's recommended estimator, the rule that chose it, and one sentence each
    on what the held-out evaluation and the advisor found about it (None: nothing to
    say, or not computed)."""

    key: str
    label: str
    rule: str
    evaluation: str | None
    advisor: str | None


def board_recommendation(
    board: Board, advisor: AdvisorSection | NotApplicable | None = None
) -> Recommendation:
    return Recommendation(
        key=board.recommended,
        label=estimator_get(board.recommended).label,
        rule=board.recommended_by,
        evaluation=evaluation_evidence(board),
        advisor=advisor_evidence(board, advisor) if isinstance(advisor, AdvisorSection) else None,
    )


def evaluation_finding(evaluation: Evaluation) -> str:
    """What the held-out evaluation found, by display name (its stored ``verdict`` names
    the estimator by key: "plackett_luce predicts best here")."""
    best = evaluation.predicts_best
    if best is None:
        return NO_CLEAR_WINNER
    pvalue = evaluation.pvalue_vs_mle.get(best)
    test = f" (Nadeau–Bengio p = {pvalue:.3g})" if pvalue is not None else ""
    return (
        f"{estimator_get(best).label} predicts held-out datasets best here: the lowest "
        f"held-out log loss, better than the win rate{test}"
    )
