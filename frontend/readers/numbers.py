"""How the reader's pages write numbers: a value, an interval whose ends stay apart, a
metric's decimals, the bars' scale (one definition, used by the table, its CSV-free
views and the charts; :mod:`frontend.readers.presenters` re-exports them)."""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["MAX_INTERVAL_DIGITS", "bar_scale", "interval_text", "number_text", "score_digits"]


def number_text(value: float | None, digits: int) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


MAX_INTERVAL_DIGITS = 9


def interval_text(low: float | None, high: float | None, digits: int) -> str:
    """ "low–high" at ``digits`` decimals, or at as many more (up to
    :data:`MAX_INTERVAL_DIGITS`) as tell two different ends apart: an interval of a tiny
    share (1e-7 to 3e-7) never reads as the point "0.000–0.000"."""
    if low is not None and high is not None and low != high:
        while digits < MAX_INTERVAL_DIGITS and f"{low:.{digits}f}" == f"{high:.{digits}f}":
            digits += 1
    return f"{number_text(low, digits)}–{number_text(high, digits)}"


def score_digits(values: Sequence[float | None]) -> int:
    """Decimals that show a metric's means to about three significant digits."""
    present = [abs(v) for v in values if v is not None and v != 0.0]
    if not present:
        return 3
    return max(0, min(6, 2 - math.floor(math.log10(max(present)))))


def bar_scale(highest: float) -> float:
    """The right end of the interval bars: a round number at or above ``highest``."""
    for end in (0.05, 0.1, 0.2, 0.25, 0.5):
        if highest <= end:
            return end
    return 1.0
