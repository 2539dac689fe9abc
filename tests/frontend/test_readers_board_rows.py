"""The rows of one page of a leaderboard and their links (no database)."""

from __future__ import annotations

from frontend.readers.presenters import leaderboard_board, leaderboard_rows


def test_rows_of_one_page_keep_their_positions_and_the_whole_boards_scale():
    from estimation.core.contract import EstimatorResult, NotApplicable
    from tests.frontend.test_chart_data import board

    base = board()
    off = NotApplicable("the bootstrap is switched off (0 replicates)")
    aggregates = tuple(
        EstimatorResult(key=key, p=(0.3, 0.5, 0.2), bootstrap=off, K=None, weights=None)
        for key in ("borda", "plackett_luce")
    )
    table = leaderboard_board(board(estimators=base.estimators + aggregates))
    everything, scale = leaderboard_rows(table, "mle")
    assert [row.algorithm for row in everything] == ["B", "A", "C"]
    page, page_scale = leaderboard_rows(table, "mle", slice(1, 3))
    assert page == everything[1:3]
    assert [row.position for row in page] == [2, 3]
    # B's confidence interval (up to 0.95) sets the scale, though B is not on this page
    assert page_scale == scale == 1.0
    # the bar is the Wilson interval for the win probability; the bootstrap band is the
    # spread of the estimate, in the details
    assert (page[0].low, page[0].high, page[0].p_best, page[0].group) == (0.05, 0.6, 0.1, "ab")
    assert (page[0].spread_low, page[0].spread_high) == (0.0, 0.5)
    assert page[0].text["spread"] == "0.000–0.500"
    assert page[0].borda == 0.3 and page[0].plackett_luce == 0.3
    assert table["n_algorithms"] == 3 and table["group_test"] == "Nemenyi"
    assert "algorithms" not in table  # nothing per algorithm is built for the whole board


def test_algorithm_links_quote_names_as_django_reverse_does():
    from django.urls import reverse

    from frontend.readers.views import algorithm_url_maker

    url = algorithm_url_maker("bench-1")
    for name in (
        "plain",
        "org/model-7b",
        "50% off?#x",
        "naïve bayes",
        "a b&c=d",
        '<script>"',
        "-",
        "//lead",
    ):
        expected = reverse("explore-algorithm", kwargs={"slug": "bench-1", "algorithm": name})
        assert url(name) == expected, name
