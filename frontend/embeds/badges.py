"""An algorithm's badge on one benchmark: a small SVG for a README, and its Markdown.

``badge_facts`` reads the leaderboard's own rows (:func:`frontend.readers.presenters.
leaderboard_rows`, so a badge never disagrees with the table): the rank interval
(``Board.ranks``), never a lone "#1" the data do not support; ``badge_svg`` draws it.
Every name is escaped: the SVG is plain XML whatever the algorithm is called.
"""

from __future__ import annotations

from dataclasses import dataclass

from estimation.core.contract import Board
from estimation.core.registry import estimator_get
from frontend.explore.charts.layout import escape
from frontend.readers.presenters import leaderboard_board, leaderboard_rows

LABEL_CHARS = 32  # a longer name is shortened on the badge (the full name is its title)
CHAR_WIDTH = 6.6  # average advance of an 11 px Verdana/DejaVu Sans character


@dataclass(frozen=True)
class BadgeFacts:
    algorithm: str
    algorithm_version: str
    benchmark: str
    rank: int | None  # position in the leaderboard (default estimator); None: not ranked
    of: int
    probability: float | None  # P(win) by the benchmark's recommended estimator
    results_version: int | None
    rank_span: str | None = None  # the rank interval, "1–3" (verdict.rank_span)
    ranks_pending: bool = False  # the rank intervals are being computed
    quantity: str = "P(win)"  # what the number is called (registry Estimator.quantity)
    # The interval the table shows beside the number (verdict.win_band), never a bare point.
    low: float | None = None
    high: float | None = None

    @property
    def rank_text(self) -> str:
        """'#1–3 of 8', '#2 of 8' when the interval is one rank; the bare position never
        (it would read as '#1' for an algorithm the data cannot separate from others)."""
        if self.rank_span is None:
            return "rank being computed" if self.ranks_pending else "no rank interval"
        return f"#{self.rank_span} of {self.of}"

    @property
    def value_text(self) -> str:
        if self.results_version is None:
            return "no results yet"
        if self.rank is None:
            return f"not ranked · v{self.results_version}"
        p = "–" if self.probability is None else f"{self.probability:.2f}"
        if self.probability is not None and self.low is not None and self.high is not None:
            p += f" ({self.low:.2f}–{self.high:.2f})"
        return f"{self.rank_text} · {self.quantity} {p} · v{self.results_version}"

    @property
    def label_text(self) -> str:
        name = self.algorithm + (f" {self.algorithm_version}" if self.algorithm_version else "")
        return name if len(name) <= LABEL_CHARS else name[: LABEL_CHARS - 1] + "…"

    @property
    def title(self) -> str:
        name = self.algorithm + (f" {self.algorithm_version}" if self.algorithm_version else "")
        return f"{name} on {self.benchmark}: {self.value_text}"


def badge_facts(
    *,
    board: Board | None,
    algorithm: str,
    algorithm_version: str,
    benchmark: str,
    results_version: int | None,
) -> BadgeFacts:
    """The algorithm's place under the benchmark's recommended estimator."""
    if board is None:
        return BadgeFacts(algorithm, algorithm_version, benchmark, None, 0, None, None)
    rows, _ = leaderboard_rows(leaderboard_board(board), board.recommended)
    row = next((r for r in rows if r.algorithm == algorithm), None)
    return BadgeFacts(
        algorithm=algorithm,
        algorithm_version=algorithm_version,
        benchmark=benchmark,
        rank=None if row is None else row.position,
        of=len(rows),
        probability=None if row is None else row.probability,
        results_version=results_version,
        rank_span=None if row is None else row.rank_span,
        ranks_pending=row is not None and row.ranks_pending,
        quantity=estimator_get(board.recommended).quantity,
        low=None if row is None else row.low,
        high=None if row is None else row.high,
    )


def _width(text: str) -> float:
    return round(len(text) * CHAR_WIDTH + 12, 1)


def badge_svg(facts: BadgeFacts) -> str:
    """A flat two-part badge (label grey, value blue), 20 px high."""
    label, value = facts.label_text, facts.value_text
    left, right = _width(label), _width(value)
    total = left + right
    colour = "#0072B2" if facts.rank is not None else "#5b6470"
    title = escape(facts.title)
    lx, rx = round(left / 2, 1), round(left + right / 2, 1)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{total}" height="20" '
        f'viewBox="0 0 {total} 20" role="img" aria-label="{title}">'
        f"<title>{title}</title>"
        f'<rect width="{left}" height="20" rx="3" fill="#3b4148"/>'
        f'<rect x="{left}" width="{right}" height="20" rx="3" fill="{colour}"/>'
        f'<rect x="{left}" width="4" height="20" fill="{colour}"/>'
        '<g fill="#ffffff" text-anchor="middle" '
        'font-family="Verdana, DejaVu Sans, Geneva, sans-serif" font-size="11">'
        f'<text x="{lx}" y="14">{escape(label)}</text>'
        f'<text x="{rx}" y="14">{escape(value)}</text>'
        "</g></svg>"
    )


def badge_markdown(*, badge_url: str, page_url: str, alt: str) -> str:
    """``[![alt](badge)](page)``, with the characters Markdown would read as syntax in the
    alt text escaped."""
    safe_alt = "".join("\\" + c if c in "\\[]()*_`<>!#" else c for c in alt)
    return f"[![{safe_alt}]({_link(badge_url)})]({_link(page_url)})"


def _link(url: str) -> str:
    """A URL Markdown keeps whole: parentheses and spaces percent-encoded (a server
    decodes them before routing, so the link goes to the same page)."""
    return url.replace("(", "%28").replace(")", "%29").replace(" ", "%20")
