"""Head to head on a board whose snapshot leaves the per-dataset Tukey tables out (too
many pairs to store): the stored pair values, a pointer to the dataset pages, few queries."""

from __future__ import annotations

import pytest
from django.urls import reverse

from estimation.core.contract import pair_index
from estimation.selectors import clear_parsed_sections
from tests.factories import make_benchmark
from tests.frontend.test_readers_support import large_payload, store_snapshot

pytestmark = pytest.mark.django_db


def test_head_to_head_on_a_large_board(client, django_assert_max_num_queries):
    payload = large_payload(60)
    benchmark = make_benchmark("large-pair")
    store_snapshot(benchmark, payload)
    names = payload.board.algorithms
    m = len(names)
    a, b = names[41], names[7]  # A after B in the section order: values are mirrored
    clear_parsed_sections()
    with django_assert_max_num_queries(20):
        response = client.get(reverse("compare-pair", args=["large-pair", a, b]))
    assert response.status_code == 200
    pair = response.context["pair"]
    k = pair_index(7, 41, m)
    assert pair.stored_share == pytest.approx(1 - payload.wins.wins.upper[k])
    assert pair.record.share == pytest.approx(pair.stored_share)
    assert pair.wilcoxon.pvalue == payload.wilcoxon.pvalues.upper[k]
    assert pair.wilcoxon.effect == pytest.approx(-payload.wilcoxon.rank_biserial.upper[k])
    assert pair.nemenyi.pvalue == payload.nemenyi.pvalues.upper[k]
    # 30 datasets x 1770 pairs: the tables are not stored; the page points to each dataset.
    assert pair.tukey == () and len(pair.tukey_left_out) == 30
    html = response.content.decode()
    assert 'data-testid="pair-tukey-left-out"' in html and "pairs exceed" in html
    # No scores in the database here: the chart draws the stored rank differences.
    assert "rank of B minus rank of A" in html
