"""The estimators themselves: which predicts held-out datasets best, and the weights the
weighted ones give to each position."""

from __future__ import annotations

from dataclasses import dataclass

from estimation.core.contract import Board, NotApplicable
from estimation.core.registry import estimator_get
from estimation.recommendation import board_recommendation, evaluation_finding
from frontend.explore.charts import layout
from frontend.explore.charts.layout import (
    BLUE,
    GREEN,
    MUTED,
    Chart,
    fmt,
    fmt_p,
    rect,
    text,
)
from frontend.explore.charts.ordering import ESTIMATOR_ORDER, SHORT_LABELS


@dataclass(frozen=True)
class HeldOutLoss:
    """One loss (log loss or Brier) of every estimator, and the lowest one."""

    axis_label: str
    losses: tuple[float | None, ...]  # aligned with EstimatorEvaluationData.labels
    best: int


@dataclass(frozen=True)
class EstimatorEvaluationData:
    labels: tuple[str, ...] = ()  # short labels, in the registry's order
    panels: tuple[HeldOutLoss, ...] = ()  # log loss, then Brier
    tv: tuple[float | None, ...] = ()  # improper: in the table only
    win_share: tuple[float | None, ...] = ()
    pvalues_vs_mle: tuple[float | None, ...] = ()  # None for the win rate itself
    differences_vs_mle: tuple[float | None, ...] = ()
    reference: int = -1  # index of the win rate
    predicts_best: int | None = None  # the badge, only when it beats the win rate
    verdict: str = ""  # the evaluation's finding, by display name
    relation: str = ""  # how it relates to the board's recommended estimator
    folds: str = ""  # how the held-out datasets were chosen, in words
    not_applicable: str | None = None


@dataclass(frozen=True)
class EstimatorWeights:
    label: str
    weights: tuple[float, ...]
    fit: tuple[str, ...]  # e.g. "LOO loss 0.512 (win rate 0.530)"


def estimator_evaluation_data(board: Board) -> EstimatorEvaluationData:
    evaluation = board.evaluation
    if isinstance(evaluation, NotApplicable):
        return EstimatorEvaluationData(not_applicable=evaluation.reason)
    schemes = [s for s in ESTIMATOR_ORDER if s in evaluation.log_loss]

    def lowest(losses: dict[str, float | None]) -> int:
        values = [losses.get(s) for s in schemes]
        finite = [v for v in values if v is not None]
        return values.index(min(finite)) if finite else 0

    panels = (
        HeldOutLoss(
            "mean log loss (lower is better)",
            tuple(evaluation.log_loss.get(s) for s in schemes),
            schemes.index(evaluation.best) if evaluation.best in schemes else 0,
        ),
        HeldOutLoss(
            "mean Brier score (lower is better)",
            tuple(evaluation.brier.get(s) for s in schemes),
            lowest(evaluation.brier),
        ),
    )
    folds = (
        "leave-one-out over datasets"
        if evaluation.leave_one_out
        else f"{evaluation.n_folds}-fold cross-validation over datasets, "
        f"repeated {evaluation.n_repeats} times"
    )
    return EstimatorEvaluationData(
        labels=tuple(SHORT_LABELS[s] for s in schemes),
        panels=panels,
        tv=tuple(evaluation.tv.get(s) for s in schemes),
        win_share=tuple(evaluation.win_share.get(s) for s in schemes),
        pvalues_vs_mle=tuple(evaluation.pvalue_vs_mle.get(s) for s in schemes),
        differences_vs_mle=tuple(evaluation.difference_vs_mle.get(s) for s in schemes),
        reference=schemes.index("mle") if "mle" in schemes else -1,
        predicts_best=schemes.index(evaluation.predicts_best)
        if evaluation.predicts_best in schemes
        else None,
        verdict=evaluation_finding(evaluation),
        relation=board_recommendation(board).evaluation or "",
        folds=folds,
    )


def estimator_weights_data(board: Board) -> tuple[EstimatorWeights, ...]:
    rows = []
    for result in board.estimators:
        if not estimator_get(result.key).uses_top_k:
            continue
        fit = []
        if result.loss is not None or result.loss_mle is not None:
            fit.append(f"LOO loss {fmt(result.loss)} (win rate {fmt(result.loss_mle)})")
        if result.bound is not None:
            fit.append(f"bound {fmt(result.bound)} (win rate {fmt(result.bound_mle)})")
        assert result.weights is not None  # a top-k estimator's result has its weights
        rows.append(
            EstimatorWeights(estimator_get(result.key).label, tuple(result.weights), tuple(fit))
        )
    return tuple(rows)


def _tag(data: EstimatorEvaluationData, row: int) -> str:
    if row == data.reference:
        return "win rate (reference)"
    pvalue = data.pvalues_vs_mle[row]
    text_p = "p < 0.001" if fmt_p(pvalue) == "< 0.001" else f"p = {fmt_p(pvalue)}"
    return f"{text_p} vs win rate"


def draw_estimator_evaluation(data: EstimatorEvaluationData) -> Chart:
    key = "estimator-evaluation"
    title = "Which estimator predicts best here"
    if data.not_applicable is not None:
        return layout.not_applicable(key, title, data.not_applicable)
    labels = data.labels
    width = 640.0
    left = layout.label_width(labels, cap=250) + 8
    panel_w = (width - left - 16) / 2
    row_h = 26.0
    top = 34.0
    height = top + len(labels) * row_h + 40
    parts = []
    for index, panel in enumerate(data.panels):
        start = left + index * (panel_w + 12)
        end = start + panel_w - 40
        highest = max([v for v in panel.losses if v is not None] or [1.0])
        ticks = layout.nice_ticks(0.0, highest * 1.02, 4)
        x = layout.scale(0.0, ticks[-1], start, end)
        parts.append(text(start, 14, panel.axis_label, font_size=11, fill=MUTED))
        parts.append(layout.x_axis(ticks, x, top + len(labels) * row_h + 4, grid_top=top))
        for row, (label, value) in enumerate(zip(labels, panel.losses, strict=True)):
            y = top + row * row_h
            badge = index == 0 and row == data.predicts_best
            parts.append(
                f"<g>{layout.tooltip(f'{label}: {fmt(value)} ({_tag(data, row)})')}"
                + rect(
                    x(0),
                    y + 5,
                    x(value or 0) - x(0),
                    row_h - 10,
                    fill=GREEN if badge else BLUE,
                    fill_opacity="0.85",
                )
                + text(x(value or 0) + 4, y + row_h / 2 + 4, f"{fmt(value, 2)}", font_size=10)
                + "</g>"
            )
    for row, label in enumerate(labels):
        parts.append(text(left - 8, top + row * row_h + row_h / 2 + 4, label, text_anchor="end"))
    log_loss, brier = data.panels
    description = (
        f"Mean held-out log loss and Brier score of {len(labels)} estimators ({data.folds}); "
        f"lowest log loss: {labels[log_loss.best]}. Verdict: {data.verdict}."
    )
    table = layout.html_table(
        "Held-out losses of each estimator, with the Nadeau–Bengio test against the win rate",
        [
            "Estimator",
            "Log loss",
            "Brier",
            "TV (improper)",
            "Share of splits won",
            "vs win rate",
        ],
        [
            [
                label,
                fmt(log_loss.losses[row]),
                fmt(brier.losses[row]),
                fmt(data.tv[row]),
                fmt(data.win_share[row], 2),
                _tag(data, row),
            ]
            for row, label in enumerate(labels)
        ],
        key=key,
    )
    note = (
        f"Each estimator is fitted on the training datasets and scored on the held-out ones "
        f"({data.folds}). Every estimator is compared with the win rate by the Nadeau–Bengio "
        "corrected resampled t-test on the log loss, fixed in advance; an estimator is shown "
        "as predicting best only when it has the lowest log loss and beats the win rate "
        f"significantly. {data.verdict[:1].upper()}{data.verdict[1:]}. "
        + (f"{data.relation} " if data.relation else "")
        + "TV is an improper score and plays no part in the choice."
    )
    return layout.figure(key, title, description, width, height, "".join(parts), table, note)


FIT_CHAR_WIDTH = 6.0  # px of a 10 px character, with room (digits and brackets are wider)
WEIGHT_TICKS = (0.0, 0.5, 1.0)  # each panel's axis: weights are drawn on 0 to 1


def draw_estimator_weights(rows: tuple[EstimatorWeights, ...]) -> Chart:
    key = "estimator-weights"
    title = "Weights given to first, second, third… places"
    K = max(len(row.weights) for row in rows)
    width = 640.0
    panel_w = width / len(rows)
    top, plot_h = 36.0, 110.0
    height = top + plot_h + 40 + 13 * max(max((len(row.fit) for row in rows), default=1) - 1, 0)
    parts = []
    rows_alt = []
    for index, row in enumerate(rows):
        start = index * panel_w + 34
        end = (index + 1) * panel_w - 14
        bar_w = (end - start) / max(K, 1)
        y = layout.scale(WEIGHT_TICKS[0], WEIGHT_TICKS[-1], top + plot_h, top)
        label = row.label.replace("Leave-one-out", "LOO")
        parts.append(text(start, 16, layout.truncate(label, panel_w - 40), font_size=11))
        parts.append(
            layout.y_axis(
                WEIGHT_TICKS, y, start, grid_right=end, font_size=10, formatter="{:g}".format
            )
        )
        for j, weight in enumerate(row.weights):
            bx = start + j * bar_w + bar_w * 0.15
            parts.append(
                "<g>"
                + layout.tooltip(f"{row.label}: w{j + 1} = {weight:.3f}")
                + rect(bx, y(weight), bar_w * 0.7, y(0) - y(weight), fill=BLUE, fill_opacity="0.85")
                + text(
                    bx + bar_w * 0.35,
                    y(weight) - 3,
                    f"{weight:.2f}",
                    text_anchor="middle",
                    font_size=10,
                )
                + text(
                    bx + bar_w * 0.35,
                    top + plot_h + 14,
                    f"w{j + 1}",
                    text_anchor="middle",
                    font_size=10,
                    fill=MUTED,
                )
                + "</g>"
            )
        fit = "; ".join(row.fit)
        # One line per fit figure, cut to the panel: a longer one ran into the next panel
        # and past the chart's edge (issue 28).
        room = panel_w - 40
        for line_no, item in enumerate(row.fit):
            parts.append(
                text(
                    start,
                    top + plot_h + 32 + 13 * line_no,
                    layout.truncate(item, room, char_width=FIT_CHAR_WIDTH),
                    font_size=10,
                    fill=MUTED,
                )
            )
        rows_alt.append(
            [row.label, *[fmt(w) for w in row.weights], *([""] * (K - len(row.weights))), fit]
        )
    description = (
        "Bar charts of the weights each estimator gives to the first K positions: "
        + "; ".join(f"{alt[0]}: {', '.join(alt[1 : K + 1])}" for alt in rows_alt)
        + "."
    )
    table = layout.html_table(
        "Fitted weights of the weighted estimators",
        ["Estimator", *[f"w{j + 1}" for j in range(K)], "Fit"],
        rows_alt,
        key=key,
    )
    note = (
        "An estimator counts a dataset's k-th place with weight w_k; the win rate is w = (1, 0, 0). "
        "Leave-one-out weights are fitted to this benchmark; minimax weights depend only on "
        "the number of algorithms and datasets."
    )
    return layout.figure(key, title, description, width, height, "".join(parts), table, note)


def estimator_evaluation_chart(board: Board) -> Chart:
    """Held-out log loss and Brier score of each estimator, the badge's bar in green, and
    every estimator's test against the win rate."""
    return draw_estimator_evaluation(estimator_evaluation_data(board))


def estimator_weights_chart(board: Board) -> Chart:
    """The fitted weights w[1..K] of the LOO (KL, TV) and minimax estimators."""
    return draw_estimator_weights(estimator_weights_data(board))
