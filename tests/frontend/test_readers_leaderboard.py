import html
import json
import re

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext

from estimation.models import ResultSnapshot
from estimation.selectors import clear_parsed_sections
from leaderboard.models import Benchmark
from leaderboard.services import submission_accept
from tests.factories import cache_clear_own, make_benchmark, make_submission, make_user
from tests.frontend.test_readers_support import (
    computed_benchmark,
    computing_snapshot,
    large_payload,
    refresh,
    store_snapshot,
    submit,
)

pytestmark = pytest.mark.django_db

ESTIMATORS = ("loo_kl", "loo_tv", "minimax", "mle", "borda", "plackett_luce")


def _rows(page: str) -> list[str]:
    return re.findall(r'data-testid="leaderboard-row" data-algorithm="([^"]+)"', page)


def _json_script(page: str, element_id: str):
    match = re.search(rf'<script id="{element_id}" type="application/json">(.*?)</script>', page)
    return json.loads(match.group(1))


def test_leaderboard_reads_without_javascript(client):
    computed_benchmark("toy")
    page = client.get("/b/toy/").content.decode()
    for column in ("probability", "interval", "p-best", "win-rate", "mean-rank", "borda"):
        assert f'data-testid="col-{column}"' in page
    assert 'data-testid="col-plackett-luce"' in page and 'data-testid="col-group"' in page
    assert _rows(page) == ["alpha", "beta", "gamma"]
    # the interval is text as well as a bar, e.g. "0.250–1.000"
    assert re.search(r'<span class="ci">\d\.\d{3}–\d\.\d{3}</span>', page)
    assert "Leave-one-out weights (log loss)" in page
    assert "predict held-out winners best" in page
    # every estimator has a no-JS link, and a radio button (shown by the script) that
    # names the fragment to swap in; the numbers are not shipped a second time as JSON
    for key in ESTIMATORS:
        assert f'href="/b/toy/?estimator={key}"' in page
        assert (
            f'data-href="/b/toy/?estimator={key}" data-fragment="/b/toy/board/?estimator={key}"'
            in page
        )
    assert 'id="estimator-switcher" data-testid="estimator-switcher" hidden>' in page
    assert "leaderboard-data" not in page
    config = _json_script(page, "leaderboard-config")
    assert config["live"] is True and config["version"] == 1
    assert config["fragmentUrl"] == "/b/toy/board/"
    assert 'src="/static/frontend/readers/leaderboard.js"' in page
    assert 'href="/b/toy/v1/export.csv"' in page and 'href="/b/toy/v1/"' in page


def test_estimator_query_parameter_orders_the_table(client):
    computed_benchmark("toy")
    default = client.get("/b/toy/").content.decode()
    borda = client.get("/b/toy/?estimator=borda").content.decode()
    assert 'data-estimator="loo_kl"' in default and 'data-estimator="borda"' in borda
    assert 'href="/b/toy/?estimator=borda" data-estimator="borda" aria-current="true"' in borda
    assert "<strong>Borda count:</strong>" in borda
    assert "export.tex?estimator=borda" in borda
    unknown = client.get("/b/toy/?estimator=nonsense").content.decode()
    assert 'data-estimator="loo_kl"' in unknown


def test_coverage_notes_in_plain_words(client):
    # the maintainer's choice that leaves out datasets (the default leaves out gamma)
    benchmark = make_benchmark("gappy", bootstrap_size=0, incomplete_submissions="drop_datasets")
    submit(benchmark, "alpha", {"d1": 0.9, "d2": 0.8, "d3": 0.7, "d4": 0.6})
    submit(benchmark, "beta", {"d1": 0.9, "d2": 0.5, "d3": 0.2, "d4": 0.1})
    submit(benchmark, "gamma", {"d1": 0.1, "d2": 0.2, "d3": 0.3})
    submit(benchmark, "rare", {"d1": 0.3})
    refresh(benchmark)
    page = client.get("/b/gappy/").content.decode()
    assert "1 of 4 datasets was left out because some algorithms have no result there" in page
    assert (
        "1 algorithm has results on fewer than 50% of the datasets and is not ranked: rare" in page
    )
    assert "a tie for first place" in page
    assert "3 of 4 datasets used" in page


def test_significance_rank_column_appears_with_folds(client):
    benchmark = make_benchmark("folds", bootstrap_size=0)
    for name, base in (("alpha", 0.9), ("beta", 0.5), ("gamma", 0.1)):
        values = {f"d{i}": [base + 0.01 * ((i + f) % 3) for f in range(5)] for i in range(4)}
        submission_accept(submission=make_submission(benchmark, name, values, folds=True))
    refresh(benchmark)
    page = client.get("/b/folds/").content.decode()
    assert 'data-testid="col-significance-rank"' in page
    assert page.count('data-testid="cell-significance-rank"') == 3
    computed_benchmark("plain")
    assert 'data-testid="col-significance-rank"' not in client.get("/b/plain/").content.decode()


def test_computing_status_is_rendered_for_screen_readers(client):
    benchmark = computed_benchmark("toy")
    computing_snapshot(benchmark, version=2, stage="bootstrap", progress=0.4)
    page = client.get("/b/toy/").content.decode()
    assert 'role="status"' in page and 'aria-live="polite"' in page
    computing = page[
        page.index('id="live-computing"') : page.index("</p>", page.index('id="live-computing"'))
    ]
    assert "hidden" not in computing.split(">")[0]
    assert '<span id="live-stage" data-testid="live-stage">bootstrap</span>' in page
    assert 'value="40"' in page and "40 %" in page
    assert 'the table shows version <span id="live-shown-version">1</span>' in page


def test_a_version_whose_run_died_is_not_shown_computing(client):
    benchmark = computed_benchmark("toy")
    computing_snapshot(benchmark, version=2, run_alive=False)  # before the sweep abandons it
    page = client.get("/b/toy/").content.decode()
    notice = page[page.index('id="live-computing"') :].split(">")[0]
    assert "hidden" in notice
    assert '<span id="live-computing-version"></span>' in page


def test_no_results_yet(client):
    make_benchmark("fresh")
    page = client.get("/b/fresh/").content.decode()
    assert "No results have been computed yet." in page
    assert _rows(page) == []


def test_version_permalink_shows_that_version_and_does_not_poll(client):
    benchmark = computed_benchmark("toy")
    submit(benchmark, "delta", {"d1": 0.95, "d2": 0.95, "d3": 0.95, "d4": 0.95})
    refresh(benchmark)
    old = client.get("/b/toy/v1/").content.decode()
    assert "delta" not in _rows(old) and "permanent link to version 1" in old
    assert _json_script(old, "leaderboard-config")["live"] is False
    assert "delta" in _rows(client.get("/b/toy/v2/").content.decode())
    assert _rows(client.get("/b/toy/").content.decode())[0] == "delta"
    assert client.get("/b/toy/v9/").status_code == 404
    borda = client.get("/b/toy/v1/?estimator=borda").content.decode()
    assert 'href="/b/toy/v1/?estimator=borda" data-estimator="borda" aria-current="true"' in borda


def test_version_page_of_a_computing_version(client):
    benchmark = computed_benchmark("toy")
    computing_snapshot(benchmark, version=2)
    page = client.get("/b/toy/v2/").content.decode()
    assert "still being computed" in page and _rows(page) == []


def test_metric_selector(client):
    benchmark = computed_benchmark("multi", metrics=(("accuracy", "higher"), ("time", "lower")))
    for algorithm, seconds in (("alpha", 3.0), ("beta", 1.0), ("gamma", 2.0)):
        submit(benchmark, algorithm, {"d1": seconds, "d2": seconds}, metric="time")
    refresh(benchmark)
    primary = client.get("/b/multi/").content.decode()
    assert 'data-testid="metric-selector"' in primary
    assert '<option value="accuracy" selected>' in primary
    time_page = client.get("/b/multi/?metric=time").content.decode()
    assert '<option value="time" selected>' in time_page
    assert _rows(time_page)[0] == "beta"
    assert 'href="/b/multi/v1/export.csv?metric=time"' in time_page
    assert client.get("/b/multi/?metric=nope").status_code == 404
    single = computed_benchmark("single")
    assert 'data-testid="metric-selector"' not in client.get(f"/b/{single.slug}/").content.decode()


@pytest.mark.parametrize(
    "path",
    [
        "/b/secret/",
        "/b/secret/v1/",
        "/b/secret/history/",
        "/b/secret/v1/export.csv",
        "/b/secret/board/",
        "/b/secret/v1/board/",
    ],
)
def test_private_benchmark_is_a_404_for_strangers(client, path):
    benchmark = computed_benchmark("secret", visibility=Benchmark.Visibility.PRIVATE)
    assert client.get(path).status_code == 404
    client.force_login(make_user("stranger"))
    assert client.get(path).status_code == 404
    maintainer = make_user("maintainer")
    benchmark.maintainers.add(maintainer)
    client.force_login(maintainer)
    assert client.get(path).status_code == 200


def _queries(client, path: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(path).status_code == 200
    return len(queries)


def _rendered_queries(client, path: str) -> int:
    cache_clear_own()
    return _queries(client, path)


def test_leaderboard_queries_do_not_grow_with_algorithms(client, django_assert_max_num_queries):
    small = make_benchmark("small")
    store_snapshot(small, large_payload(5))
    large = make_benchmark("large")
    store_snapshot(large, large_payload(100))
    computing_snapshot(large, version=2)
    # benchmark, metrics, snapshot, its board (parsed once per process), computing,
    # the newest version's status (did the newest input fail?), the algorithms' public
    # metadata for the reader's filters (one query, then cached per version)
    with django_assert_max_num_queries(7):
        page = client.get("/b/large/").content.decode()
    assert len(_rows(page)) == 100
    with django_assert_max_num_queries(5):
        client.get("/b/large/")
    # The views' own queries: each request finds the page cache empty (it answers any
    # reader of a cached page with at most the reader's own queries).
    computing_snapshot(small, version=2)  # drawn per request like the large one's
    for warm_up in ("/b/small/", "/b/small/v1/", "/b/large/v1/"):
        client.get(warm_up)
    assert _rendered_queries(client, "/b/large/") == _rendered_queries(client, "/b/small/")
    assert _rendered_queries(client, "/b/large/v1/") == _rendered_queries(client, "/b/small/v1/")
    # the page reads the board section only, never the pairwise or per-dataset ones
    clear_parsed_sections()
    with CaptureQueriesContext(connection) as queries:
        client.get("/b/large/")
    sections = [q["sql"] for q in queries if "estimation_snapshotsection" in q["sql"]]
    assert sections and all("'board'" in sql for sql in sections), sections
    assert ResultSnapshot.objects.filter(benchmark=large).count() == 2


def _section(page: str) -> str:
    start = page.index('<section id="leaderboard"')
    return page[start : page.index("</section>", start) + len("</section>")]


def test_fragment_is_the_pages_section_alone(client):
    computed_benchmark("toy")
    for query in ("", "?estimator=borda", "?estimator=nonsense"):
        page = client.get(f"/b/toy/{query}").content.decode()
        fragment = client.get(f"/b/toy/board/{query}")
        assert fragment.status_code == 200 and fragment["X-Robots-Tag"] == "noindex"
        body = fragment.content.decode()
        assert "<html" not in body and "<script" not in body
        # one template, one context: the fragment is exactly what the page shows
        assert body.strip() == _section(page)
    borda = client.get("/b/toy/board/?estimator=borda").content.decode()
    assert 'data-estimator="borda"' in borda and 'value="borda"' in borda
    assert 'data-refresh="/b/toy/board/?estimator=borda"' in borda
    assert 'data-version="1"' in borda
    version = client.get("/b/toy/v1/board/?estimator=mle").content.decode()
    assert version.strip() == _section(client.get("/b/toy/v1/?estimator=mle").content.decode())
    assert 'data-fragment="/b/toy/v1/board/?estimator=borda"' in version
    assert client.get("/b/toy/v9/board/").status_code == 404


def test_fragment_before_the_first_results_is_an_empty_hidden_section(client):
    make_benchmark("fresh")
    body = client.get("/b/fresh/board/").content.decode().strip()
    assert body.startswith('<section id="leaderboard"') and " hidden>" in body
    assert _rows(body) == []


def test_large_board_is_paginated_with_show_all(client, monkeypatch):
    from frontend.readers import views

    monkeypatch.setattr(views, "BOARD_PAGE_SIZE", 40)
    large = make_benchmark("large")
    store_snapshot(large, large_payload(100))
    everything = client.get("/b/large/?all=1").content.decode()
    order = _rows(everything)
    assert len(order) == 100
    assert 'data-testid="board-show-pages"' in everything and "All 100 algorithms" in everything

    first = client.get("/b/large/").content.decode()
    assert _rows(first) == order[:40]
    assert "1–40 of 100 (page 1 of 3)" in first
    assert 'href="/b/large/?page=2" data-fragment="/b/large/board/?page=2" rel="next"' in first
    assert 'href="/b/large/?all=1" data-fragment="/b/large/board/?all=1"' in first
    assert 'rel="prev"' not in first
    second = client.get("/b/large/?page=2").content.decode()
    third = client.get("/b/large/?page=3").content.decode()
    assert _rows(second) == order[40:80] and _rows(third) == order[80:]
    # positions continue across pages (rows of equal P(win) share one, shown "=k")
    positions = re.compile(r'data-testid="cell-position">(=?\d+)</td>')
    assert positions.findall(second) == positions.findall(everything)[40:80]
    assert int(positions.findall(second)[0].lstrip("=")) <= 41
    assert "81–100 of 100 (page 3 of 3)" in third and 'rel="next"' not in third
    # out-of-range and malformed pages fall back instead of failing
    assert _rows(client.get("/b/large/?page=999").content.decode()) == order[80:]
    assert _rows(client.get("/b/large/?page=x").content.decode()) == order[:40]
    # an estimator chosen stays chosen across pages; choosing one starts at page 1
    borda = client.get("/b/large/?estimator=borda&page=2").content.decode()
    assert 'href="/b/large/?estimator=borda&amp;page=3"' in borda
    assert 'data-refresh="/b/large/board/?estimator=borda&amp;page=2"' in borda
    assert 'href="/b/large/?estimator=mle" data-estimator="mle"' in borda
    fragment = client.get("/b/large/board/?page=2").content.decode()
    assert _rows(fragment) == order[40:80]
    small = computed_benchmark("toy")
    assert 'data-testid="board-pages"' not in client.get(f"/b/{small.slug}/").content.decode()


def test_script_holds_no_copy_of_the_table_or_the_estimators():
    """The template is the one definition of the columns and the estimator texts."""
    from pathlib import Path

    script = (
        Path(settings.BASE_DIR) / "frontend/static/frontend/readers/leaderboard.js"
    ).read_text(encoding="utf-8")
    for key in ESTIMATORS:
        assert f"{key}:" not in script and f'"{key}"' not in script, key
    for copy in ("cell-probability", "col-borda", "predict held-out winners", "toFixed"):
        assert copy not in script, copy


def test_the_page_says_when_no_estimator_predicts_clearly_better(client):
    """The held-out evaluation is told in one sentence relating it to the one recommended
    estimator: no second badge beside the recommended one, no internal keys."""
    benchmark = make_benchmark("verdict", bootstrap_size=0)
    for name, row in (("alpha", (0.9, 0.8, 0.7, 0.6)), ("beta", (0.8, 0.9, 0.6, 0.7))):
        submit(benchmark, name, dict(zip(("d1", "d2", "d3", "d4"), row, strict=True)))
    refresh(benchmark)
    page = html.unescape(client.get("/b/verdict/").content.decode())
    assert "finds no estimator predicting clearly better than the win rate here" in page
    assert "stays the default because a rule fixed before the data are seen" in page
    assert "predicts best here" not in page
    assert page.count('data-testid="recommended-tag"') == 2  # the links and the switcher
    # Another estimator chosen: the verdict speaks of it, the note relates the evidence.
    other = html.unescape(client.get("/b/verdict/?estimator=mle").content.decode())
    assert 'data-testid="evaluation-verdict"' in other
    assert "finds no estimator predicting clearly better" in other
    for key in ("loo_kl", "plackett_luce"):
        sentences = re.findall(r'<p class="note"[^>]*>([^<]*)</p>', other)
        assert not any(key in sentence for sentence in sentences), key


def test_failure_fragment_is_the_pages_notice_alone(client):
    """leaderboard.js fetches the failure notice alone (failureUrl): the same template as
    the page's slot, empty when nothing failed, for the metric of the page."""
    from estimation.services import recompute_run
    from leaderboard.services import submission_reject

    maintainer = make_user("maintainer")
    benchmark = make_benchmark(slug="fragile")
    benchmark.maintainers.add(maintainer)
    submission_accept(submission=make_submission(benchmark, "a", {"d1": 0.9, "d2": 0.2}))
    b = submission_accept(submission=make_submission(benchmark, "b", {"d1": 0.5, "d2": 0.6}))
    recompute_run(benchmark_id=benchmark.pk, owner="test")
    page = client.get("/b/fragile/").content.decode()
    assert _json_script(page, "leaderboard-config")["failureUrl"] == "/b/fragile/failure/"
    empty = client.get("/b/fragile/failure/")
    assert empty.status_code == 200 and empty["X-Robots-Tag"] == "noindex"
    assert empty.content.decode().strip() == ""

    submission_reject(submission=b, user=maintainer)  # a alone cannot be analysed
    recompute_run(benchmark_id=benchmark.pk, owner="test")
    page = client.get("/b/fragile/").content.decode()
    notice = client.get("/b/fragile/failure/").content.decode().strip()
    assert 'data-testid="recompute-failure"' in notice and "at least 2 algorithms" in notice
    assert "<html" not in notice and "<script" not in notice
    slot_start = page.index('data-testid="recompute-failure-slot">')
    slot = page[slot_start + len('data-testid="recompute-failure-slot">') :]
    assert slot.lstrip().startswith(notice)  # one template: exactly what the page shows
    assert client.get("/b/fragile/failure/?metric=nope").status_code == 404
    assert client.get("/b/nowhere/failure/").status_code == 404
