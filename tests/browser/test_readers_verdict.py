"""What readers asked for: the verdict on each demo, sorting, search, the phone layout, and
every CSV export read by pandas as is."""

from __future__ import annotations

import io
import re

import pandas as pd
import pytest
from playwright.sync_api import expect

from estimation.core.verdict import board_order, board_verdict, leader_interval, win_band
from tests.browser import helpers
from tests.browser.helpers import DEMO_SLUGS

PHONE_390 = {"width": 390, "height": 844}


def _board(slug: str):
    from estimation.selectors import SnapshotSections, snapshot_latest
    from leaderboard.models import Benchmark

    benchmark = Benchmark.objects.get(slug=slug)
    metric = benchmark.metrics.get(is_primary=True)
    return SnapshotSections(snapshot_latest(benchmark=benchmark, metric=metric))["board"]


@pytest.mark.parametrize("slug", DEMO_SLUGS)
def test_the_verdict_answers_on_each_demo(demo_site, page, screenshot, slug):
    board = _board(slug)
    verdict = board_verdict(board)
    page.goto(demo_site.url("benchmark-leaderboard", slug))
    box = page.locator("[data-testid=verdict]")
    expect(box).to_be_visible()
    expect(box).to_have_attribute("data-leader", verdict.leader)
    # the leader is the first row, and the verdict quotes a confidence interval of its
    # true P(win): its own band where that is one, else the exact interval
    expect(helpers.leaderboard_rows(page).first).to_have_attribute("data-algorithm", verdict.leader)
    low, high = leader_interval(board)
    band = win_band(board, board.recommended)
    if band is not None and band.kind != "confidence" and board.win_interval:
        i = board.algorithms.index(verdict.leader)
        low, high = board.win_interval.lower[i], board.win_interval.upper[i]
        expect(box).to_contain_text("confidence interval of the true P(win)")
    if low is not None:
        expect(box).to_contain_text(f"{low:.3f}–{high:.3f}")
    expect(box).to_contain_text(f"{board.input.n_datasets_used}")
    assert "inf" not in page.locator("main").inner_text().split()
    assert "nan" not in page.locator("main").inner_text().lower().split()
    screenshot(page, "desktop")


def test_the_demsar_verdict_says_the_estimators_disagree_and_why(demo_site, page, screenshot):
    page.goto(demo_site.url("benchmark-leaderboard", "demsar-2006"))
    box = page.locator("[data-testid=verdict]")
    expect(box).to_have_attribute("data-leader", "C4.5+m")
    expect(box).to_contain_text("The estimators disagree on the leader: C4.5+m+cf by")
    expect(box).to_contain_text("Win rate")
    expect(box).to_contain_text("wins more datasets outright")
    # the answer is the set of the best on average: paired comparisons of
    # ranks leave two; Nemenyi's looser test keeps all four, and the verdict says why
    expect(box.locator("[data-testid=verdict-lead]")).to_contain_text(
        "With 95 % confidence the best on average across datasets is C4.5+m or C4.5+m+cf"
    )
    expect(box).to_contain_text("Nemenyi's test cannot tell any of the 4 algorithms apart")
    expect(box).to_contain_text("more cautious than the paired comparisons")
    expect(page.locator("[data-testid=groups-note]")).to_contain_text("Friedman's test finds")
    # by win rate the leader changes and the verdict follows the chosen estimator
    page.goto(demo_site.url("benchmark-leaderboard", "demsar-2006", estimator="plackett_luce"))
    expect(page.locator("[data-testid=verdict]")).to_have_attribute("data-leader", "C4.5+m+cf")
    screenshot(page, "plackett-luce")


def test_sorting_by_a_column_works_with_and_without_javascript(demo_site, page, no_js_page):
    board = _board("demsar-2006")
    by_rank = sorted(board.algorithms, key=lambda a: (board.column(board.mean_rank)[a], a))
    for tab in (page, no_js_page):
        tab.goto(demo_site.url("benchmark-leaderboard", "demsar-2006"))
        link = tab.locator("[data-testid=sort-mean-rank]")
        link.focus()
        tab.keyboard.press("Enter")  # keyboard-accessible: a link
        header = tab.locator("[data-testid=col-mean-rank]")
        expect(header).to_have_attribute("aria-sort", "ascending")
        names = helpers.leaderboard_rows(tab).evaluate_all(
            "rows => rows.map(r => r.dataset.algorithm)"
        )
        assert names == by_rank
        tab.locator("[data-testid=sort-mean-rank]").click()
        expect(tab.locator("[data-testid=col-mean-rank]")).to_have_attribute(
            "aria-sort", "descending"
        )
        names = helpers.leaderboard_rows(tab).evaluate_all(
            "rows => rows.map(r => r.dataset.algorithm)"
        )
        assert names == by_rank[::-1]


def test_search_finds_an_algorithm(demo_site, page, screenshot):
    page.goto(demo_site.url("benchmark-index"))
    page.get_by_label("Search benchmarks, algorithms and datasets").fill("xgboost")
    page.keyboard.press("Enter")
    hits = page.locator("[data-testid=search-algorithms]")
    expect(hits).to_contain_text("XGBoost")
    screenshot(page, "results")
    hits.get_by_role("link").first.click()
    expect(page.locator("h1")).to_contain_text("XGBoost")
    screenshot(page, "algorithm")


@pytest.mark.parametrize("slug", DEMO_SLUGS)
def test_phone_first_screen_shows_the_verdict_and_a_result_row(
    demo_site, new_page, screenshot, slug
):
    phone = new_page(viewport=PHONE_390, is_mobile=True, has_touch=True)
    phone.goto(demo_site.url("benchmark-leaderboard", slug))
    height = PHONE_390["height"]
    verdict = phone.locator("[data-testid=verdict-lead]").bounding_box()
    first_row = helpers.leaderboard_rows(phone).first.bounding_box()
    assert verdict is not None and verdict["y"] < height
    assert first_row is not None and first_row["y"] + first_row["height"] <= height
    # the interval bar and P(win) stay in the row; the rest is in its details
    expect(phone.locator("[data-testid=cell-probability]").first).to_be_visible()
    expect(phone.locator("[data-testid=cell-win-rate]").first).to_be_hidden()
    if phone.locator("[data-testid=cell-interval] .bar").count():
        expect(phone.locator("[data-testid=cell-interval] .bar").first).to_be_visible()
    details = phone.locator("[data-testid=row-details]").first
    details.locator("summary").click()
    expect(details).to_contain_text("Win rate")
    scroll = phone.evaluate("document.documentElement.scrollWidth")
    assert scroll <= PHONE_390["width"], f"horizontal page scroll: {scroll}px"
    screenshot(phone, "phone")


def test_every_csv_export_reads_with_pandas_as_is(demo_site, page, screenshot):
    import urllib.request

    for slug in DEMO_SLUGS:
        page.goto(demo_site.url("benchmark-leaderboard", slug))
        urls = [
            page.locator(f"[data-testid={testid}]").get_attribute("href")
            for testid in ("export-csv", "export-scores")
        ]
        urls.append(demo_site.path("api-snapshot-latest-csv", slug))
        for url in urls:
            with urllib.request.urlopen(demo_site.base_url + url) as response:
                body = response.read().decode()
                if "/export.csv" in url and "/api/" not in url:
                    assert response.headers["X-Podium-Snapshot-Version"].isdigit()
                    assert 'rel="cite-as"' in response.headers["Link"]
            frame = pd.read_csv(io.StringIO(body))
            assert len(frame) > 0, url
            if "scores.csv" in url:  # a ranking-only benchmark's is a ranking file
                from frontend.explore.views import LONG_COLUMNS, RANKING_COLUMNS
                from leaderboard.models import Benchmark

                ranking = Benchmark.objects.get(slug=slug).ranking_only
                assert list(frame.columns) == (RANKING_COLUMNS if ranking else LONG_COLUMNS)
            else:
                order = [board_order(_board(slug), _board(slug).recommended)]
                names = [_board(slug).algorithms[i] for i in order[0]]
                # the page's download names its columns in words, the API by key
                readable = "/api/" not in url
                assert list(frame["Algorithm" if readable else "algorithm"]) == names, url
    page.goto(demo_site.url("explore-dataset-index", "demsar-2006"))
    expect(page.locator("[data-testid=dataset-row]")).to_have_count(14)
    screenshot(page, "datasets")
    assert re.search(
        r"scores\.csv$", page.locator("[data-testid=scores-export]").get_attribute("href")
    )


def test_search_and_dataset_index_on_a_phone(demo_site, new_page, screenshot):
    phone = new_page(viewport=PHONE_390, is_mobile=True, has_touch=True)
    phone.goto(demo_site.url("benchmark-index", q="iris"))
    expect(phone.locator("[data-testid=search-datasets]")).to_contain_text("iris")
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE_390["width"]
    screenshot(phone, "search")
    phone.goto(demo_site.url("explore-dataset-index", "simulated-new-vs-old"))
    expect(phone.locator("[data-testid=dataset-row]").first).to_be_visible()
    screenshot(phone, "datasets")


def test_a_hostile_search_is_bounded_and_escaped(demo_site, page):
    attack = '<img src=x onerror="window.__pwned=1">' + "x" * 500
    page.goto(demo_site.url("benchmark-index", q=attack))
    assert page.evaluate("() => window.__pwned === undefined")
    value = page.get_by_label("Search benchmarks, algorithms and datasets").input_value()
    assert len(value) <= 100
