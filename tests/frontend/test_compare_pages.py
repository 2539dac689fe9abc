"""Head to head, the pair picker and the Pareto view, through the test client."""

from __future__ import annotations

import hashlib
import itertools
import json
import xml.etree.ElementTree as ET
from urllib.parse import quote

import numpy as np
import pytest
from django.urls import reverse

from estimation.core.contract import pair_index
from estimation.core.pairwise import wilson_interval
from estimation.core.table import ResultTable
from estimation.models import ResultSnapshot, SnapshotSection
from frontend.compare.converters import AlgorithmNameConverter
from frontend.compare.links import pair_url_maker
from frontend.compare.pareto import MetricAxis, pareto_view
from leaderboard.services import (
    ScoreInput,
    SubmissionInput,
    submission_accept,
    submission_create,
)
from tests.factories import make_user
from tests.frontend.explore_fixtures import demo_benchmarks  # noqa: F401
from tests.frontend.test_readers_support import computed_benchmark, refresh
from tests.frontend.uneven_folds import engine_values, uneven_folds_benchmark

pytestmark = pytest.mark.django_db


def _pair(slug: str, a: str, b: str) -> str:
    return reverse("compare-pair", kwargs={"slug": slug, "a": a, "b": b})


def _svg_of(html: str, testid: str) -> ET.Element:
    start = html.index(f'data-testid="{testid}-svg"')
    start = html.rindex("<svg", 0, start)
    end = html.index("</svg>", start) + len("</svg>")
    return ET.fromstring(html[start:end])


def test_head_to_head_reads_the_stored_pair(client, demo_benchmarks):  # noqa: F811
    sections = demo_benchmarks["demsar-2006"]
    board, ranks = sections["board"], sections["rank_matrix"]
    a, b = board.algorithms[0], board.algorithms[2]
    response = client.get(_pair("demsar-2006", a, b))
    assert response.status_code == 200
    pair = response.context["pair"]
    ia, ib = ranks.algorithms.index(a), ranks.algorithms.index(b)
    column = np.array(ranks.ranks)
    wins = int((column[:, ia] < column[:, ib]).sum())
    ties = int((column[:, ia] == column[:, ib]).sum())
    assert (pair.record.wins, pair.record.ties) == (wins, ties)
    assert pair.record.n == len(board.input.datasets) == 14
    # The tie-split share is the stored wins matrix's value for the pair.
    assert pair.record.share == pytest.approx(pair.stored_share, abs=1e-12)
    assert (pair.record.lower, pair.record.upper) == pytest.approx(
        wilson_interval(wins + ties / 2, 14)
    )
    m = len(board.algorithms)
    i, j = sorted((board.algorithms.index(a), board.algorithms.index(b)))
    wilcoxon = sections["wilcoxon"]
    assert pair.wilcoxon.pvalue == wilcoxon.pvalues.upper[pair_index(i, j, m)]
    assert pair.nemenyi.pvalue == sections["nemenyi"].pvalues.upper[pair_index(i, j, m)]
    html = response.content.decode()
    for testid in ("pair-record", "pair-tests", "chart-pair-differences", "pair-form"):
        assert f'data-testid="{testid}"' in html
    assert "no folds" in html  # Demšar's table has no folds: Tukey does not apply
    svg = _svg_of(html, "pair-differences")
    assert len(svg.findall("{http://www.w3.org/2000/svg}g")) == 14


def test_swapping_the_pair_mirrors_every_number(client, demo_benchmarks):  # noqa: F811
    board = demo_benchmarks["simulated-new-vs-old"]["board"]
    a, b = board.algorithms[0], board.algorithms[1]
    ab = client.get(_pair("simulated-new-vs-old", a, b)).context["pair"]
    ba = client.get(_pair("simulated-new-vs-old", b, a)).context["pair"]
    assert (ab.record.wins, ab.record.losses) == (ba.record.losses, ba.record.wins)
    assert ab.record.share == pytest.approx(1 - ba.record.share)
    assert ab.wilcoxon.pvalue == ba.wilcoxon.pvalue
    assert ab.wilcoxon.effect == pytest.approx(-ba.wilcoxon.effect)
    assert ab.tukey and len(ab.tukey) == len(board.input.datasets)
    for x, y in zip(ab.tukey, ba.tukey, strict=True):
        assert x.difference == pytest.approx(-y.difference)
        assert x.pvalue == y.pvalue
    for x, y in zip(ab.differences, ba.differences, strict=True):
        assert x.advantage == pytest.approx(-y.advantage)


def test_unknown_or_identical_algorithms_are_404(client, demo_benchmarks):  # noqa: F811
    a = demo_benchmarks["demsar-2006"]["board"].algorithms[0]
    assert client.get(_pair("demsar-2006", a, "no such thing")).status_code == 404
    assert client.get(_pair("demsar-2006", a, a)).status_code == 404
    assert client.get(_pair("no-such-benchmark", a, "x")).status_code == 404
    assert client.get(_pair("demsar-2006", a, "x") + "?metric=nope").status_code == 404


def test_picker_redirects_a_valid_pair_and_explains_a_bad_one(client, demo_benchmarks):  # noqa: F811
    board = demo_benchmarks["tabzilla-hard-top3"]["board"]
    a, b = board.algorithms[:2]
    page = client.get("/b/tabzilla-hard-top3/compare/")
    assert page.status_code == 200 and 'data-testid="pair-a"' in page.content.decode()
    response = client.get("/b/tabzilla-hard-top3/compare/", {"a": a, "b": b})
    assert response.status_code == 302
    assert response["Location"] == _pair("tabzilla-hard-top3", a, b)
    assert client.get(response["Location"]).status_code == 200
    same = client.get("/b/tabzilla-hard-top3/compare/", {"a": a, "b": a})
    assert same.status_code == 200 and same.context["problem"] == "Pick two different algorithms."
    bad = client.get("/b/tabzilla-hard-top3/compare/", {"a": "<b>x</b>", "b": b})
    assert bad.context["problem"] and "<b>x</b>" not in bad.content.decode()


def test_pairwise_grids_link_to_the_head_to_head(client, demo_benchmarks):  # noqa: F811
    board = demo_benchmarks["demsar-2006"]["board"]
    html = client.get("/b/demsar-2006/charts/").content.decode()
    a, b = board.algorithms[0], board.algorithms[1]
    assert f'<a href="{_pair("demsar-2006", a, b)}">' in html
    assert "compare the two algorithms head to head" in html


HOSTILE = ["a/b", "..", "x%2Fy", "<script>alert(1)</script>", "Ünï/cödé ✓", "q?x=1#f"]


def test_converter_round_trips_hostile_names():
    converter = AlgorithmNameConverter()
    for name in HOSTILE:
        encoded = converter.to_url(name)
        assert "/" not in encoded and encoded not in (".", "..")
        # reverse() quotes the "%"; the server decodes that layer before routing.
        assert converter.to_python(encoded) == name
    make = pair_url_maker("s", "train time")
    for a, b in itertools.pairwise(HOSTILE):
        assert make(a, b) == _pair("s", a, b) + "?metric=train+time"


def test_hostile_names_reach_their_pages_escaped(client):
    scores = {
        name: {"d1": 0.1 * k + 0.05, "d2": 0.9 - 0.1 * k, "d3": 0.3 + 0.05 * k}
        for k, name in enumerate(HOSTILE)
    }
    computed_benchmark("hostile", scores=scores)
    for a, b in itertools.pairwise(HOSTILE):
        url = _pair("hostile", a, b)
        response = client.get(url)
        assert response.status_code == 200, (a, b, url)
        assert response.context["pair"].a == a and response.context["pair"].b == b
        html = response.content.decode()
        assert "<script>alert" not in html
        _svg_of(html, "pair-differences")  # parses as XML
    picked = client.get("/b/hostile/compare/", {"a": HOSTILE[0], "b": HOSTILE[3]})
    assert picked.status_code == 302
    assert client.get(picked["Location"]).context["pair"].b == HOSTILE[3]
    assert quote(HOSTILE[0], safe="") not in picked["Location"]  # a double-escaped slash


def two_metric_benchmark():
    # computed_benchmark's default scores give alpha, beta and gamma accuracy only.
    benchmark = computed_benchmark(
        "tradeoff",
        metrics=(("accuracy", "higher"), ("train seconds", "lower")),
    )
    table = {  # accuracy and training time on two datasets
        "slow-best": ([0.95, 0.93], [100.0, 120.0]),
        "fast-good": ([0.90, 0.88], [10.0, 12.0]),
        "dominated": ([0.85, 0.84], [50.0, 60.0]),
        "fastest": ([0.70, 0.72], [1.0, 1.0]),
        "<b>evil</b>": ([0.80, 0.80], [80.0, 80.0]),
    }
    user = make_user("trader")
    for name, (accuracy, seconds) in table.items():
        scores = [
            ScoreInput(dataset=f"d{k}", value=v, metric="accuracy") for k, v in enumerate(accuracy)
        ] + [
            ScoreInput(dataset=f"d{k}", value=v, metric="train seconds")
            for k, v in enumerate(seconds)
        ]
        submission = submission_create(
            benchmark=benchmark,
            submitter=user,
            entry=SubmissionInput(algorithm=name, scores=scores),
            new_datasets_confirmed=True,
        )
        submission_accept(submission=submission)
    refresh(benchmark)
    return benchmark


def test_pareto_view_marks_the_front(client):
    two_metric_benchmark()
    response = client.get("/b/tradeoff/pareto/")
    assert response.status_code == 200
    view = response.context["view"]
    front = {p.algorithm for p in view.points if p.on_front}
    assert front == {"slow-best", "fast-good", "fastest"}
    dominated = {p.algorithm: p.dominated_by for p in view.points if not p.on_front}
    assert dominated["dominated"] == "fast-good"
    assert view.n_datasets == (2, 2)
    assert view.left_out == ("alpha", "beta", "gamma")  # no training time: not compared
    html = response.content.decode()
    assert "<b>evil</b>" not in html and "&lt;b&gt;evil&lt;/b&gt;" in html
    svg = _svg_of(html, "pareto")
    fronts = [g for g in svg.iter("{http://www.w3.org/2000/svg}g") if g.get("data-front") == "yes"]
    assert len(fronts) == 3
    swapped = client.get("/b/tradeoff/pareto/", {"x": "train seconds", "y": "accuracy"})
    assert {p.algorithm for p in swapped.context["view"].front} == front
    assert client.get("/b/tradeoff/pareto/", {"x": "nope"}).status_code == 404


def test_pareto_view_of_a_one_metric_benchmark_says_so(client, demo_benchmarks):  # noqa: F811
    html = client.get("/b/demsar-2006/pareto/").content.decode()
    assert 'data-testid="pareto-one-metric"' in html


def test_lower_is_better_turns_the_differences_around(client):
    computed_benchmark(
        "errors",
        scores={
            "low": {"d1": 0.1, "d2": 0.2, "d3": 0.5},
            "high": {"d1": 0.3, "d2": 0.4, "d3": 0.2},
        },
        metrics=(("error", "lower"),),
    )
    response = client.get(_pair("errors", "low", "high"))
    pair = response.context["pair"]
    assert (pair.record.wins, pair.record.losses) == (2, 1)
    assert [round(row.advantage, 6) for row in pair.differences] == [0.2, 0.2, -0.3]
    assert [row.outcome for row in pair.differences] == ["win", "win", "loss"]
    assert "error: B minus A (lower is better)" in response.content.decode()


def test_without_stored_ranks_the_scores_decide_within_the_tie_tolerance(client):
    benchmark = computed_benchmark(
        "no-ranks",
        scores={
            "a": {"d1": 0.90, "d2": 0.50, "d3": 0.700, "d4": 0.2},
            "b": {"d1": 0.80, "d2": 0.60, "d3": 0.705, "d4": 0.2},
        },
        tie_tolerance=0.01,
    )
    snapshot = ResultSnapshot.objects.get(benchmark=benchmark, status="ready")
    body = json.dumps({"not_applicable": "too many ranks to store"})
    SnapshotSection.objects.filter(snapshot=snapshot, name="rank_matrix").update(
        body=body, etag=hashlib.sha256(body.encode()).hexdigest()
    )
    pair = client.get(_pair("no-ranks", "a", "b")).context["pair"]
    assert pair.outcome_source == "scores"
    # d3 differs by 0.005, within the tolerance: a tie, as is the equal d4.
    assert [row.outcome for row in pair.differences] == ["win", "loss", "tie", "tie"]
    assert pair.record.share == pytest.approx(pair.stored_share)


def test_pareto_means_are_over_the_datasets_every_algorithm_has():
    nan = np.nan
    accuracy = ResultTable(
        datasets=("d1", "d2", "d3"),
        algorithms=("a", "b", "c", "only-accuracy"),
        values=np.array([[0.9, 0.8, 0.7, 0.1], [0.5, 0.6, nan, 0.1], [0.7, 0.7, 0.8, 0.1]]),
    )
    seconds = ResultTable(
        datasets=("d1", "d2"),
        algorithms=("a", "b", "c"),
        values=np.array([[10.0, 5.0, 1.0], [30.0, 5.0, 2.0]]),
        higher_is_better=False,
    )
    axes = (MetricAxis("accuracy", True), MetricAxis("seconds", False))
    view = pareto_view(axes, [accuracy, seconds])
    assert view.left_out == ("only-accuracy",)
    assert view.n_datasets == (2, 2)  # d2 lacks c's accuracy
    means = {p.algorithm: p.values for p in view.points}
    assert means["a"] == pytest.approx((0.8, 20.0))
    assert means["b"] == pytest.approx((0.75, 5.0))
    assert means["c"] == pytest.approx((0.75, 1.5))
    assert {p.algorithm for p in view.front} == {"a", "c"}
    assert next(p for p in view.points if p.algorithm == "b").dominated_by == "c"
    empty = pareto_view(axes, [accuracy, ResultTable(("d9",), ("a",), np.array([[1.0]]))])
    assert "fewer than two" in empty.not_applicable


def test_head_to_head_values_are_the_engines_fold_means_with_uneven_folds(client):
    """A dataset's score is the engine's fold mean (exact summation), whatever folds an
    algorithm lacks: folds 0.8 and 0.9 tie with 0.85 three times, as in the analysis."""
    benchmark = uneven_folds_benchmark()
    refresh(benchmark)
    values = engine_values(benchmark)
    engine = {
        (dataset, name): value
        for name, by_dataset in values.items()
        for dataset, value in by_dataset.items()
    }
    pair = client.get(_pair("uneven-folds", "a", "b")).context["pair"]
    for row in pair.differences:
        assert row.value_a == engine[(row.dataset, "a")], row.dataset
        assert row.value_b == engine[(row.dataset, "b")], row.dataset
    d1 = next(row for row in pair.differences if row.dataset == "d1")
    assert d1.value_a == d1.value_b == 0.85 and d1.advantage == 0.0
    assert d1.outcome == "tie"
