"""A readable terminal report of an analysis (what ``manage.py analyze`` prints)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from estimation.core.contract import (
    AdvisorPower,
    AdvisorSection,
    Board,
    BootstrapSummary,
    FoldsPower,
    HierarchicalComparison,
    MethodSensitivity,
    NemenyiSection,
    NemenyiSummary,
    NotApplicable,
    PracticalLeader,
    PracticalSection,
    RankIntervals,
    SnapshotPayload,
    Verdict,
    WilcoxonSection,
    WilcoxonSummary,
    WinInterval,
)
from estimation.core.practical import equivalence_sentence
from estimation.core.registry import estimator_get
from estimation.core.verdict import (
    board_order,
    evaluation_evidence,
    rank_span,
    shared_positions,
    win_band,
)
from estimation.core.wording import counted
from estimation.recommendation import evaluation_finding

MAX_MATRIX_ALGORITHMS = 12


def _number(value: Any, digits: int = 3) -> str:
    if value is None:
        return "n/a"
    return f"{value:.{digits}f}"


def _pvalue(value: Any) -> str:
    if value is None:
        return "n/a"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], align: str) -> list[str]:
    """A plain text table; ``align`` has one of '<' or '>' per column."""
    widths = [len(h) for h in headers]
    for row in rows:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=True)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            f"{cell:{a}{w}}" for cell, a, w in zip(cells, align, widths, strict=True)
        ).rstrip()

    return [line(headers), line(["-" * w for w in widths]), *(line(row) for row in rows)]


def _position_labels(board: Board, estimator: str, order: Sequence[int]) -> list[str]:
    """Each row's position as the leaderboard shows it: ``=4`` when rows share it."""
    positions = shared_positions(board, estimator, order)
    counts = Counter(positions)
    return [f"={p}" if counts[p] > 1 else str(p) for p in positions]


def render_report(payload: SnapshotPayload, *, source: str = "") -> str:
    board = payload.board
    facts = board.input
    algorithms = board.algorithms
    head = board.estimator(board.recommended)
    lines = [f"Podium analysis{f' of {source}' if source else ''}", ""]
    direction = {"higher": "higher is better", "lower": "lower is better", "rank": "rankings"}
    lines.append(
        f"{facts.n_datasets_used} of {counted(facts.n_datasets, 'dataset')} used, "
        f"{counted(len(algorithms), 'algorithm')}, {direction[facts.direction]}, "
        f"{'with' if facts.has_folds else 'no'} folds."
    )
    lines.extend(f"Note: {note}" for note in board.notes)
    lines.append("")

    verdict = board.verdict
    if isinstance(verdict, Verdict):
        lines += [*verdict.sentences[:2], ""]
    if board.recommended_by:
        lines += [board.recommended_by, ""]

    weights = head.weights
    weight_text = f", weights {' '.join(f'{w:.3f}' for w in weights)}" if weights else ""
    quantity = estimator_get(head.key).quantity
    what = "Probability of winning a new dataset" if quantity == "P(win)" else quantity
    lines.append(f"{what}: {estimator_get(head.key).label}{weight_text}")
    _, letters = board.letters()
    # every P(win) beside its own interval (win_band); the exact interval only beside the win rate
    band = win_band(board, head.key)
    boot = head.bootstrap if isinstance(head.bootstrap, BootstrapSummary) else None
    p_best = board.column(boot.p_best) if boot else {}
    wilson = board.win_interval if isinstance(board.win_interval, WinInterval) else None
    ranks = board.ranks if isinstance(board.ranks, RankIntervals) else None
    win_rate, mean_rank = board.column(board.win_rate), board.column(board.mean_rank)
    significance_rank = board.column(board.significance_rank)
    # The site's order and numbering (equal P(win) share "=4"), from the one rule.
    order = board_order(board, head.key)
    rows = []
    for position, i in zip(_position_labels(board, head.key, order), order, strict=True):
        name = algorithms[i]
        plausible = "*" if ranks and name in ranks.plausible_winners else ""
        rows.append(
            [
                position,
                rank_span(board, i) or "n/a",
                name + plausible,
                _number(head.p[i]),
                f"[{_number(band.lower[i])}, {_number(band.upper[i])}]" if band else "n/a",
                _number(p_best.get(name)),
                _number(win_rate[name]),
                f"[{_number(wilson.lower[i])}, {_number(wilson.upper[i])}]" if wilson else "n/a",
                _number(mean_rank.get(name), 2),
                _number(significance_rank.get(name), 2),
                letters.get(name, ""),
            ]
        )
    level = f"{ranks.level:.0%}".replace("%", " %") if ranks else ""
    rank_header = f"rank ({level})" if ranks else "rank"
    lines += _table(
        [
            "#",
            rank_header,
            "algorithm",
            estimator_get(head.key).quantity,
            band.label if band else "interval",
            "P(best)",
            "win rate",
            f"win rate {wilson.label}" if wilson else "win rate interval",
            "mean rank",
            "signif. rank",
            "group",
        ],
        rows,
        ">><>>>>>>><",
    )
    if ranks:
        of = (
            f"expected ranks, {ranks.question_words}"
            if ranks.question == "best_on_average"
            else estimator_get(ranks.estimator).label
        )
        lines.append(
            f"* candidate for best: in the {level} confidence set of the best "
            f"(simultaneous rank intervals of {of}: {ranks.method})"
        )
    elif isinstance(board.ranks, NotApplicable):
        lines.append(f"Rank intervals: not applicable ({board.ranks.reason})")
    lines.append("")

    lines.append("All estimators (probability of winning)")
    columns = {result.key: board.column(result.p) for result in board.estimators}
    rows = [[algorithms[i], *(_number(columns[s][algorithms[i]]) for s in columns)] for i in order]
    lines += _table(["algorithm", *columns], rows, "<" + ">" * len(columns))
    minimax = board.estimator("minimax")
    if minimax.bound is not None:
        lines.append(f"Minimax worst-case TV bound: {_number(minimax.bound)}")
    lines.append("")

    lines += robustness_section(payload)
    lines += _tests_section(payload)
    lines += _evaluation_section(payload)
    return "\n".join(lines).rstrip() + "\n"


def robustness_section(payload: SnapshotPayload) -> list[str]:
    """Whether the winner depends on the method, the ROPE verdict (signed-rank and, with
    folds, hierarchical) and how many more datasets would separate #1 from #2."""
    board = payload.board
    lines = ["Robustness"]
    if isinstance(board.sensitivity, MethodSensitivity):
        lines.append(f"  {board.sensitivity.sentence}")
    if isinstance(board.practical, PracticalLeader):
        sentence, _ = equivalence_sentence(board.practical)
        if sentence:
            lines.append(f"  {sentence}")
    elif isinstance(board.practical, NotApplicable):
        lines.append(f"  Practical equivalence: not applicable ({board.practical.reason}).")
    practical = payload.practical
    folds_power: FoldsPower | None = None
    if isinstance(practical, PracticalSection) and isinstance(
        practical.hierarchical, HierarchicalComparison
    ):
        h = practical.hierarchical
        lines.append(
            f"  Hierarchical model over datasets x folds (±{practical.rope:g}, {h.n_draws} "
            f"draws): P({h.leader} better / equivalent / other better)"
        )
        for v in h.versus:
            lines.append(
                f"    vs {v.algorithm}: {_number(v.leader_better)} / {_number(v.equivalent)} / "
                f"{_number(v.other_better)} ({v.n_datasets} datasets x {v.n_folds} folds"
                + (f", Monte-Carlo error {v.mc_se:.3f})" if v.mc_se is not None else ")")
            )
        if isinstance(h.folds_power, FoldsPower):
            folds_power = h.folds_power
    advisor = payload.advisor
    if isinstance(advisor, AdvisorSection):
        if isinstance(advisor.power, AdvisorPower):
            lines.append(f"  {advisor.power.sentence}")
        if isinstance(advisor.folds_power, FoldsPower):
            folds_power = advisor.folds_power  # also without a ROPE
    if folds_power is not None:
        lines.append(f"  {folds_power.sentence}")
    return [*lines, ""] if len(lines) > 1 else []


def _tests_section(payload: SnapshotPayload) -> list[str]:
    board = payload.board
    algorithms = board.algorithms
    lines = ["Tests across datasets"]
    friedman = board.friedman
    if isinstance(friedman, NotApplicable):
        lines.append(f"  Friedman: not applicable ({friedman.reason})")
    elif isinstance(friedman.iman_davenport, NotApplicable):
        lines.append(
            f"  Friedman chi2 = {_number(friedman.statistic)} (uncorrected "
            f"{_number(friedman.statistic_uncorrected)}), p = {_pvalue(friedman.pvalue)}, "
            f"exact p = {_pvalue(friedman.exact_pvalue)}; Iman-Davenport F: not applicable "
            f"({friedman.iman_davenport.reason})"
        )
    else:
        assert not isinstance(friedman.iman_davenport_pvalue, NotApplicable)
        lines.append(
            f"  Friedman chi2 = {_number(friedman.statistic)} (uncorrected "
            f"{_number(friedman.statistic_uncorrected)}), p = {_pvalue(friedman.pvalue)}; "
            f"Iman-Davenport F = {_number(friedman.iman_davenport)}, "
            f"p = {_pvalue(friedman.iman_davenport_pvalue)}"
        )
    nemenyi, nemenyi_pairs = board.nemenyi, payload.nemenyi
    if isinstance(nemenyi, NotApplicable):
        lines.append(f"  Nemenyi: not applicable ({nemenyi.reason})")
    elif isinstance(nemenyi, NemenyiSummary) and isinstance(nemenyi_pairs, NemenyiSection):
        if isinstance(nemenyi_pairs.groups, NotApplicable):
            groups = f"not shown ({nemenyi_pairs.groups.reason})"
        else:
            groups = (
                "; ".join(
                    ", ".join(algorithms[i] for i in group)
                    for group in nemenyi_pairs.groups
                    if len(group) > 1
                )
                or "none"
            )
        lines.append(
            f"  Nemenyi critical difference {_number(nemenyi.critical_difference)} "
            f"(alpha {nemenyi.alpha}); indistinguishable groups: {groups}"
        )
    wilcoxon, wilcoxon_pairs = board.wilcoxon, payload.wilcoxon
    if isinstance(wilcoxon, NotApplicable):
        lines.append(f"  Wilcoxon: not applicable ({wilcoxon.reason})")
    elif (
        isinstance(wilcoxon, WilcoxonSummary)
        and isinstance(wilcoxon_pairs, WilcoxonSection)
        and len(algorithms) <= MAX_MATRIX_ALGORITHMS
    ):
        m = len(algorithms)
        lines.append(f"  Wilcoxon signed-rank, {wilcoxon.correction}-corrected p-values:")
        rows = [
            [
                a,
                *(
                    "-" if i == j else _pvalue(wilcoxon_pairs.pvalues.get(i, j, m))
                    for j in range(m)
                ),
            ]
            for i, a in enumerate(algorithms)
        ]
        lines += [
            "    " + row for row in _table(["", *algorithms], rows, "<" + ">" * len(algorithms))
        ]
    elif isinstance(wilcoxon, WilcoxonSummary):
        lines.append(
            f"  Wilcoxon signed-rank ({wilcoxon.correction}): {len(algorithms)} algorithms; "
            "see --json for the pairwise p-values."
        )
    within = payload.within_dataset
    if isinstance(within, NotApplicable):
        lines.append(f"  Within datasets: not applicable ({within.reason})")
    else:
        lines.append(
            "  Within datasets (repeated-measures Tukey on folds): significance-aware mean "
            "rank shown above."
        )
    lines.append("")
    return lines


def _evaluation_section(payload: SnapshotPayload) -> list[str]:
    evaluation = payload.board.evaluation
    if isinstance(evaluation, NotApplicable):
        return [f"Which estimator predicts best: not applicable ({evaluation.reason})"]
    folds = (
        "leave-one-out"
        if evaluation.leave_one_out
        else f"{evaluation.n_folds}-fold x {evaluation.n_repeats}"
    )
    lines = [f"Which estimator predicts best here ({folds} over datasets; lower is better)"]
    log_loss = evaluation.log_loss
    schemes = sorted(log_loss, key=lambda s: _sort_key(log_loss[s]))
    rows = [
        [
            s,
            _number(log_loss[s]),
            _number(evaluation.brier.get(s)),
            _number(evaluation.tv.get(s)),
            _number(evaluation.win_share.get(s), 2),
            "reference" if s == "mle" else _pvalue(evaluation.pvalue_vs_mle.get(s)),
        ]
        for s in schemes
    ]
    lines += _table(
        ["scheme", "log loss", "Brier", "TV (improper)", "splits won", "p vs win rate"],
        rows,
        "<>>>>>",
    )
    lines.append(
        f"  Verdict: {evaluation_finding(evaluation)} (Nadeau-Bengio corrected t-test on log loss)."
    )
    if relation := evaluation_evidence(payload.board):
        lines.append(f"  {relation}")
    return lines


def _sort_key(value: Any) -> float:
    return float("inf") if value is None else value
