"""A readable terminal report of an analysis (what ``manage.py analyze`` prints)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from estimation.core.contract import (
    AdvisorPower,
    AdvisorSection,
    Board,
    BootstrapSummary,
    EstimatorResult,
    FoldsPower,
    Friedman,
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
    WithinDatasetSection,
)
from estimation.core.practical import equivalence_sentence
from estimation.core.registry import estimator_get
from estimation.core.verdict import (
    WinBand,
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
    """The analysis as plain text: what was read and the verdict, the board, every
    estimator, then the robustness, tests and evaluation sections."""
    board = payload.board
    head = board.estimator(board.recommended)
    # The site's order and numbering (equal P(win) share "=4"), from the one rule.
    order = board_order(board, head.key)
    lines = [
        *_summary_lines(board, source),
        *_board_lines(board, head, order),
        *_estimators_lines(board, order),
        *robustness_section(payload),
        *_tests_section(payload),
        *_evaluation_section(payload),
    ]
    return "\n".join(lines).rstrip() + "\n"


_DIRECTION = {"higher": "higher is better", "lower": "lower is better", "rank": "rankings"}


def _summary_lines(board: Board, source: str) -> list[str]:
    """The title, what was read, the board's notes and the verdict's first two sentences."""
    facts = board.input
    lines = [
        f"Podium analysis{f' of {source}' if source else ''}",
        "",
        f"{facts.n_datasets_used} of {counted(facts.n_datasets, 'dataset')} used, "
        f"{counted(len(board.algorithms), 'algorithm')}, {_DIRECTION[facts.direction]}, "
        f"{'with' if facts.has_folds else 'no'} folds.",
        *(f"Note: {note}" for note in board.notes),
        "",
    ]
    if isinstance(board.verdict, Verdict):
        lines += [*board.verdict.sentences[:2], ""]
    if board.recommended_by:
        lines += [board.recommended_by, ""]
    return lines


def _board_lines(board: Board, head: EstimatorResult, order: Sequence[int]) -> list[str]:
    """The recommended estimator's table in the site's order, with its footnote."""
    estimator = estimator_get(head.key)
    weights = head.weights
    weight_text = f", weights {' '.join(f'{w:.3f}' for w in weights)}" if weights else ""
    what = (
        "Probability of winning a new dataset"
        if estimator.quantity == "P(win)"
        else estimator.quantity
    )
    columns = _BoardColumns.of(board, head)
    labels = _position_labels(board, head.key, order)
    rows = [columns.row(position, i) for position, i in zip(labels, order, strict=True)]
    return [
        f"{what}: {estimator.label}{weight_text}",
        *_table(
            columns.headers(estimator.quantity),
            rows,
            ">><>>" + (">" if columns.secondary else "") + ">>>>><",
        ),
        *_rank_intervals_note(board),
        "",
    ]


@dataclass(frozen=True)
class _BoardColumns:
    """What the board table shows beside each algorithm, read once from the board."""

    board: Board
    head: EstimatorResult
    band: WinBand | None  # every P(win) beside its own interval (win_band)
    p_best: dict[str, Any]
    wilson: WinInterval | None  # the exact interval, only beside the win rate
    ranks: RankIntervals | None
    win_rate: dict[str, Any]
    mean_rank: dict[str, Any]
    significance_rank: dict[str, Any]
    letters: dict[str, str]

    @classmethod
    def of(cls, board: Board, head: EstimatorResult) -> _BoardColumns:
        _, letters = board.letters()
        boot = head.bootstrap if isinstance(head.bootstrap, BootstrapSummary) else None
        return cls(
            board=board,
            head=head,
            band=win_band(board, head.key),
            p_best=board.column(boot.p_best) if boot else {},
            wilson=board.win_interval if isinstance(board.win_interval, WinInterval) else None,
            ranks=board.ranks if isinstance(board.ranks, RankIntervals) else None,
            win_rate=board.column(board.win_rate),
            mean_rank=board.column(board.mean_rank),
            significance_rank=board.column(board.significance_rank),
            letters=letters,
        )

    def headers(self, quantity: str) -> list[str]:
        ranks, band, wilson = self.ranks, self.band, self.wilson
        return [
            "#",
            f"rank ({_level(ranks)})" if ranks else "rank",
            "algorithm",
            quantity,
            band.label if band else "interval",
            *(["spread of the estimate"] if self.secondary else []),
            "P(best)",
            "win rate",
            f"win rate {wilson.label}" if wilson else "win rate interval",
            "mean rank",
            "signif. rank",
            "group",
        ]

    def row(self, position: str, i: int) -> list[str]:
        name = self.board.algorithms[i]
        band, wilson = self.band, self.wilson
        plausible = "*" if self.ranks and name in self.ranks.plausible_winners else ""
        return [
            position,
            rank_span(self.board, i) or "n/a",
            name + plausible,
            _number(self.head.p[i]),
            f"[{_number(band.lower[i])}, {_number(band.upper[i])}]" if band else "n/a",
            *([self._spread(i)] if self.secondary else []),
            _number(self.p_best.get(name)),
            _number(self.win_rate[name]),
            f"[{_number(wilson.lower[i])}, {_number(wilson.upper[i])}]" if wilson else "n/a",
            _number(self.mean_rank.get(name), 2),
            _number(self.significance_rank.get(name), 2),
            self.letters.get(name, ""),
        ]

    @property
    def secondary(self) -> bool:
        """Whether the band is the true P(win)'s, the estimate's spread a column of its own."""
        return self.band is not None and self.band.of_true_p_win

    def _spread(self, i: int) -> str:
        spread = self.band.spread if self.band else None
        low, high = (None, None) if spread is None else (spread.lower[i], spread.upper[i])
        if low is None or high is None:
            return "n/a"
        if round(low, 3) == round(high, 3):
            return "no variation"
        return f"[{_number(low)}, {_number(high)}]"


def _level(ranks: RankIntervals) -> str:
    return f"{ranks.level:.0%}".replace("%", " %")


def _rank_intervals_note(board: Board) -> list[str]:
    """The footnote to the starred candidates for best, or why there are none."""
    ranks = board.ranks
    if isinstance(ranks, RankIntervals):
        of = (
            f"expected ranks, {ranks.question_words}"
            if ranks.question == "best_on_average"
            else estimator_get(ranks.estimator).label
        )
        return [
            f"* candidate for best: in the {_level(ranks)} confidence set of the best "
            f"(simultaneous rank intervals of {of}: {ranks.method})"
        ]
    if isinstance(ranks, NotApplicable):
        return [f"Rank intervals: not applicable ({ranks.reason})"]
    return []


def _estimators_lines(board: Board, order: Sequence[int]) -> list[str]:
    """Every estimator's P(win) side by side, with minimax's worst-case bound."""
    algorithms = board.algorithms
    columns = {result.key: board.column(result.p) for result in board.estimators}
    rows = [[algorithms[i], *(_number(columns[s][algorithms[i]]) for s in columns)] for i in order]
    lines = [
        "All estimators (probability of winning)",
        *_table(["algorithm", *columns], rows, "<" + ">" * len(columns)),
    ]
    minimax = board.estimator("minimax")
    if minimax.bound is not None:
        lines.append(f"Minimax worst-case TV bound: {_number(minimax.bound)}")
    lines.append("")
    return lines


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
    """Friedman, Nemenyi, the pairwise Wilcoxon tests and the within-dataset test."""
    return [
        "Tests across datasets",
        _friedman_line(payload.board.friedman),
        *_nemenyi_lines(payload),
        *_wilcoxon_lines(payload),
        _within_datasets_line(payload.within_dataset),
        "",
    ]


def _friedman_line(friedman: Friedman | NotApplicable) -> str:
    if isinstance(friedman, NotApplicable):
        return f"  Friedman: not applicable ({friedman.reason})"
    if isinstance(friedman.iman_davenport, NotApplicable):
        return (
            f"  Friedman chi2 = {_number(friedman.statistic)} (uncorrected "
            f"{_number(friedman.statistic_uncorrected)}), p = {_pvalue(friedman.pvalue)}, "
            f"exact p = {_pvalue(friedman.exact_pvalue)}; Iman-Davenport F: not applicable "
            f"({friedman.iman_davenport.reason})"
        )
    assert not isinstance(friedman.iman_davenport_pvalue, NotApplicable)
    return (
        f"  Friedman chi2 = {_number(friedman.statistic)} (uncorrected "
        f"{_number(friedman.statistic_uncorrected)}), p = {_pvalue(friedman.pvalue)}; "
        f"Iman-Davenport F = {_number(friedman.iman_davenport)}, "
        f"p = {_pvalue(friedman.iman_davenport_pvalue)}"
    )


def _nemenyi_lines(payload: SnapshotPayload) -> list[str]:
    algorithms = payload.board.algorithms
    nemenyi, nemenyi_pairs = payload.board.nemenyi, payload.nemenyi
    if isinstance(nemenyi, NotApplicable):
        return [f"  Nemenyi: not applicable ({nemenyi.reason})"]
    if not (isinstance(nemenyi, NemenyiSummary) and isinstance(nemenyi_pairs, NemenyiSection)):
        return []
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
    return [
        f"  Nemenyi critical difference {_number(nemenyi.critical_difference)} "
        f"(alpha {nemenyi.alpha}); indistinguishable groups: {groups}"
    ]


def _wilcoxon_lines(payload: SnapshotPayload) -> list[str]:
    """The matrix of corrected p-values, or where it would be too wide, where to find them."""
    algorithms = payload.board.algorithms
    wilcoxon, wilcoxon_pairs = payload.board.wilcoxon, payload.wilcoxon
    if isinstance(wilcoxon, NotApplicable):
        return [f"  Wilcoxon: not applicable ({wilcoxon.reason})"]
    if not isinstance(wilcoxon, WilcoxonSummary):
        return []
    if not isinstance(wilcoxon_pairs, WilcoxonSection) or len(algorithms) > MAX_MATRIX_ALGORITHMS:
        return [
            f"  Wilcoxon signed-rank ({wilcoxon.correction}): {len(algorithms)} algorithms; "
            "see --json for the pairwise p-values."
        ]
    m = len(algorithms)
    rows = [
        [a, *("-" if i == j else _pvalue(wilcoxon_pairs.pvalues.get(i, j, m)) for j in range(m))]
        for i, a in enumerate(algorithms)
    ]
    return [
        f"  Wilcoxon signed-rank, {wilcoxon.correction}-corrected p-values:",
        *("    " + row for row in _table(["", *algorithms], rows, "<" + ">" * m)),
    ]


def _within_datasets_line(within: WithinDatasetSection | NotApplicable) -> str:
    if isinstance(within, NotApplicable):
        return f"  Within datasets: not applicable ({within.reason})"
    tables = [entry.standard_errors for entry in within.datasets if entry.standard_errors]
    by_errors = len(tables)
    if not by_errors:
        return (
            "  Within datasets (repeated-measures Tukey on folds): significance-aware mean "
            "rank shown above."
        )
    on_folds = len(within.datasets) - by_errors
    return (
        f"  Within datasets (repeated-measures Tukey on folds: {on_folds}; z-tests by the "
        f"files' standard errors, {tables[0].correction.capitalize()} per dataset: "
        f"{by_errors}): "
        "significance-aware mean rank shown above."
    )


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
