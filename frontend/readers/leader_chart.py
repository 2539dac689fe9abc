"""The history page's "leader over versions" chart: who led each ready stored version of
a metric, and by what estimate (the leader's P(win) under the estimator that version
recommends), drawn on the server as an SVG with a title, a description and a table of
the same points (no JavaScript).

It reads the history selector's entries (:func:`frontend.readers.selectors.
snapshot_history_rankings`, at most ``HISTORY_LIMIT`` versions, newest first) and draws
at most ``MAX_CHART_VERSIONS`` of them: a chart of more points than pixels says nothing
more, and the history table below lists every version read.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from estimation.core.registry import estimator_get
from frontend.readers.presenters import bar_scale, competition_ranks

MAX_CHART_VERSIONS = 60
LEADER_COLOURS = 8  # distinct colour classes (leader-0 … leader-7 in podium.css), reused

# The drawing, in viewBox units (the SVG scales to its box; text sizes are in podium.css).
WIDTH, HEIGHT = 720, 240
LEFT, RIGHT, TOP, BOTTOM = 52, 20, 36, 40
MAX_X_LABELS = 8  # version labels along the axis, evenly spaced: they never overlap
INSET = 18  # the first and last dots stand clear of the P(win) axis and its labels


@dataclass(frozen=True)
class LeaderPoint:
    version: int
    leader: str
    probability: float | None  # the leader's P(win) under ``estimator``
    estimator: str
    estimator_label: str
    changed: bool  # another algorithm led the ready version before this one
    ties: int  # how many algorithms share the lead (1: no tie)

    @property
    def probability_text(self) -> str:
        return "–" if self.probability is None else f"{self.probability:.3f}"

    @property
    def sentence(self) -> str:
        shared = f" (tied with {self.ties - 1} other)" if self.ties > 1 else ""
        return (
            f"v{self.version}: {self.leader}{shared} led, P(win) {self.probability_text} "
            f"by {self.estimator_label}"
        )


@dataclass(frozen=True)
class LeaderChart:
    points: tuple[LeaderPoint, ...]  # oldest first
    leaders: tuple[str, ...]  # each algorithm that led, in the order it first did
    older: int  # ready versions read but older than the chart shows

    @property
    def changes(self) -> int:
        return sum(point.changed for point in self.points)

    @property
    def title(self) -> str:
        return "Leader over versions"

    @property
    def description(self) -> str:
        if not self.points:
            return "No ready version yet."
        first, last = self.points[0], self.points[-1]
        led = Counter(point.leader for point in self.points)
        counts = ", ".join(f"{name} {led[name]}" for name in self.leaders)
        return (
            f"Versions {first.version} to {last.version} ({len(self.points)} ready): "
            f"the leader changed {self.changes} times; versions led: {counts}. "
            f"Latest: {last.sentence}."
        )

    def colour(self, leader: str) -> str:
        return f"leader-{self.leaders.index(leader) % LEADER_COLOURS}"

    @property
    def legend(self) -> tuple[tuple[str, str], ...]:
        return tuple((name, self.colour(name)) for name in self.leaders)

    def svg(self) -> str:
        """The chart's markup, every text escaped; geometry in attributes (the CSP
        refuses style attributes), colours in podium.css."""
        return _svg(self)


def leader_chart(entries: Sequence) -> LeaderChart:
    """The chart of the newest ``MAX_CHART_VERSIONS`` ready entries (newest first in)."""
    ready = [e for e in entries if e.probabilities]
    shown = list(reversed(ready[:MAX_CHART_VERSIONS]))
    points: list[LeaderPoint] = []
    for entry in shown:
        ranks = competition_ranks(entry.probabilities)
        leader = min(ranks, key=lambda name: (ranks[name], name))
        points.append(
            LeaderPoint(
                version=entry.version,
                leader=leader,
                probability=entry.probabilities[leader],
                estimator=entry.estimator,
                estimator_label=estimator_get(entry.estimator).label,
                changed=bool(points) and points[-1].leader != leader,
                ties=sum(1 for rank in ranks.values() if rank == 1),
            )
        )
    leaders = tuple(dict.fromkeys(point.leader for point in points))
    return LeaderChart(points=tuple(points), leaders=leaders, older=len(ready) - len(shown))


def _svg(chart: LeaderChart) -> str:
    points = chart.points
    top = bar_scale(max((p.probability or 0.0 for p in points), default=0.0))
    plot_w, plot_h = WIDTH - LEFT - RIGHT - 2 * INSET, HEIGHT - TOP - BOTTOM

    def x(k: int) -> float:
        at = plot_w / 2 if len(points) == 1 else plot_w * k / (len(points) - 1)
        return LEFT + INSET + at

    def y(value: float | None) -> float:
        return TOP + plot_h * (1 - (value or 0.0) / top)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="leader-chart" data-testid="leader-chart" viewBox="0 0 {WIDTH} {HEIGHT}" '
        'role="img" aria-labelledby="leader-chart-title leader-chart-desc">',
        f'<title id="leader-chart-title">{escape(chart.title)}</title>',
        f'<desc id="leader-chart-desc">{escape(chart.description)}</desc>',
    ]
    for tick in (0.0, top / 2, top):  # the P(win) axis
        parts.append(
            f'<line class="grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(tick):.1f}" '
            f'y2="{y(tick):.1f}"/><text class="tick" x="{LEFT - 6}" y="{y(tick) + 4:.1f}" '
            f'text-anchor="end">{tick:g}</text>'
        )
    # the axis's name above it, level: turned up it ran into the middle tick on a phone
    parts.append(f'<text class="axis" x="{LEFT}" y="{TOP - 12}">leader’s P(win)</text>')
    step = max(1, -(-len(points) // MAX_X_LABELS))
    for k in range(0, len(points), step):
        parts.append(
            f'<text class="tick" x="{x(k):.1f}" y="{HEIGHT - BOTTOM + 18}" '
            f'text-anchor="middle">v{points[k].version}</text>'
        )
    if len(points) > 1:
        path = " ".join(f"{x(k):.1f},{y(p.probability):.1f}" for k, p in enumerate(points))
        parts.append(f'<polyline class="leader-line" points="{path}"/>')
    for k, point in enumerate(points):
        parts.append(
            f'<circle class="leader-point {chart.colour(point.leader)}'
            f'{" changed" if point.changed else ""}" data-testid="leader-point" '
            f'data-point-version="{point.version}" data-leader="{escape(point.leader)}" '
            f'cx="{x(k):.1f}" cy="{y(point.probability):.1f}" r="{6 if point.changed else 4.5}">'
            f"<title>{escape(point.sentence)}</title></circle>"
        )
    parts.append("</svg>")
    return "".join(parts)
