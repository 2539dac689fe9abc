"""The rows of one page of a leaderboard and their links (no database)."""

from __future__ import annotations

from dataclasses import fields

from frontend.readers.presenters import board_columns, leaderboard_board, leaderboard_rows


def board_table():
    """A three-algorithm board with the aggregate estimators (no bootstrap) as well."""
    from estimation.core.contract import EstimatorResult, NotApplicable
    from tests.frontend.test_chart_data import board

    base = board()
    off = NotApplicable("the bootstrap is switched off (0 replicates)")
    aggregates = tuple(
        EstimatorResult(key=key, p=(0.3, 0.5, 0.2), bootstrap=off, K=None, weights=None)
        for key in ("borda", "plackett_luce")
    )
    return leaderboard_board(board(estimators=base.estimators + aggregates))


def test_rows_of_one_page_keep_their_positions_and_the_whole_boards_scale():
    table = board_table()
    everything, scale = leaderboard_rows(table, "mle")
    assert [row.algorithm for row in everything] == ["B", "A", "C"]
    page, page_scale = leaderboard_rows(table, "mle", slice(1, 3))
    assert page == everything[1:3]
    assert [row.position for row in page] == [2, 3]
    # B's confidence interval (up to 0.95) sets the scale, though B is not on this page
    assert page_scale == scale == 1.0
    # the win rate's own interval is the exact interval on its win count
    assert (page[0].low, page[0].high, page[0].p_best, page[0].group) == (0.05, 0.6, 0.1, "ab")
    assert page[0].borda == 0.3 and page[0].plackett_luce == 0.3
    assert table.n_algorithms == 3 and table.group_test == "Nemenyi"
    assert "algorithms" not in {
        f.name for f in fields(table)
    }  # nothing per algorithm is built for the whole board


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


def test_interval_bars_are_svg_geometry_with_no_style_attribute():
    """The CSP refuses style attributes: the bar's positions live in SVG attributes."""
    import xml.etree.ElementTree as ET

    from frontend.readers.presenters import IntervalBar, interval_bar

    table = board_table()
    columns = [c for c in board_columns(table) if c.key in ("algorithm", "interval")]
    assert [c.key for c in columns] == ["algorithm", "interval"]
    rows, _ = leaderboard_rows(table, "mle")
    for row in rows:
        html = row.html(columns, "/a/")
        assert '<svg class="bar"' in html and "style=" not in html
    wide = ET.fromstring(interval_bar(IntervalBar(left="5.0", width="55.0", point="10.0")))
    rects = {rect.get("class"): rect.attrib for rect in wide.iter("rect")}
    assert set(rects) == {"range", "point"}
    assert (rects["range"]["x"], rects["range"]["width"]) == ("5.0%", "55.0%")
    assert rects["point"]["x"] == "10.0%"
    # A hair-thin interval keeps a 2 px sliver, as CSS's min-width did.
    thin = ET.fromstring(interval_bar(IntervalBar(left="40.0", width="0.0", point="40.0")))
    sliver = [r.attrib for r in thin.iter("rect") if r.get("class") == "range-min"]
    assert sliver == [
        {"class": "range-min", "x": "40.0%", "width": "2", "height": "100%", "rx": "1"}
    ]
