"""Where a point's label goes on a chart so that no two labels overprint (issue 28: the
Pareto front's labels did): the first free spot of a few around the point, inside the
plot; none free, no label (the table under the chart names every point)."""

from __future__ import annotations

from dataclasses import dataclass

# Estimated text box of an 11 px sans-serif label: DejaVu Sans averages about 6.3 px a
# character; the box runs from the ascender (9 px above the baseline) to the descender.
CHAR_PX = 6.6
ASCENT, DESCENT = 10.0, 3.0


@dataclass(frozen=True)
class Box:
    left: float
    top: float
    right: float
    bottom: float

    def hits(self, other: Box) -> bool:
        return (
            self.left < other.right
            and other.left < self.right
            and self.top < other.bottom
            and other.top < self.bottom
        )

    def inside(self, other: Box) -> bool:
        return (
            self.left >= other.left
            and self.right <= other.right
            and self.top >= other.top
            and self.bottom <= other.bottom
        )


@dataclass(frozen=True)
class Placed:
    x: float
    y: float  # the baseline
    anchor: str  # "start" or "end"
    box: Box


def place_label(
    cx: float, cy: float, label: str, *, taken: list[Box], within: Box, gap: float = 9.0
) -> Placed | None:
    """The first spot (right or left of the point, above or below it, the side towards the
    plot's middle first) whose box stays ``within`` and hits nothing ``taken``; the spot
    is then added to ``taken``."""
    width = len(label) * CHAR_PX
    middle = (within.left + within.right) / 2
    sides = ("end", "start") if cx > middle else ("start", "end")
    for anchor in sides:
        for y in (cy - 6, cy + 14):
            x = cx - gap if anchor == "end" else cx + gap
            left = x - width if anchor == "end" else x
            box = Box(left, y - ASCENT, left + width, y + DESCENT)
            if box.inside(within) and not any(box.hits(other) for other in taken):
                taken.append(box)
                return Placed(x, y, anchor, box)
    return None
