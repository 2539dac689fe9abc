"""Chart labels placed so that none overprints another (the Pareto chart's labels once
did)."""

from __future__ import annotations

from frontend.compare.label_place import Box, place_label

PLOT = Box(0.0, 0.0, 400.0, 300.0)


def test_two_labels_of_near_points_do_not_overprint():
    taken: list[Box] = []
    first = place_label(100.0, 100.0, "fast-good", taken=taken, within=PLOT)
    second = place_label(104.0, 102.0, "fast-better", taken=taken, within=PLOT)
    assert first is not None and second is not None
    assert not first.box.hits(second.box)
    assert taken == [first.box, second.box]


def test_labels_stay_inside_the_plot_and_turn_towards_its_middle():
    right = place_label(395.0, 150.0, "slow-best", taken=[], within=PLOT)
    assert right is not None and right.anchor == "end" and right.box.inside(PLOT)
    left = place_label(5.0, 150.0, "fastest", taken=[], within=PLOT)
    assert left is not None and left.anchor == "start" and left.box.inside(PLOT)


def test_no_free_spot_means_no_label():
    taken = [Box(-1000.0, -1000.0, 1000.0, 1000.0)]
    assert place_label(100.0, 100.0, "crowded", taken=taken, within=PLOT) is None
    assert len(taken) == 1
