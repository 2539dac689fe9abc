"""The dataset, algorithm and methods pages, and the chart template tags."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import xml.etree.ElementTree as ET

import pytest
from django.template import Context, Template
from django.test import RequestFactory

from estimation.core.contract import to_json
from estimation.models import ResultSnapshot, SnapshotSection
from frontend.explore import presenters
from frontend.selectors import dataset_scores_now
from leaderboard.models import Benchmark
from leaderboard.services import submission_accept
from tests.factories import make_benchmark, make_submission, make_user
from tests.frontend.explore_fixtures import demo_benchmarks  # noqa: F401
from tests.frontend.uneven_folds import engine_values, uneven_folds_benchmark

pytestmark = pytest.mark.django_db


def test_methods_page_shows_live_minimax_bounds(client):
    page = client.get("/methods/")
    assert page.status_code == 200
    html = page.content.decode()
    for anchor in ("loo", "minimax", "nemenyi", "wilcoxon", "tukey", "bootstrap", "evaluation"):
        assert f'id="{anchor}"' in html
    for source in ("Painsky", "Demšar", "Wilcoxon", "Holm", "Hunter", "Tukey", "Efron"):
        assert source in html
    # METHODS 2.2 sanity values for m = 5: K=3 about 0.90 vs K=2 0.96 (n=5), 0.65 vs 0.69 (n=10).
    row5 = html.split('data-testid="minimax-n-5"')[1].split("</tr>")[0]
    row10 = html.split('data-testid="minimax-n-10"')[1].split("</tr>")[0]
    assert "1.000" in row5 and "0.957" in row5 and "0.895" in row5
    assert "0.707" in row10 and "0.691" in row10 and "0.654" in row10


def test_dataset_page_with_tukey_table(client, demo_benchmarks):  # noqa: F811
    page = client.get("/b/simulated-new-vs-old/datasets/task-01/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'data-testid="dataset-scores-table"' in html
    assert 'data-testid="chart-dataset-scores"' in html
    assert 'data-testid="tukey-table"' in html and "tukey-computed" not in html
    table = demo_benchmarks["simulated-new-vs-old"]["within_dataset"].entry("task-01").tukey
    for d, diff in zip(table.cohens_d, table.diff, strict=True):
        assert f"{d:.2f}" in html
        assert f"{diff:.4f}" in html
    scores = html.split('data-testid="dataset-scores-table"')[1].split("</table>")[0]
    assert scores.count(">25</td>") == 4  # 25 folds for each of the four algorithms


def test_dataset_page_computes_tukey_when_the_snapshot_left_it_out(client, demo_benchmarks):  # noqa: F811
    snapshot = ResultSnapshot.objects.get(benchmark__slug="simulated-new-vs-old", status="ready")
    within = demo_benchmarks["simulated-new-vs-old"]["within_dataset"]
    stored = within.entry("task-02").tukey
    left_out = dataclasses.replace(
        within,
        datasets=tuple(
            dataclasses.replace(d, tukey=None) if d.dataset == "task-02" else d
            for d in within.datasets
        ),
    )
    body = json.dumps(to_json(left_out))
    SnapshotSection.objects.filter(snapshot=snapshot, name="within_dataset").update(
        body=body, etag=hashlib.sha256(body.encode()).hexdigest()
    )
    html = client.get("/b/simulated-new-vs-old/datasets/task-02/").content.decode()
    assert 'data-testid="tukey-computed"' in html
    for d, diff in zip(stored.cohens_d, stored.diff, strict=True):
        assert f"{d:.2f}" in html and f"{diff:.4f}" in html


def test_dataset_page_without_folds_says_why(client, demo_benchmarks):  # noqa: F811
    html = client.get("/b/demsar-2006/datasets/adult%20(sample)/").content.decode()
    assert 'data-testid="tukey-not-applicable"' in html and "no folds" in html
    top3 = client.get("/b/tabzilla-hard-top3/datasets/airlines/")
    assert top3.status_code == 200


def test_algorithm_pages(client, demo_benchmarks):  # noqa: F811
    html = client.get("/b/simulated-new-vs-old/algorithms/new/").content.decode()
    for testid in (
        "algorithm-facts",
        "chart-algorithm-estimates",
        "chart-rank-histogram",
        "worst-datasets-table",
        "chart-margin-to-winner",
    ):
        assert f'data-testid="{testid}"' in html
    board = demo_benchmarks["simulated-new-vs-old"]["board"]
    for entry in board.estimators:
        assert f"{board.column(entry.p)['new']:.3f}" in html
    # "new" loses task-01 and task-02 by about eight points: the largest margins.
    margins = html.split('data-testid="chart-margin-to-winner-table"')[1]
    assert margins.index("task-01") < margins.index("task-05")

    top3 = client.get("/b/tabzilla-hard-top3/algorithms/XGBoost/").content.decode()
    assert "not in the top 3" in top3 and "rankings only" in top3
    assert client.get("/b/demsar-2006/algorithms/C4.5+m+cf/").status_code == 200


def test_unknown_names_and_hidden_benchmarks_are_404(client, demo_benchmarks):  # noqa: F811
    assert client.get("/b/demsar-2006/algorithms/nope/").status_code == 404
    assert client.get("/b/demsar-2006/datasets/nope/").status_code == 404
    assert client.get("/b/nope/datasets/iris/").status_code == 404
    assert client.get("/b/demsar-2006/datasets/iris/?metric=nope").status_code == 404

    private = make_benchmark("secret", visibility=Benchmark.Visibility.PRIVATE)
    unlisted = make_benchmark("link-only", visibility=Benchmark.Visibility.UNLISTED)
    for benchmark in (private, unlisted):
        submission_accept(submission=make_submission(benchmark, "a1", {"d1": 0.5}))
    assert client.get("/b/secret/datasets/d1/").status_code == 404
    assert client.get("/b/secret/algorithms/a1/").status_code == 404
    assert client.get("/b/link-only/datasets/d1/").status_code == 200
    assert client.get("/b/link-only/algorithms/a1/").status_code == 200
    maintainer = make_user("keeper")
    private.maintainers.add(maintainer)
    client.force_login(maintainer)
    page = client.get("/b/secret/algorithms/a1/")
    assert page.status_code == 200 and "No results have been computed yet" in page.content.decode()
    assert client.get("/b/secret/datasets/d1/").status_code == 200


def test_benchmark_charts_tag_renders_every_chart(demo_benchmarks):  # noqa: F811
    template = Template("{% load charts %}{% benchmark_charts sections benchmark %}")
    benchmark = Benchmark.objects.get(slug="demsar-2006")
    request = RequestFactory().get("/b/demsar-2006/", {"estimator": "borda"})
    html = template.render(
        Context(
            {"sections": demo_benchmarks["demsar-2006"], "benchmark": benchmark, "request": request}
        )
    )
    assert '<section id="charts"' in html
    for key in (
        "win-probability",
        "cd-nemenyi",
        "cd-wilcoxon",
        "rank-distribution",
        "rank-heatmap",
        "pvalues-wilcoxon",
        "pvalues-nemenyi",
        "estimator-evaluation",
        "estimator-weights",
    ):
        assert f'data-testid="chart-{key}"' in html
    assert "Probability of winning a new dataset: Borda count" in html
    assert 'data-estimator="borda" aria-current="true"' in html
    for svg in html.split("<svg")[1:]:
        ET.fromstring("<svg" + svg.split("</svg>")[0] + "</svg>")

    top3 = template.render(
        Context({"sections": demo_benchmarks["tabzilla-hard-top3"], "benchmark": benchmark})
    )
    assert 'data-testid="chart-cd-nemenyi-not-applicable"' in top3
    assert "Not applicable: only the top 3 of 18 positions are known" in top3
    assert not Template("{% load charts %}{% benchmark_charts None b %}").render(Context()).strip()


def test_algorithm_margins_are_over_the_engines_fold_means_with_uneven_folds():
    """The algorithm page's dataset scores are the analysis's own (the engine's fold means),
    whatever folds an algorithm lacks: on d1, folds 0.8 and 0.9 tie with 0.85 three times,
    so neither algorithm trails the other there."""
    benchmark = uneven_folds_benchmark()
    scores = dataset_scores_now(benchmark=benchmark, metric=benchmark.metrics.get())
    engine = engine_values(benchmark)
    assert scores == {
        dataset: {
            algorithm: by_dataset[dataset]
            for algorithm, by_dataset in engine.items()
            if dataset in by_dataset
        }
        for dataset in ("d1", "d2", "d3")
    }
    assert scores["d1"] == {"a": 0.85, "b": 0.85}
    for algorithm in ("a", "b"):
        margins = presenters.algorithm_margins(
            scores=scores, algorithm=algorithm, higher_is_better=True
        )
        assert next(row for row in margins if row.dataset == "d1").margin == 0.0
