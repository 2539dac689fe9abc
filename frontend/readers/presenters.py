"""Turn a snapshot's board into what a page shows: rows in reading order, plain sentences.

``leaderboard_board`` is the one description of a leaderboard, read from the typed board
section (estimation/core/contract/; estimator names and meanings come from the registry,
estimation/core/registry.py): the template ``readers/_leaderboard.html`` renders it on the
server, for the page and for the fragment that ``static/frontend/readers/leaderboard.js``
swaps in when a new version lands or the reader picks another estimator (the script
itself knows no columns and no estimators).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from html import escape
from itertools import pairwise
from typing import Any

from estimation.core.analysis import uncertainty_pending
from estimation.core.contract import (
    Board,
    BootstrapSummary,
    NotApplicable,
    RankIntervals,
    ScoreSummary,
    WinInterval,
)
from estimation.core.registry import estimator_get
from estimation.core.verdict import WinBand, board_order, rank_span, shared_positions, win_band
from estimation.recommendation import board_recommendation
from frontend.readers.board_view import BoardView, EstimatorView
from frontend.readers.numbers import (
    bar_scale,
    interval_text,
    number_text,
    score_digits,
)


def estimator_order(board: Board) -> list[str]:
    return list(board.estimator_keys)


def selected_estimator(board: Board, requested: str | None) -> str:
    """``requested`` when the board has it, else the benchmark's recommended one."""
    available = estimator_order(board)
    if requested in available:
        return requested
    return board.recommended if board.recommended in available else available[0]


def leaderboard_board(board: Board) -> BoardView:
    """What a leaderboard shows besides its rows: the estimators (label and meaning from
    the registry), which columns apply, the notes; and the typed board the rows are read
    from. Nothing here is built per algorithm: a page of a board of thousands costs what a
    small board does (see :func:`leaderboard_rows`)."""
    group_test, _ = _group_letters(board)
    evaluation = None if isinstance(board.evaluation, NotApplicable) else board.evaluation
    return BoardView(
        typed=board,
        recommended=board.recommended,
        recommended_by=board.recommended_by,
        evaluation_note=board_recommendation(board).evaluation if evaluation else None,
        # served before its bootstrap and evaluation: the page says so, and refetches
        uncertainty_pending=uncertainty_pending(board),
        estimators=tuple(
            EstimatorView(
                key=result.key,
                label=estimator_get(result.key).label,
                description=estimator_get(result.key).meaning,
            )
            for result in board.estimators
        ),
        n_algorithms=len(board.algorithms),
        has_mean_rank=_has_values(board.mean_rank),
        has_significance_rank=_has_values(board.significance_rank),
        has_scores=isinstance(board.scores, ScoreSummary),
        group_test=group_test,
        notes=tuple(reader_notes(board)),
    )


def _has_values(values: tuple[float | None, ...] | NotApplicable) -> bool:
    return not isinstance(values, NotApplicable) and len(values) > 0


# Beyond this many letters in one cell a reader cannot compare two cells at a glance
# (at 130 algorithms Nemenyi's groups overlap into 20-letter strings): the column goes,
# and the notes say why and where to look instead.
MAX_SHOWN_LETTERS = 4


def _group_letters(board: Board) -> tuple[str | None, tuple[str, ...] | None]:
    """The letters the table shows (Nemenyi's, else Wilcoxon's, aligned with the board's
    algorithms) and the test's name: :meth:`Board.letters` without the per-name dict.
    None when an algorithm would carry more than ``MAX_SHOWN_LETTERS``."""
    test, letters = _all_group_letters(board)
    if (
        letters is not None
        and max((len(cell or "") for cell in letters), default=0) > MAX_SHOWN_LETTERS
    ):
        return None, None
    return test, letters


def _all_group_letters(board: Board) -> tuple[str | None, tuple[str, ...] | None]:
    for test, summary in (("Nemenyi", board.nemenyi), ("Wilcoxon", board.wilcoxon)):
        letters = getattr(summary, "letters", None)
        if not isinstance(summary, NotApplicable) and isinstance(letters, tuple):
            return test, letters
    return None, None


@dataclass(frozen=True)
class Column:
    """One column of the leaderboard table: the one definition the header, the cells, the
    phone's per-row details and the sort links are all read from."""

    key: str
    label: str
    title: str = ""
    numeric: bool = True
    phone: bool = False  # stays in the row at phone width; the others go to its details
    sortable: bool = True
    descending: bool = False  # the first click sorts largest first (larger is better)

    @property
    def testid(self) -> str:
        return self.key.replace("_", "-")


COLUMNS: tuple[Column, ...] = (
    # on a phone the rank interval stays in the row and the position goes to its details
    Column("position", "#", "Position by the chosen estimator; equal P(win) share one"),
    # label and title from the board's rank intervals (table_legend)
    Column("ranks", "Rank", numeric=False, phone=True, sortable=False),
    Column("algorithm", "Algorithm", numeric=False, phone=True),
    Column(
        "probability",
        "P(win)",
        "Probability of winning a new dataset, by the chosen estimator",
        phone=True,
        descending=True,
    ),
    # label and title from the chosen estimator's own interval (table_legend)
    Column("interval", "Interval", numeric=False, phone=True, sortable=False),
    Column(
        "p_best",
        "P(best)",
        "Share of bootstrap replicates in which it has the highest probability",
        descending=True,
    ),
    Column(
        "win_rate", "Win rate", "Share of datasets won (a shared win counts 1/t)", descending=True
    ),
    Column("mean_score", "Mean score (SD)", "Mean of the metric over datasets (SD over datasets)"),
    Column("mean_rank", "Mean rank", "Average position over datasets (1 = best)"),
    Column(
        "significance_rank",
        "Signif. rank",
        "1 + number of algorithms significantly better within each dataset (Tukey on folds), "
        "averaged over datasets",
    ),
    Column("borda", "Borda", "Borda count as a probability", descending=True),
    Column(
        "plackett_luce", "Plackett–Luce", "Plackett–Luce worth as a probability", descending=True
    ),
    Column("group", "Group", numeric=False),
)
COLUMN_KEYS = tuple(column.key for column in COLUMNS)


def rank_interval_label(level: float) -> str:
    """What the pages call a rank interval ("95 % rank interval")."""
    return f"{level:.0%} rank interval".replace("%", " %")


PLAUSIBLE_MARK = "★"  # marks a plausible winner's row (the caption says what it means)


@dataclass(frozen=True)
class TableLegend:
    """What the table's interval and rank columns are, in the engine's own words: the
    chosen estimator's interval (:func:`estimation.core.verdict.win_band`, its label) and
    the board's rank intervals with the plausible winners (``Board.ranks``)."""

    estimator: str
    interval: WinBand | None
    interval_method: str  # how it was computed, in the engine's words
    interval_pending: bool  # no interval yet: the bootstrap is being computed
    ranks: RankIntervals | None
    ranks_reason: str  # why there are no rank intervals ("" when there are)
    ranks_pending: bool

    @property
    def interval_label(self) -> str:
        if self.interval is not None:
            return self.interval.label
        return "interval (being computed)" if self.interval_pending else "interval"

    @property
    def ranks_label(self) -> str:
        if self.ranks is None:
            return "Rank interval (being computed)" if self.ranks_pending else "Rank interval"
        return rank_interval_label(self.ranks.level)

    @property
    def ranks_title(self) -> str:
        if self.ranks is None:
            return f"Rank intervals: {self.ranks_reason}"
        if self.ranks.question == "best_on_average":
            return (
                f"Simultaneous {self.ranks_label} (1 = best) of the {self.ranks.target} "
                f"({self.ranks.question_words}): {self.ranks.method}"
            )
        by = estimator_get(self.ranks.estimator).label
        return (
            f"Simultaneous {self.ranks_label} (1 = best) of the {self.ranks.target}, by {by}: "
            f"{self.ranks.method}"
        )

    @property
    def ranks_question(self) -> str:
        """The question the rank column and the ★ answer, when it is not the P(win) of
        the table ("best on average across datasets")."""
        if self.ranks is None or self.ranks.question != "best_on_average":
            return ""
        return self.ranks.question_words

    @property
    def quantity(self) -> str:
        """What the table's number is called: "P(win)", or a Borda score, a worth share."""
        return estimator_get(self.estimator).quantity

    @property
    def ranks_of_another_estimator(self) -> bool:
        return (
            self.ranks is not None
            and self.ranks.question == "next_win"
            and self.ranks.estimator != self.estimator
        )

    @property
    def plausible_winners(self) -> tuple[str, ...]:
        return self.ranks.plausible_winners if self.ranks is not None else ()

    @property
    def plausible_sentence(self) -> str:
        """What the ★ on a row means, for the table's caption."""
        if self.ranks is None:
            return ""
        level = f"{self.ranks.level:.0%}".replace("%", " %")
        best = "best on average" if self.ranks.question == "best_on_average" else "best"
        return (
            f"{PLAUSIBLE_MARK}: with {level} confidence the {best} is one of the "
            f"{len(self.plausible_winners)} marked"
            if len(self.plausible_winners) > 1
            else f"{PLAUSIBLE_MARK}: with {level} confidence the {best} (the only candidate)"
        )


def _interval_method(board: Board, estimator: str, band: WinBand | None) -> str:
    """The method behind :func:`win_band`'s interval: the exact interval for the win rate when that
    is the band, else the estimator's own bootstrap."""
    if band is None:
        return ""
    wilson = board.win_interval
    if isinstance(wilson, WinInterval) and band.lower == wilson.lower:
        if band.of_true_p_win:
            return (
                f"{wilson.method}: the interval of the true P(win), from the win count; the "
                "estimate's own bootstrap spread is secondary (in each row's title)"
            )
        return wilson.method
    boot = board.estimator(estimator).bootstrap
    return boot.method if isinstance(boot, BootstrapSummary) else ""


def table_legend(board: Board, estimator: str) -> TableLegend:
    pending = uncertainty_pending(board)
    band = win_band(board, estimator)
    ranks = board.ranks
    return TableLegend(
        estimator=estimator,
        interval=band,
        interval_method=_interval_method(board, estimator, band),
        interval_pending=pending,
        ranks=ranks if isinstance(ranks, RankIntervals) else None,
        ranks_reason=ranks.reason if isinstance(ranks, NotApplicable) else "",
        ranks_pending=pending,
    )


def board_columns(
    board: BoardView, metric: str | None = None, legend: TableLegend | None = None
) -> list[Column]:
    """The columns this board shows, with the labels that depend on it (and, with
    ``legend``, on the chosen estimator)."""
    out = []
    for column in COLUMNS:
        if column.key == "mean_score":
            if not board.has_scores:
                continue
            name = metric or "score"
            column = replace(
                column,
                label=f"Mean {name} (SD)",
                title=f"Mean of {name} over datasets, with its standard deviation over datasets",
                descending=board.typed.input.direction == "higher",
            )
        elif column.key == "mean_rank" and not board.has_mean_rank:
            continue
        elif column.key == "significance_rank" and not board.has_significance_rank:
            continue
        elif column.key == "interval" and legend is not None:
            band = legend.interval
            column = replace(
                column,
                label=legend.interval_label,
                title=f"{band.label} of this {legend.quantity}: {legend.interval_method}"
                if band
                else "",
            )
        elif column.key == "probability" and legend is not None and legend.quantity != "P(win)":
            column = replace(
                column,
                label=legend.quantity,
                title=f"{legend.quantity} by the chosen estimator (not a probability of winning)",
            )
        elif column.key == "ranks" and legend is not None:
            column = replace(column, label=legend.ranks_label, title=legend.ranks_title)
        elif column.key == "group":
            if not board.group_test:
                continue
            column = replace(
                column,
                label=f"Group ({board.group_test})",
                title="Algorithms sharing a letter are not significantly different "
                f"({board.group_test})",
            )
        out.append(column)
    return out


@dataclass(frozen=True)
class LeaderboardRow:
    position: int
    algorithm: str
    probability: float | None
    low: float | None  # this estimator's own interval (verdict.win_band; its label in TableLegend)
    high: float | None
    p_best: float | None
    win_rate: float | None
    mean_rank: float | None
    significance_rank: float | None
    borda: float | None
    plackett_luce: float | None
    group: str
    bar: IntervalBar | None
    mean_score: float | None = None
    sd_score: float | None = None
    score_digits: int = 3
    tied: bool = False  # shares its position with another row
    rank_low: int | None = None  # the rank interval (Board.ranks), 1 = best
    rank_high: int | None = None
    rank_span: str | None = None  # as readers see it, "1–3" (verdict.rank_span)
    plausible: bool = False  # in the plausible-winners set
    ranks_pending: bool = False
    extra: tuple[tuple[str, str], ...] = ()  # (column key, text) of chosen metadata columns
    spread: str = ""  # the estimate's own spread, secondary to the interval (WinBand.spread)

    # Formatted once here: Django's floatformat costs ~20 µs a cell, 30 ms at m = 100.
    @property
    def text(self) -> dict[str, str]:
        score = number_text(self.mean_score, self.score_digits)
        if self.mean_score is not None and self.sd_score is not None:
            score += f" ({self.sd_score:.{self.score_digits}f})"
        return {
            "position": f"={self.position}" if self.tied else str(self.position),
            "algorithm": self.algorithm,
            "probability": number_text(self.probability, 3),
            "interval": interval_text(self.low, self.high, 3),
            "ranks": self.rank_text,
            "p_best": number_text(self.p_best, 2),
            "win_rate": number_text(self.win_rate, 3),
            "mean_score": score,
            "mean_rank": number_text(self.mean_rank, 2),
            "significance_rank": number_text(self.significance_rank, 2),
            "borda": number_text(self.borda, 3),
            "plackett_luce": number_text(self.plackett_luce, 3),
            "group": self.group or "–",
            **dict(self.extra),
        }

    @property
    def rank_text(self) -> str:
        if self.rank_span is None:
            return "…" if self.ranks_pending else "–"
        return self.rank_span

    def cells(self, columns: list[Column]) -> list[tuple[Column, str]]:
        text = self.text
        return [(column, text[column.key]) for column in columns]

    def html(self, columns: list[Column], url: str) -> str:
        """The row's ``<tr>``, every text escaped. Built here, not in the template: a
        template loop over cells costs ~1.5 ms a row, a page of 100 rows 150 ms."""
        text = self.text
        name = escape(self.algorithm)
        details = "".join(
            f"<div><dt>{escape(c.label)}</dt><dd>{escape(text[c.key])}</dd></div>"
            for c in columns
            if not c.phone
        )
        cells = []
        for column in columns:
            if column.key == "algorithm":
                more = (
                    '<details class="row-details" data-testid="row-details"><summary>details'
                    f'<span class="visually-hidden"> of {name}</span></summary><dl>{details}'
                    "</dl></details>"
                    if details
                    else ""
                )
                star = (
                    '<span class="plausible" data-testid="plausible-winner" title="plausible '
                    f'winner">{PLAUSIBLE_MARK}<span class="visually-hidden"> plausible winner'
                    "</span></span>"
                    if self.plausible
                    else ""
                )
                cells.append(
                    f'<th scope="row" class="algorithm"><a href="{escape(url)}">{name}</a>'
                    f"{star}{more}</th>"
                )
            elif column.key == "interval":
                bar = self.bar
                drawn = (
                    f'{interval_bar(bar)} <span class="ci">{escape(text["interval"])}</span>'
                    if bar
                    else '<span class="ci">–</span>'
                )
                title = f' title="{escape(self.spread)}"' if self.spread else ""
                cells.append(
                    f'<td class="interval" data-testid="cell-interval"{title}>{drawn}</td>'
                )
            else:
                css = ("num" if column.numeric else "") + ("" if column.phone else " secondary")
                cells.append(
                    f'<td class="{css.strip()}" data-testid="cell-{column.testid}">'
                    f"{escape(text[column.key])}</td>"
                )
        plausible = ' class="plausible-winner" data-plausible="1"' if self.plausible else ""
        return (
            f'<tr data-testid="leaderboard-row" data-algorithm="{name}"{plausible}>'
            f"{''.join(cells)}</tr>"
        )


# Below this share of the bar, an interval could be drawn narrower than 2 px (the bar is
# 4.5rem wide on a phone: 2 px is 2.8% of it); a 2 px sliver then keeps it visible.
THIN_INTERVAL_PERCENT = 3.0


@dataclass(frozen=True)
class IntervalBar:
    """An interval bar's geometry: percentages of the bar's width, as numbers in text."""

    left: str
    width: str
    point: str


def interval_bar(bar: IntervalBar) -> str:
    """The interval bar: a tiny SVG whose geometry is in ``x``/``width`` attributes.

    Positions are percentages of the bar, set in SVG attributes, not in ``style``: the
    Content-Security-Policy refuses style attributes. Colours and sizes are in podium.css
    (``.bar``)."""
    left, width, point = bar.left, bar.width, bar.point
    sliver = (
        f'<rect class="range-min" x="{left}%" width="2" height="100%" rx="1"/>'
        if float(width) < THIN_INTERVAL_PERCENT
        else ""
    )
    return (
        '<svg class="bar" aria-hidden="true">'
        f'<rect class="range" x="{left}%" width="{width}%" height="100%" rx="3"/>{sliver}'
        f'<rect class="point" x="{point}%" y="-25%" width="3" height="150%" rx="1.5"'
        ' transform="translate(-1)"/></svg>'
    )


def _ordered(probabilities: dict[str, float | None], names: list[str]) -> list[str]:
    return sorted(names, key=lambda name: (-(probabilities.get(name) or 0.0), name))


def _sorted_by(order: list[int], values: Sequence[Any], descending: bool) -> list[int]:
    """``order`` re-sorted by ``values`` (missing ones last), ties kept in ``order``."""
    present = [i for i in order if values[i] is not None]
    missing = [i for i in order if values[i] is None]
    present.sort(key=lambda i: values[i], reverse=descending)  # stable, also reversed
    return present + missing


@dataclass(frozen=True)
class _BoardColumns:
    """The board's per-algorithm columns for one estimator, each aligned with its
    algorithms (None where a column does not apply): what rows are read from."""

    names: tuple[str, ...]
    p: Sequence[float | None]
    interval: WinBand | None  # this estimator's own (verdict.win_band), labelled in TableLegend
    ranks: RankIntervals | None
    win_rate: Sequence[float | None]
    mean_rank: Sequence[float | None]
    significance_rank: Sequence[float | None]
    borda: Sequence[float | None]
    plackett_luce: Sequence[float | None]
    means: Sequence[float | None]
    sds: Sequence[float | None]
    p_best: Sequence[float | None]
    letters: tuple[str, ...] | None

    def sort_keys(self) -> dict[str, Sequence[Any]]:
        """What each sortable column sorts by."""
        return {
            "algorithm": self.names,
            "probability": self.p,
            "p_best": self.p_best,
            "win_rate": self.win_rate,
            "mean_score": self.means,
            "mean_rank": self.mean_rank,
            "significance_rank": self.significance_rank,
            "borda": self.borda,
            "plackett_luce": self.plackett_luce,
            "group": self.letters or (None,) * len(self.names),
        }

    def scale(self) -> float:
        """The bars' scale: every row's, not only a page's."""
        upper = self.interval.upper if self.interval else (None,) * len(self.names)
        return bar_scale(
            max((max(u or 0.0, q or 0.0) for u, q in zip(upper, self.p, strict=True)), default=0.0)
        )


def _board_columns_of(typed: Board, estimator: str) -> _BoardColumns:
    m = len(typed.algorithms)

    def values(column: tuple[Any, ...] | NotApplicable) -> Sequence[Any]:
        return (None,) * m if isinstance(column, NotApplicable) else column

    result = typed.estimator(estimator)
    scores = typed.scores if isinstance(typed.scores, ScoreSummary) else None
    boot = result.bootstrap
    return _BoardColumns(
        names=typed.algorithms,
        p=result.p,
        # Each number beside its interval: verdict.win_band is the one rule (the exact
        # interval of the true P(win) beside an estimate of P(win)), labelled by band.label.
        interval=win_band(typed, estimator),
        ranks=typed.ranks if isinstance(typed.ranks, RankIntervals) else None,
        win_rate=values(typed.win_rate),
        mean_rank=values(typed.mean_rank),
        significance_rank=values(typed.significance_rank),
        borda=typed.estimator("borda").p,
        plackett_luce=typed.estimator("plackett_luce").p,
        means=scores.mean if scores else (None,) * m,
        sds=scores.sd if scores else (None,) * m,
        p_best=boot.p_best if isinstance(boot, BootstrapSummary) else (None,) * m,
        letters=_group_letters(typed)[1],
    )


def _bar(low: float | None, high: float | None, p: float | None, scale: float):
    if low is None or high is None:
        return None
    return IntervalBar(
        left=f"{low / scale * 100:.1f}",
        width=f"{max(high - low, 0.0) / scale * 100:.1f}",
        point=f"{min((p or 0.0) / scale, 1.0) * 100:.1f}",
    )


def leaderboard_rows(
    board: BoardView,
    estimator: str,
    shown: slice | None = None,
    *,
    sort: str | None = None,
    descending: bool = False,
    keep: Collection[str] | None = None,
    extra: Mapping[str, tuple[tuple[str, str], ...]] | None = None,
    sort_values: Mapping[str, Sequence[float | None]] | None = None,
) -> tuple[list[LeaderboardRow], float]:
    """Rows for one estimator in the board's order (:func:`board_order`: P(win), then
    mean rank, then name), or sorted by the column ``sort``; and the bars' scale.

    ``board`` is :func:`leaderboard_board`'s. ``shown`` selects the rows of one page
    (positions stay those of the whole board, the scale that of every row); only those
    rows are built. ``extra`` is each algorithm's text of the chosen extra columns and
    ``sort_values`` (aligned with the board's algorithms) what those sort by.
    """
    typed = board.typed
    columns = _board_columns_of(typed, estimator)
    names, scale = columns.names, columns.scale()
    order = board_order(typed, estimator)
    positions = dict(zip(order, shared_positions(typed, estimator, order), strict=True))
    counts = Counter(positions.values())
    by_key = {**columns.sort_keys(), **(sort_values or {})}
    if sort in by_key:
        order = _sorted_by(order, by_key[sort], descending)
    elif sort == "position" and descending:
        order = order[::-1]
    if keep is not None:  # a reader's filter hides rows; positions stay the analysis's
        order = [i for i in order if names[i] in keep]
    ranks, pending = columns.ranks, uncertainty_pending(typed)
    plausible = set(ranks.plausible_winners) if ranks else set()
    digits = score_digits(columns.means)
    rows = []
    for i in order[shown if shown is not None else slice(None)]:
        low, high = (
            (columns.interval.lower[i], columns.interval.upper[i])
            if columns.interval
            else (None, None)
        )
        rows.append(
            LeaderboardRow(
                position=positions[i],
                algorithm=names[i],
                probability=columns.p[i],
                low=low,
                high=high,
                p_best=columns.p_best[i],
                win_rate=columns.win_rate[i],
                mean_rank=columns.mean_rank[i],
                significance_rank=columns.significance_rank[i],
                borda=columns.borda[i],
                plackett_luce=columns.plackett_luce[i],
                group=columns.letters[i] if columns.letters else "",
                bar=_bar(low, high, columns.p[i], scale),
                mean_score=columns.means[i],
                sd_score=columns.sds[i],
                score_digits=digits,
                tied=counts[positions[i]] > 1,
                rank_low=ranks.lower[i] if ranks else None,
                rank_high=ranks.upper[i] if ranks else None,
                rank_span=rank_span(typed, i),
                plausible=names[i] in plausible,
                ranks_pending=pending,
                extra=extra.get(names[i], ()) if extra else (),
                spread=columns.interval.spread_words(i) if columns.interval else "",
            )
        )
    return rows, scale


def reader_notes(board: Board) -> list[str]:
    """The engine's coverage notes, plus what does not apply, in plain words."""
    notes = list(board.notes)
    if isinstance(board.nemenyi, NotApplicable):
        notes.append(
            f"Groups of algorithms that cannot be told apart are not shown: {board.nemenyi.reason}."
        )
    if isinstance(board.mean_rank, NotApplicable):
        notes.append("Mean ranks need complete rankings, so they are not shown.")
    test, letters = _all_group_letters(board)
    longest = max((len(cell or "") for cell in letters), default=0) if letters else 0
    if longest > MAX_SHOWN_LETTERS:
        notes.append(
            f"{test}'s group letters are not shown: the groups overlap so much that an "
            f"algorithm would carry {longest} letters. The p-value grids on the charts page "
            "show which pairs the test separates."
        )
    return notes


def friedman_summary(board: Board) -> str:
    friedman = board.friedman
    if isinstance(friedman, NotApplicable):
        return f"Friedman test: not applicable ({friedman.reason})."
    verdict = "differ" if friedman.pvalue < board.settings.alpha else "do not clearly differ"
    iman_davenport = friedman.iman_davenport
    if isinstance(iman_davenport, NotApplicable):
        return (
            f"Friedman test: every dataset ranks the algorithms identically "
            f"(χ² = {friedman.statistic:.2f}, exact p = {friedman.exact_pvalue:.3g}); "
            "Iman–Davenport F does not apply (it would be infinite)."
        )
    return (
        f"Friedman test: the algorithms {verdict} "
        f"(χ² = {friedman.statistic:.2f}, p = {friedman.pvalue:.3g}; "
        f"Iman–Davenport F = {iman_davenport:.2f})."
    )


# --- history --------------------------------------------------------------------------


def competition_ranks(probabilities: dict[str, float | None]) -> dict[str, int]:
    """Position of each algorithm by probability, ties sharing the best position (1224)."""
    ranks: dict[str, int] = {}
    previous = None
    for index, name in enumerate(_ordered(probabilities, list(probabilities)), start=1):
        value = probabilities.get(name) or 0.0
        if previous is None or value != previous[1]:
            previous = (index, value)
        ranks[name] = previous[0]
    return ranks


@dataclass(frozen=True)
class Move:
    algorithm: str
    before: int
    after: int


@dataclass(frozen=True)
class RankChanges:
    """What changed from one ready version to the next one."""

    previous_version: int
    up: list[Move]
    down: list[Move]
    new: list[str]
    gone: list[str]
    estimator_changed: bool

    @property
    def is_empty(self) -> bool:
        return not (self.up or self.down or self.new or self.gone)


def rank_changes(
    *,
    previous_version: int,
    before: dict[str, float | None],
    after: dict[str, float | None],
    estimator_changed: bool = False,
) -> RankChanges:
    old, new = competition_ranks(before), competition_ranks(after)
    moves = [Move(name, old[name], new[name]) for name in new if name in old]
    return RankChanges(
        previous_version=previous_version,
        up=sorted((m for m in moves if m.after < m.before), key=lambda m: (m.after, m.algorithm)),
        down=sorted((m for m in moves if m.after > m.before), key=lambda m: (m.after, m.algorithm)),
        new=sorted((name for name in new if name not in old), key=lambda name: new[name]),
        gone=sorted(name for name in old if name not in new),
        estimator_changed=estimator_changed,
    )


@dataclass(frozen=True)
class HistoryRow:
    entry: Any
    leader: str | None
    changes: RankChanges | None


def history_rows(entries: list) -> list[HistoryRow]:
    """Newest first; each ready version compared with the ready version before it."""
    rows = []
    ready = [e for e in entries if e.probabilities is not None]
    older_ready = {newer.version: older for newer, older in pairwise(ready)}
    for entry in entries:
        leader = changes = None
        if entry.probabilities is not None:
            ranks = competition_ranks(entry.probabilities)
            leader = min(ranks, key=lambda name: (ranks[name], name)) if ranks else None
            older = older_ready.get(entry.version)
            if older is not None:
                changes = rank_changes(
                    previous_version=older.version,
                    before=older.probabilities,
                    after=entry.probabilities,
                    estimator_changed=older.estimator != entry.estimator,
                )
        rows.append(HistoryRow(entry=entry, leader=leader, changes=changes))
    return rows
