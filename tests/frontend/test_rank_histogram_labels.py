"""The rank histogram's position labels, which overprinted each other: on a 130-algorithm board
its 40 bars are 14.6 px wide and a bin's label ("102–105") about 42 px, so labels are
drawn only where they clear the previous one and the y axis's labels at the corner."""

from __future__ import annotations

import re
from itertools import pairwise

from frontend.explore.charts.algorithm import (
    LABEL_CHAR_PX,
    LABEL_GAP_PX,
    PositionBar,
    draw_rank_histogram,
    labelled_bars,
)


def _bins(known: int = 130, bars: int = 40) -> list[str]:
    width = -(-(known - 1) // (bars - 1))
    labels = ["1"]
    for start in range(2, known + 1, width):
        stop = min(start + width - 1, known)
        labels.append(str(start) if stop == start else f"{start}–{stop}")
    return labels


def _spans(labels, shown, left, bar_w):
    out = []
    for index in sorted(shown):
        centre = left + (index + 0.5) * bar_w
        half = len(labels[index]) * LABEL_CHAR_PX / 2
        out.append((centre - half, centre + half))
    return out


def test_drawn_labels_clear_each_other_and_the_corner():
    labels = _bins()
    left, bar_w = 44.0, (628.0 - 44.0) / len(labels)
    shown = labelled_bars(labels, left, bar_w)
    assert 0 in shown and len(labels) - 1 in shown  # position 1 and the last bin
    spans = _spans(labels, shown, left, bar_w)
    assert spans[0][0] >= left - 6 + LABEL_GAP_PX  # clear of the y tick labels
    for (_, end), (start, _) in pairwise(spans):
        assert start >= end + LABEL_GAP_PX - 1e-9
    assert len(shown) >= 8  # still a readable scale: about every fifth bin


def test_the_last_label_is_kept_and_its_neighbour_gives_way():
    labels = [*_bins(120, 39), "below 120"]
    left, bar_w = 44.0, (628.0 - 44.0) / len(labels)
    shown = labelled_bars(labels, left, bar_w)
    assert len(labels) - 1 in shown
    spans = _spans(labels, shown, left, bar_w)
    for (_, end), (start, _) in pairwise(spans):
        assert start >= end + LABEL_GAP_PX - 1e-9


def test_few_wide_bars_are_all_labelled():
    labels = [str(p) for p in range(1, 11)]
    assert labelled_bars(labels, 44.0, 58.4) == set(range(10))


def test_the_drawn_histogram_has_the_chosen_labels_only():
    labels = _bins()
    chart = draw_rank_histogram([PositionBar(label, 1.0) for label in labels], "model-119")
    drawn = re.findall(r'<text[^>]*font-size="10"[^>]*>([^<]+)</text>', chart.svg)
    left, bar_w = 44.0, (628.0 - 44.0) / len(labels)
    expected = [labels[i] for i in sorted(labelled_bars(labels, left, bar_w))]
    assert [t for t in drawn if t in labels and t != "0"][-len(expected) :] == expected
