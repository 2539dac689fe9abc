"""One recommendation per board: the held-out evaluation and the advisor are
told as evidence about the recommended estimator, in display names, never by key."""

from __future__ import annotations

import dataclasses

from estimation.recommendation import board_recommendation, evaluation_finding
from frontend.explore.charts.estimators import (
    draw_estimator_evaluation,
    estimator_evaluation_data,
)
from tests.frontend.test_chart_data import board

KEYS = ("loo_kl", "mle", "plackett_luce")


def _no_keys(text: str) -> None:
    for key in KEYS:
        assert key not in text, (key, text)


def test_the_evaluation_favouring_another_estimator_is_evidence_not_a_recommendation():
    typed = board()  # recommends the win rate; the evaluation favours LOO (log loss)
    found = board_recommendation(typed)
    assert found.key == "mle" and found.label == "Win rate"
    assert found.evaluation is not None
    assert found.evaluation.startswith("The held-out evaluation finds that LOO (log loss)")
    assert "stays the default because a rule fixed before the data are seen" in found.evaluation
    _no_keys(found.evaluation)


def test_the_evaluation_agreeing_says_so_once():
    typed = board(recommended="loo_kl")
    assert board_recommendation(typed).evaluation == (
        "The held-out evaluation agrees: LOO (log loss) predicts held-out winners best here."
    )


def test_the_evaluations_finding_names_estimators_by_their_display_names():
    typed = board()
    assert evaluation_finding(typed.evaluation) == (
        "Leave-one-out weights (log loss) predicts held-out datasets best here: the lowest "
        "held-out log loss, better than the win rate (Nadeau–Bengio p = 0.03)"
    )
    none = dataclasses.replace(typed.evaluation, predicts_best=None)
    assert evaluation_finding(none) == "no estimator predicts clearly better than the win rate here"


def test_the_evaluation_chart_speaks_of_the_recommendation_without_keys():
    data = estimator_evaluation_data(board())
    assert data.relation.startswith("The held-out evaluation finds")
    chart = draw_estimator_evaluation(data)
    assert "Win rate stays the default" in chart.note
    _no_keys(chart.note)
    _no_keys(chart.description)
