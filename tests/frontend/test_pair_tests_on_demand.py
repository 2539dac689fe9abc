"""Head to head above analysis.MAX_PAIRWISE_ALGORITHMS: a pair outside the stored pairwise
sections is computed from the snapshot's ranks and scores, to the values the whole
matrices hold, cached per snapshot; a pair inside them is read as stored."""

from __future__ import annotations

import numpy as np
import pytest
from django.core.cache import cache
from django.urls import reverse

from estimation import pair_tests as service
from estimation.core import pairwise_scope
from estimation.core.analysis import AnalysisSettings, analyze
from estimation.core.contract import PairwiseScope
from estimation.core.table import ResultTable
from estimation.models import ResultSnapshot
from estimation.selectors import clear_parsed_sections
from tests.factories import cache_clear_own, make_benchmark
from tests.frontend.test_readers_support import store_snapshot

pytestmark = pytest.mark.django_db

M, N, BOUND = 24, 20, 8
# the same formulas for one pair as for the batch (see tests/core/test_pairwise_scope.py)
TOLERANCE = 1e-12


def _table() -> ResultTable:
    rng = np.random.default_rng(11)
    values = np.linspace(0, 1.5, M)[None, :] + rng.normal(size=(N, M))
    return ResultTable(
        datasets=tuple(f"d{i:02d}" for i in range(N)),
        algorithms=tuple(f"algo-{j:03d}" for j in range(M)),
        values=values,
    )


@pytest.fixture
def boards(monkeypatch):
    cache_clear_own()
    settings = AnalysisSettings(bootstrap=0)
    whole = analyze(_table(), settings, advisor=False).payload
    monkeypatch.setattr(pairwise_scope, "MAX_PAIRWISE_ALGORITHMS", BOUND)
    top = analyze(_table(), settings, advisor=False).payload
    benchmark = make_benchmark("big-pairs")
    store_snapshot(benchmark, top)
    clear_parsed_sections()
    yield whole, top
    cache_clear_own()


def _pair(client, a: str, b: str):
    response = client.get(reverse("compare-pair", args=["big-pairs", a, b]))
    assert response.status_code == 200
    return response


def _expected(whole, a: str, b: str) -> dict[str, float | None]:
    names = whole.board.algorithms
    i, j, m = names.index(a), names.index(b), len(names)
    return {
        "share": whole.wins.wins.get(i, j, m),
        "nemenyi": whole.nemenyi.pvalues.get(i, j, m),
        "wilcoxon": whole.wilcoxon.pvalues.get(i, j, m),
        "raw": whole.wilcoxon.pvalues_raw.get(i, j, m),
        "effect": whole.wilcoxon.rank_biserial.get(i, j, m),
    }


def test_a_pair_outside_the_stored_sections_is_computed_to_the_whole_matrix(client, boards):
    whole, top = boards
    scope = top.pairwise
    assert isinstance(scope, PairwiseScope) and len(scope.algorithms) == BOUND
    assert scope.holm_raw, "20 datasets: some Holm-corrected p-values below 1"
    outside = [a for a in whole.board.algorithms if a not in scope.algorithms]
    for a, b in ((outside[0], outside[-1]), (outside[-1], scope.algorithms[0])):
        response = _pair(client, a, b)
        pair = response.context["pair"]
        want = _expected(whole, a, b)
        assert pair.computed_here
        assert pair.stored_share == pytest.approx(want["share"], abs=TOLERANCE)
        assert pair.nemenyi.pvalue == pytest.approx(want["nemenyi"], abs=TOLERANCE)
        assert pair.wilcoxon.pvalue == pytest.approx(want["wilcoxon"], abs=TOLERANCE)
        assert pair.wilcoxon.pvalue_raw == pytest.approx(want["raw"], abs=TOLERANCE)
        assert pair.wilcoxon.effect == pytest.approx(want["effect"], abs=TOLERANCE)
        assert 'data-testid="pair-computed-here"' in response.content.decode()


def test_a_stored_pair_is_read_and_a_computed_one_cached_per_snapshot(client, boards):
    whole, top = boards
    a, b = top.pairwise.algorithms[:2]
    pair = _pair(client, a, b).context["pair"]
    assert not pair.computed_here
    assert pair.wilcoxon.pvalue == pytest.approx(_expected(whole, a, b)["wilcoxon"], abs=1e-15)
    outside = [x for x in whole.board.algorithms if x not in top.pairwise.algorithms]
    first = _pair(client, outside[1], outside[2]).context["pair"]
    snapshot = ResultSnapshot.objects.get(benchmark__slug="big-pairs")
    low, high = sorted((outside[1], outside[2]))
    assert cache.get(service._key(snapshot, low, high)) is not None  # kept per snapshot
    again = _pair(client, outside[2], outside[1]).context["pair"]  # the other order
    assert again.stored_share == pytest.approx(1 - first.stored_share, abs=TOLERANCE)
    assert again.wilcoxon.effect == pytest.approx(-first.wilcoxon.effect, abs=TOLERANCE)
    assert again.wilcoxon.pvalue == first.wilcoxon.pvalue


@pytest.mark.parametrize(
    ("url", "kwargs"),
    [
        ("benchmark-leaderboard", {}),
        ("explore-charts", {}),
        ("api-snapshot-latest", {}),
        ("api-snapshot-latest-csv", {}),
        ("api-snapshot-latest-json", {}),
        *(
            ("api-snapshot-latest-section", {"name": name})
            for name in ("wins", "nemenyi", "wilcoxon", "pairwise")
        ),
    ],
)
def test_the_readers_of_pairwise_sections_answer_above_the_bound(client, boards, url, kwargs):
    response = client.get(reverse(url, kwargs={"slug": "big-pairs", **kwargs}))
    assert response.status_code == 200, response.content[:300]


def test_the_api_serves_the_pairwise_scope_and_the_sections_it_covers(client, boards):
    _, top = boards
    scope = client.get(
        reverse("api-snapshot-latest-section", kwargs={"slug": "big-pairs", "name": "pairwise"})
    ).json()
    wins = client.get(
        reverse("api-snapshot-latest-section", kwargs={"slug": "big-pairs", "name": "wins"})
    ).json()
    body = scope.get("section", scope)
    assert list(body["algorithms"]) == list(top.pairwise.algorithms)
    assert list(wins.get("section", wins)["algorithms"]) == list(top.pairwise.algorithms)
