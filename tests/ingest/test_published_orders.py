"""The source's own order ("Mean win rate") kept from an import by a maintainer or an
operator, never a stranger, and set beside the board on the charts page with Kendall's
tau-b (checked against scipy's)."""

from __future__ import annotations

import math
from io import StringIO

import pytest
from django.core.management import call_command
from scipy import stats

from estimation.selectors import SnapshotSections, snapshot_latest
from leaderboard.models import PublishedOrder
from leaderboard.selectors import benchmark_metric_get
from leaderboard.services import published_orders_store
from tests.factories import make_user
from tests.ingest.helpers import FIXTURES

pytestmark = pytest.mark.django_db

ORDER = {"Mean win rate": {"a": 0.9, "b": 0.5, "c": 0.1}}


@pytest.fixture
def benchmark():
    from leaderboard.services import benchmark_create

    return benchmark_create(slug="src", title="src", metrics=[("accuracy", "higher")])


def test_only_a_maintainer_or_an_operator_keeps_a_sources_order(benchmark):
    stranger, owner = make_user("stranger"), make_user("owner")
    benchmark.maintainers.add(owner)
    kept = published_orders_store(
        benchmark=benchmark, published=ORDER, source_format="eee", user=stranger
    )
    assert kept == [] and not PublishedOrder.objects.exists()
    published_orders_store(benchmark=benchmark, published=ORDER, source_format="eee", user=owner)
    assert PublishedOrder.objects.get().values == ORDER["Mean win rate"]
    # A second import replaces the order of the same name.
    again = {"Mean win rate": {"a": 0.2, "b": 0.8}}
    published_orders_store(
        benchmark=benchmark, published=again, source_format="eee", by_operator=True
    )
    assert PublishedOrder.objects.get().values == again["Mean win rate"]


def test_hostile_names_and_values_are_dropped(benchmark):
    published: dict = {
        "bad\x00name": {"a": 1.0, "b": 2.0},
        "Mean score": {"a": math.inf, "b\x07": 1.0, "c": 2.0, "d": True, "e": 3, "f": "4"},
        **{f"order {i}": {"a": 1.0, "b": 2.0} for i in range(30)},
    }
    published_orders_store(
        benchmark=benchmark, published=published, source_format="eee", by_operator=True
    )
    names = set(PublishedOrder.objects.values_list("name", flat=True))
    assert "bad\x00name" not in names and len(names) <= 20
    assert PublishedOrder.objects.get(name="Mean score").values == {"c": 2.0, "e": 3.0}


def test_the_charts_page_sets_an_imported_sources_order_beside_the_board(client):
    call_command(
        "import_results",
        str(FIXTURES / "eee-helm-lite"),
        "--format=eee",
        "--benchmark=helm-lite",
        "--on-error=skip",  # the fixture's -1 placeholder, as HELM Lite's own
        stdout=StringIO(),
        stderr=StringIO(),
    )
    order = PublishedOrder.objects.get(name="Mean win rate (Accuracy)")
    metric = benchmark_metric_get(benchmark=order.benchmark, name=None)  # the page's
    board = SnapshotSections(snapshot_latest(benchmark=order.benchmark, metric=metric))["board"]
    names = board.input.algorithms
    p_win = board.estimator(board.recommended).p
    both = [i for i, n in enumerate(names) if n in order.values]
    expected = stats.kendalltau([order.values[names[i]] for i in both], [p_win[i] for i in both])
    assert len(both) >= 3
    html = client.get("/b/helm-lite/charts/").content.decode()
    table = html.split('data-testid="source-orders-table"')[1].split("</table>")[0]
    row = table.split("Mean win rate (Accuracy)")[1].split("</tr>")[0]
    assert f"{expected.statistic:.2f}" in row
    assert max(order.values, key=order.values.get) in row  # the source's first
