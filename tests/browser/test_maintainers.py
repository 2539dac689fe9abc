"""A maintainer's pages and an uploader's landing, at a laptop's and a phone's size.

The maintainer describes a dataset and sets a metric's region of practical equivalence
from a select of the benchmark's metrics; readers see the description on the dataset's
page; each moderation flag is an item of its own; a researcher who uploads a file lands
on the board, told what happened, and the next reader of that board is not told.
"""

from __future__ import annotations

import itertools

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import DEMO_SLUGS, SIZES, horizontal_overflow

BOARD = DEMO_SLUGS[0]  # Demšar's: open, so an upload counts on arrival
MODERATED = "simulated-new-vs-old"


def _maintainer(slug: str):
    from leaderboard.models import Benchmark
    from tests.factories import make_user

    user = make_user("keeper")
    Benchmark.objects.get(slug=slug).maintainers.add(user)
    return user


def _no_sideways_scroll(page) -> None:
    overflow = horizontal_overflow(page)
    assert overflow["scrollWidth"] <= overflow["innerWidth"], overflow


@pytest.mark.parametrize("size", SIZES)
def test_a_maintainer_describes_a_dataset_and_readers_see_it(
    demo_site, new_page, log_in, screenshot, size
):
    page = new_page(**SIZES[size])
    log_in(page, _maintainer(BOARD))
    page.goto(demo_site.url("contribute-benchmark-catalogue", BOARD))
    rope = page.get_by_test_id("metric-rope-form")
    metric = rope.get_by_label("Metric (required)", exact=True)
    expect(metric).to_have_js_property("tagName", "SELECT")  # no free text
    expect(metric.locator("option")).to_have_count(1)
    describe = page.get_by_test_id("dataset-describe-form")
    describe.get_by_label("Dataset").select_option("iris")
    describe.get_by_label("Description").fill("Fisher's 150 flowers of three species.")
    describe.get_by_label("Link (http or https)").fill("javascript:alert(1)")
    describe.get_by_label("Domain").fill("botany")
    describe.get_by_test_id("dataset-describe-submit").click()
    expect(page.get_by_test_id("error-summary")).to_contain_text("http:// or https://")
    describe = page.get_by_test_id("dataset-describe-form")
    describe.get_by_label("Link (http or https)").fill("https://archive.ics.uci.edu/dataset/53")
    describe.get_by_test_id("dataset-describe-submit").click()
    expect(page.get_by_test_id("messages")).to_contain_text("Saved the description of iris")
    _no_sideways_scroll(page)
    screenshot(page, f"catalogue-{size}")

    page.goto(demo_site.url("explore-dataset", BOARD, "iris"))
    expect(page.get_by_test_id("dataset-description")).to_have_text(
        "Fisher's 150 flowers of three species."
    )
    about = page.get_by_test_id("dataset-about")
    expect(about).to_contain_text("Domain: botany")
    expect(about.get_by_role("link")).to_have_attribute(
        "href", "https://archive.ics.uci.edu/dataset/53"
    )
    _no_sideways_scroll(page)


@pytest.mark.parametrize("size", SIZES)
def test_each_moderation_flag_is_an_item_of_its_own(demo_site, new_page, log_in, size):
    from leaderboard.models import Benchmark
    from tests.factories import make_submission

    benchmark = Benchmark.objects.get(slug=MODERATED)
    tasks = list(benchmark.datasets.order_by("name").values_list("name", flat=True))
    make_submission(benchmark, "Too-Good", {t: [1.0] * 25 for t in tasks}, folds=True)
    page = new_page(**SIZES[size])
    log_in(page, _maintainer(MODERATED))
    page.goto(demo_site.url("contribute-moderation", MODERATED))
    flags = page.get_by_test_id("moderation-flag")
    assert flags.count() >= 2
    boxes = [flags.nth(i).bounding_box() for i in range(flags.count())]
    # one under the other, none sharing a line with the next
    for upper, lower in itertools.pairwise(boxes):
        assert lower["y"] >= upper["y"] + upper["height"] - 1, boxes
    _no_sideways_scroll(page)


@pytest.mark.parametrize("size", SIZES)
def test_an_uploader_lands_on_the_board_told_what_happened(
    demo_site, new_page, log_in, screenshot, size
):
    from leaderboard.models import Dataset
    from tests.factories import make_user

    datasets = list(
        Dataset.objects.filter(benchmark__slug=BOARD)
        .order_by("name")
        .values_list("name", flat=True)
    )
    # One dataset left empty: the board's policy leaves the algorithm out, and says so.
    content = "dataset,algorithm,score\n" + "".join(f"{name},Lander,0.8\n" for name in datasets[1:])
    page = new_page(**SIZES[size])
    page.goto(demo_site.url("benchmark-leaderboard", BOARD))  # the board is cached
    log_in(page, make_user(f"lander-{size}"))
    page.goto(demo_site.url("contribute-upload", BOARD))
    page.get_by_label("Results file (CSV, JSON or zip)").set_input_files(
        {"name": "r.csv", "mimeType": "text/csv", "buffer": content.encode()}
    )
    page.get_by_test_id("upload-submit").click()
    page.get_by_test_id("upload-confirm").click()
    expect(page).to_have_url(demo_site.url("benchmark-leaderboard", BOARD))
    messages = page.get_by_test_id("messages")
    expect(messages).to_contain_text("Stored and accepted Lander")
    expect(messages).to_contain_text("Lander: 1 empty cell")
    expect(messages).to_be_in_viewport()
    _no_sideways_scroll(page)
    screenshot(page, f"landed-{size}")
    page.reload()  # shown once
    expect(page.get_by_test_id("messages")).to_have_count(0)
    other = new_page(**SIZES[size])
    log_in(other, make_user(f"other-{size}"))
    other.goto(demo_site.url("benchmark-leaderboard", BOARD))
    expect(other.get_by_test_id("leaderboard-table")).to_be_visible()
    expect(other.get_by_test_id("messages")).to_have_count(0)
