"""When a share metric's values above 1 are read as percentages (one problem for the
metric) rather than as values out of range (one problem each)."""

import pytest

from leaderboard.services.entries import PERCENT_MIN_VALUES, looks_like_percentages


@pytest.mark.parametrize(
    ("above_one", "finite", "expected"),
    [
        (PERCENT_MIN_VALUES, PERCENT_MIN_VALUES, True),
        (PERCENT_MIN_VALUES - 1, PERCENT_MIN_VALUES - 1, False),  # too few to say
        (5, 10, True),  # half of the values
        (5, 11, False),  # fewer than half: stray values among shares
        (1, 100, False),
    ],
)
def test_enough_values_and_at_least_half_above_one_are_percentages(above_one, finite, expected):
    assert looks_like_percentages(above_one, finite) is expected
