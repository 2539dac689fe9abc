"""The dataset page and the head-to-head page of lighteval's results (no folds, a standard
error per score) in Chromium, at desktop and phone sizes: the pairs within the files'
combined uncertainty read "not separable", the table fits its scrolling region, and axe
finds no serious violation."""

from __future__ import annotations

from io import StringIO
from urllib.parse import quote

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from tests.browser.test_accessibility import harmful_violations
from tests.browser.test_reader_table import SIZES
from tests.ingest.helpers import FIXTURES

LLAMA, FALCON = "meta-llama/Llama-2-7b-hf", "tiiuae/falcon-7b"


@pytest.fixture
def lighteval_site(live_server):
    call_command(
        "import_results",
        str(FIXTURES / "lighteval"),
        "--format=lighteval",
        "--benchmark=lite-se",
        stdout=StringIO(),
        stderr=StringIO(),
    )
    return live_server


@pytest.mark.parametrize("size", SIZES)
def test_pairs_within_the_standard_errors_read_not_separable(lighteval_site, new_page, size):
    page = new_page(**SIZES[size])
    page.goto(f"{lighteval_site.url}/b/lite-se/datasets/hellaswag/?metric=acc_norm")
    rows = page.locator("[data-testid=by-errors-row]")
    expect(rows).to_have_count(3)
    separable = rows.filter(has_text=FALCON).filter(has_text=LLAMA)
    expect(separable.locator("td").last).to_have_text("not separable")
    expect(page.locator("[data-testid=by-errors-explain]")).to_be_visible()
    assert harmful_violations(page) == []

    pair = f"/b/lite-se/compare/?a={quote(LLAMA)}&b={quote(FALCON)}&metric=acc_norm"
    page.goto(lighteval_site.url + pair)
    summary = page.locator("[data-testid=pair-by-errors-summary]")
    expect(summary).to_contain_text("not separable on 1")
    expect(page.locator("[data-testid=pair-by-errors]")).to_contain_text("not separable")
    assert harmful_violations(page) == []
