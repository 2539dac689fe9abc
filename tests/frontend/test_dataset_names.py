"""A dataset's display name in the reader's table: raw ids shown by the name they carry
or by their description, searched by name, key and detail; every other key as it is."""

from __future__ import annotations

import html
import re

import pytest

from frontend.readers.dataset_names import dataset_display_name
from leaderboard.models import Dataset
from tests.frontend.test_readers_support import computed_benchmark


@pytest.mark.parametrize(
    ("key", "description", "label", "detail"),
    [
        ("openml__Australian__146818", "", "Australian", "OpenML 146818"),
        ("openml__Click_prediction_small__190408", "", "Click prediction small", "OpenML 190408"),
        ("146818", "Australian credit approval. Statlog.", "Australian credit approval", "146818"),
        ("0a1b2c3d4e5f6a7b", "", "0a1b2c3d4e5f6a7b", ""),  # no description: the key
        ("iris", "Fisher's irises", "iris", ""),  # a readable key stays itself
        ("lung cancer", "", "lung cancer", ""),
    ],
)
def test_display_names(key, description, label, detail):
    shown = dataset_display_name(key, description)
    assert (shown.key, shown.label, shown.detail) == (key, label, detail)


def test_a_long_description_is_cut_to_a_name():
    shown = dataset_display_name("31", "word " * 40)
    assert len(shown.label) == 60 and shown.label.endswith("…")


@pytest.mark.django_db
def test_the_chooser_and_the_columns_show_display_names_and_send_keys(client):
    scores = {
        "alpha": {"openml__Australian__146818": 0.9, "31": 0.8, "iris": 0.7},
        "beta": {"openml__Australian__146818": 0.6, "31": 0.5, "iris": 0.9},
    }
    benchmark = computed_benchmark("named", scores)
    Dataset.objects.filter(benchmark=benchmark, name="31").update(
        description="German credit <b>risk</b>. From Statlog."
    )
    page = client.get("/b/named/?ds=openml__Australian__146818&ds=31").content.decode()
    options = re.findall(
        r'<li><label><input type="checkbox" name="ds" value="([^"]+)"(?: checked)? '
        r'data-testid="filter-ds-option"> <span class="dataset-label">([^<]*)</span>'
        r"(?: <small>([^<]*)</small>)?",
        page,
    )
    by_key = {key: (html.unescape(label), detail) for key, label, detail in options}
    assert by_key["openml__Australian__146818"] == ("Australian", "OpenML 146818")
    assert by_key["31"] == ("German credit <b>risk</b>", "31")  # escaped in the page
    assert "<b>risk</b>" not in page
    assert by_key["iris"] == ("iris", "")
    header = re.search(r'data-testid="col-dataset-1" title="([^"]*)"', page)
    assert header and "Australian (openml__Australian__146818)" in html.unescape(header.group(1))
    assert re.search(r'data-testid="sort-dataset-1">Australian', page)
