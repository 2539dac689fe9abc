"""The head-to-head page's hierarchical model for any pair: stored pairs read from the
snapshot, other pairs computed when asked, to the core function's numbers, cached per
snapshot, and bounded (cells, one at a time, a budget per client)."""

from __future__ import annotations

import numpy as np
import pytest
from django.core.cache import cache
from django.urls import reverse

from estimation import pair_hierarchical as service
from estimation.core.analysis import ENGINE_VERSION, practical_seed
from estimation.core.hierarchical import hierarchical_probabilities, pair_folds
from leaderboard.models import Metric
from leaderboard.services import benchmark_create
from tests.factories import cache_clear_own
from tests.frontend.test_readers_support import refresh
from tests.frontend.uneven_folds import submit_folds

pytestmark = pytest.mark.django_db

SHIFTS = {"a": 0.03, "b": 0.0, "c": -0.004, "d": -0.05}
N_DATASETS, N_FOLDS = 6, 5


def _cells(shift: float) -> dict:
    return {
        f"d{i}": {
            k: 0.7 + i / 100 + shift + ((i * 7 + k * 3 + int(shift * 1000)) % 5) / 500
            for k in range(N_FOLDS)
        }
        for i in range(N_DATASETS)
    }


@pytest.fixture
def foldy():
    cache_clear_own()  # budgets and entries of earlier tests (the cache outlives transactions)
    benchmark = benchmark_create(
        slug="foldy", title="Folds", metrics=[("score", "higher")], bootstrap_size=0
    )
    for name, shift in SHIFTS.items():
        submit_folds(benchmark, name, _cells(shift))
    Metric.objects.filter(benchmark=benchmark).update(rope=0.01)
    (snapshot,) = refresh(benchmark)
    yield snapshot
    cache_clear_own()


def _page(client, a: str, b: str, *, compute: bool = False):
    url = reverse("compare-pair", kwargs={"slug": "foldy", "a": a, "b": b})
    response = client.get(url + ("?hierarchical=1" if compute else ""))
    assert response.status_code == 200
    return response


def _core(a: str, b: str, seed: int):
    """The core function on the pair's fold differences, built here from the cells."""
    cells_a, cells_b = _cells(SHIFTS[a]), _cells(SHIFTS[b])
    folds = np.array(
        [
            [[cells_a[d][k], cells_b[d][k]] for k in range(N_FOLDS)]
            for d in sorted(cells_a)  # the engine's datasets, in its (name) order
        ]
    )
    x, notes = pair_folds(folds, 0, 1)
    assert x is not None and notes == []
    return hierarchical_probabilities(x, rope=0.01, rng=seed)


def test_a_stored_pair_is_read_from_the_snapshot(client, foldy):
    from estimation.selectors import SnapshotSections

    model = SnapshotSections(foldy)["practical"].hierarchical
    assert model.leader == "a"  # stored against b, c and d
    row = next(v for v in model.versus if v.algorithm == "b")
    response = _page(client, "b", "a")
    shown = response.context["hierarchical"]
    assert shown.source == "stored"
    assert (shown.a_better, shown.equivalent, shown.b_better) == (
        row.other_better,
        row.equivalent,
        row.leader_better,
    )
    assert 'data-testid="pair-hierarchical-a"' in response.content.decode()


def test_another_pair_is_offered_then_computed_to_the_core_numbers_and_cached(client, foldy):
    offered = _page(client, "b", "c")
    assert offered.context["hierarchical_state"] == "offer"
    assert 'data-testid="pair-hierarchical-compute"' in offered.content.decode()

    computed = _page(client, "b", "c", compute=True).context["hierarchical"]
    assert computed.source == "computed"
    seed = practical_seed(0)
    assert computed.seed == seed
    core = _core("b", "c", seed)
    # The same function on the same differences with the same seed: equal to the last bit
    # (no tolerance needed: one process, one machine, the same operations).
    assert (computed.a_better, computed.equivalent, computed.b_better) == (
        core.a_better,
        core.equivalent,
        core.b_better,
    )
    assert computed.mc_se == core.mc_se and (computed.n_datasets, computed.n_folds) == (6, 5)

    again = _page(client, "b", "c").context["hierarchical"]
    assert again.source == "cache" and again.a_better == computed.a_better
    swapped = _page(client, "c", "b").context["hierarchical"]
    assert swapped.source == "cache"
    assert (swapped.a_better, swapped.b_better) == (computed.b_better, computed.a_better)
    html = _page(client, "c", "b").content.decode()
    section = html.split('data-testid="pair-hierarchical"')[1].split("</section>")[0]
    assert "Monte-Carlo standard error" in section and "8 chains" in section


def test_a_pair_computed_in_reverse_order_is_cached_for_both_orders(client, foldy):
    computed = _page(client, "d", "b", compute=True).context["hierarchical"]
    core = _core("d", "b", computed.seed)
    assert (computed.a_better, computed.b_better) == (core.a_better, core.b_better)
    for a, b, expected in (("b", "d", core.b_better), ("d", "b", core.a_better)):
        shown = _page(client, a, b).context["hierarchical"]
        assert shown.source == "cache" and shown.a_better == expected


def test_a_new_snapshot_version_is_a_new_cache_entry(client, foldy):
    _page(client, "b", "c", compute=True)
    submit_folds(foldy.benchmark, "e", _cells(-0.02))
    refresh(foldy.benchmark)
    assert _page(client, "b", "c").context["hierarchical_state"] == "offer"


def test_the_budget_per_client_is_enforced(client, foldy, monkeypatch):
    monkeypatch.setattr(service, "CLIENT_BUDGET", 1)
    assert _page(client, "b", "c", compute=True).context["hierarchical"].source == "computed"
    refused = _page(client, "b", "d", compute=True)
    assert refused.context["hierarchical_state"] == "refused"
    assert "per visitor and hour" in refused.content.decode()
    # the refused pair was not computed: nothing cached for it
    assert _page(client, "b", "d").context["hierarchical_state"] == "offer"


def test_one_computation_at_a_time(client, foldy):
    lock = f"pair-hierarchical:lock:{ENGINE_VERSION}"
    assert cache.add(lock, 1, 30)
    refused = _page(client, "c", "d", compute=True)
    assert refused.context["hierarchical_state"] == "refused"
    assert "another pair is being computed" in refused.content.decode()
    cache.delete(lock)
    assert _page(client, "c", "d", compute=True).context["hierarchical"].source == "computed"


def test_a_request_refused_for_the_lock_costs_nothing(client, foldy, monkeypatch):
    monkeypatch.setattr(service, "CLIENT_BUDGET", 1)
    lock = f"pair-hierarchical:lock:{ENGINE_VERSION}"
    assert cache.add(lock, 1, 30)
    assert _page(client, "c", "d", compute=True).context["hierarchical_state"] == "refused"
    cache.delete(lock)
    # the budget of one is still whole: this computation is served
    assert _page(client, "c", "d", compute=True).context["hierarchical"].source == "computed"


def test_the_cells_are_capped(client, foldy, monkeypatch):
    monkeypatch.setattr(service, "MAX_CELLS", 2 * N_FOLDS)
    shown = _page(client, "b", "c", compute=True).context["hierarchical"]
    assert shown.n_datasets == 2
    assert shown.notes == ("4 datasets left out to bound the cost",)


def test_without_a_rope_or_folds_it_says_why(client, foldy):
    Metric.objects.filter(benchmark=foldy.benchmark).update(rope=None)
    refresh(foldy.benchmark)
    response = _page(client, "b", "c", compute=True)
    assert response.context["hierarchical_state"] == "not_applicable"
    assert 'data-testid="pair-hierarchical-not-applicable"' in response.content.decode()
