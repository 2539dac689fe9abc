"""The charts page's method-sensitivity, practical-equivalence and power panels, and the
head-to-head page's practical-equivalence row (a metric with a ROPE)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from leaderboard.models import Metric
from tests.frontend.test_readers_support import computed_benchmark, refresh

pytestmark = pytest.mark.django_db

SCORES = {
    "a": {f"d{i}": 0.80 + i / 100 for i in range(8)},
    "b": {f"d{i}": 0.801 + i / 100 for i in range(8)},
    "c": {f"d{i}": 0.60 + i / 50 for i in range(8)},
}


def _with_rope(rope: float | None):
    benchmark = computed_benchmark("ropey", scores=SCORES, bootstrap_size=0)
    if rope is not None:
        Metric.objects.filter(benchmark=benchmark).update(rope=rope)
        refresh(benchmark)
    return benchmark


def test_charts_page_shows_the_three_panels_with_a_rope(client):
    _with_rope(0.01)
    html = client.get("/b/ropey/charts/").content.decode()
    assert 'data-testid="sensitivity-sentence"' in html
    assert "The winner does not depend on the method" in html or "depends on the method" in html
    matrix = html.split('data-testid="practical-matrix"')[1].split("</table>")[0]
    assert "equivalent" in matrix  # a and b differ by 0.001 everywhere: within ±0.01
    assert 'data-testid="power"' in html


def test_without_a_rope_the_practical_panel_says_why(client):
    _with_rope(None)
    html = client.get("/b/ropey/charts/").content.decode()
    assert 'data-testid="practical-not-applicable"' in html
    assert "no region of practical equivalence is set" in html


def test_head_to_head_shows_the_practical_probabilities_and_the_decision(client):
    _with_rope(0.01)
    url = reverse("compare-pair", kwargs={"slug": "ropey", "a": "a", "b": "b"})
    html = client.get(url).content.decode()
    section = html.split('data-testid="pair-practical"')[1].split("</section>")[0]
    assert 'data-testid="pair-practical-decision">practically equivalent' in section
    swapped = reverse("compare-pair", kwargs={"slug": "ropey", "a": "c", "b": "a"})
    text = client.get(swapped).content.decode().split('data-testid="pair-practical"')[1]
    assert "a practically better" in text.split("</section>")[0]


def test_a_pair_not_stored_is_computed_to_the_engines_numbers(client, monkeypatch):
    """The page computes a pair outside the stored matrix with the engine's datasets,
    order, seed and draws: the numbers the engine computes for it."""
    import numpy as np

    from estimation.core import practical
    from estimation.selectors import SnapshotSections

    scores = {
        name: {f"d{i}": 0.5 + 0.01 * k + 0.003 * ((i * (k + 3)) % 7) for i in range(9)}
        for k, name in enumerate("abcdef")
    }
    monkeypatch.setattr(practical, "MAX_COMPARED", 2)
    benchmark = computed_benchmark("ropey", scores=scores, bootstrap_size=0)
    Metric.objects.filter(benchmark=benchmark).update(rope=0.005)
    (snapshot,) = refresh(benchmark)
    sections = SnapshotSections(snapshot)
    stored, board = sections["practical"], sections["board"]
    assert len(stored.algorithms) == 2 and "a" not in stored.algorithms
    url = reverse("compare-pair", kwargs={"slug": "ropey", "a": "a", "b": "b"})
    response = client.get(url)
    assert "Computed for this page" in response.content.decode()
    shown = response.context["pair"].practical
    matrix = np.array([[scores[x][d] for x in "ab"] for d in board.input.datasets])
    engine = practical.practical_probabilities(
        matrix, [(0, 1)], rope=0.005, rng=stored.seed, n_samples=stored.n_samples
    )[(0, 1)]
    assert (shown.a_better, shown.equivalent, shown.b_better) == (
        engine.a_better,
        engine.equivalent,
        engine.b_better,
    )


def _folds_board(rope: float | None = None):
    """a, b and c on 6 datasets x 5 folds (a just ahead of b, c behind), computed."""
    from leaderboard.services import benchmark_create
    from tests.frontend.uneven_folds import submit_folds

    benchmark = benchmark_create(
        slug="foldy", title="Folds", metrics=[("score", "higher")], bootstrap_size=0
    )
    for name, shift in (("a", 0.02), ("b", 0.0), ("c", -0.05)):
        cells = {
            f"d{i}": {k: 0.7 + i / 100 + shift + ((i * 7 + k * 3) % 5) / 500 for k in range(5)}
            for i in range(6)
        }
        submit_folds(benchmark, name, cells)
    if rope is not None:
        Metric.objects.filter(benchmark=benchmark).update(rope=rope)
    refresh(benchmark)
    return benchmark


def test_charts_page_shows_the_hierarchical_model_and_more_folds_with_folds(client):
    _folds_board(rope=0.01)
    html = client.get("/b/foldy/charts/").content.decode()
    table = html.split('data-testid="hierarchical-table"')[1].split("</table>")[0]
    assert "6 × 5" in table and ">b<" in table
    assert 'data-testid="folds-power-sentence"' in html
    assert "folds" in html.split('data-testid="folds-power-sentence"')[1].split("</p>")[0]


def test_without_folds_the_hierarchical_model_says_why(client):
    _with_rope(0.01)
    html = client.get("/b/ropey/charts/").content.decode()
    assert 'data-testid="hierarchical-not-applicable"' in html
    assert "the results have no folds" in html


def test_the_leaderboard_verdict_says_practically_equivalent_where_it_holds(client):
    benchmark = _with_rope(0.01)  # b leads a by 0.001 on every dataset: within ±0.01
    html = client.get("/b/ropey/").content.decode()
    verdict = html.split('data-testid="verdict-lead"')[1].split("</details>")[0]
    assert "a is practically equivalent to b" in verdict
    Metric.objects.filter(benchmark=benchmark).update(rope=None)
    refresh(benchmark)
    html = client.get("/b/ropey/").content.decode()
    assert "practically equivalent" not in html.split('data-testid="verdict-lead"')[1]


def test_the_power_panel_carries_the_folds_power_without_a_rope(client):
    _folds_board()
    html = client.get("/b/foldy/charts/").content.decode()
    power = html.split('data-testid="power"')[1].split("</section>")[0]
    sentence = power.split('data-testid="advisor-folds-power"')[1].split("</p>")[0]
    assert "folds" in sentence and "separates a from b" in sentence
    assert 'data-testid="practical-not-applicable"' in html  # no ROPE, yet the folds power
    _with_rope(0.01)  # no folds: the panel says so
    html = client.get("/b/ropey/charts/").content.decode()
    assert 'data-testid="advisor-folds-power-not-applicable"' in html
