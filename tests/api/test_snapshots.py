import pytest

from estimation.models import ResultSnapshot
from estimation.services import snapshot_refresh
from leaderboard.services import submission_accept
from tests.factories import make_submission

pytestmark = pytest.mark.django_db

BASE = "/api/benchmarks/toy/snapshots/"


@pytest.fixture
def computed(benchmark):
    """Version 1 computed by the engine from three accepted submissions."""
    for algorithm, values in {
        "alpha": {"d1": 0.9, "d2": 0.8, "d3": 0.1},
        "beta": {"d1": 0.5, "d2": 0.9, "d3": 0.2},
        "gamma": {"d1": 0.1, "d2": 0.1, "d3": 0.3},
    }.items():
        submission_accept(submission=make_submission(benchmark, algorithm, values))
    (snapshot,) = snapshot_refresh(benchmark_id=benchmark.pk)
    assert snapshot.status == ResultSnapshot.Status.READY, snapshot.error
    return snapshot


@pytest.fixture
def computing(computed):
    """Version 2, half way through."""
    return ResultSnapshot.objects.create(
        benchmark=computed.benchmark,
        metric=computed.metric,
        version=2,
        fingerprint="f" * 64,
        engine_version=computed.engine_version,
        stage="bootstrap",
        progress=0.5,
    )


def test_no_results_yet(client, benchmark):
    response = client.get(f"{BASE}latest/")
    assert response.status_code == 404
    assert response.json() == {"detail": "No results have been computed yet for metric 'score'."}
    assert client.get(BASE).json()["results"] == []


def test_latest_serves_the_ready_snapshot_and_tells_what_is_computing(client, computing):
    response = client.get(f"{BASE}latest/")
    assert response.status_code == 200
    body = response.json()
    snapshot = ResultSnapshot.objects.get(version=1)
    assert (body["benchmark"], body["metric"], body["version"], body["status"]) == (
        "toy",
        "score",
        1,
        "ready",
    )
    assert body["payload"] == snapshot.payload
    assert body["computing"]["version"] == 2
    assert (body["computing"]["stage"], body["computing"]["progress"]) == ("bootstrap", 0.5)


def test_by_version_and_unknown_metric(client, computing):
    response = client.get(f"{BASE}2/?metric=score")
    assert response.status_code == 200
    body = response.json()
    assert (body["status"], body["stage"], body["progress"], body["payload"]) == (
        "computing",
        "bootstrap",
        0.5,
        None,
    )
    response = client.get(f"{BASE}3/")
    assert response.status_code == 404
    assert response.json() == {"detail": "No version 3 of the results for metric 'score'."}
    response = client.get(f"{BASE}latest/?metric=auc")
    assert response.status_code == 404
    assert response.json() == {"detail": "No metric 'auc' in 'toy'."}


def test_history_lists_versions_newest_first(client, computing):
    response = client.get(BASE)
    assert response.status_code == 200
    rows = response.json()["results"]
    assert [(r["version"], r["status"], r["stage"], r["progress"]) for r in rows] == [
        (2, "computing", "bootstrap", 0.5),
        (1, "ready", "", 1.0),
    ]
    assert rows[0]["finished_at"] is None and rows[1]["finished_at"] is not None
    assert "payload" not in rows[0]


def test_csv_export_has_one_row_per_algorithm(client, computed):
    response = client.get(f"{BASE}latest/export.csv")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="toy-score-v1.csv"'
    payload = ResultSnapshot.objects.get(pk=computed.pk).payload
    lines = response.content.decode().splitlines()
    header = lines[0].split(",")
    assert header[:3] == ["algorithm", "win_rate", "mean_rank"]
    assert ["loo_kl", "loo_kl_ci_low", "loo_kl_ci_high", "loo_kl_p_best"] == header[3:7]
    assert [line.split(",")[0] for line in lines[1:]] == payload["input"]["algorithms"]
    alpha = dict(
        zip(
            header, lines[1 + payload["input"]["algorithms"].index("alpha")].split(","), strict=True
        )
    )
    assert float(alpha["mean_rank"]) == pytest.approx(payload["mean_rank"]["alpha"])
    assert float(alpha["win_rate"]) == pytest.approx(payload["win_rate"]["alpha"])
    loo = payload["estimators"]["loo_kl"]
    assert float(alpha["loo_kl"]) == pytest.approx(loo["p"]["alpha"])
    assert float(alpha["loo_kl_ci_high"]) == pytest.approx(loo["ci"]["alpha"][1])


def test_json_export(client, computed):
    response = client.get(f"{BASE}latest/export.json")
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="toy-score-v1.json"'
    body = response.json()
    assert (body["benchmark"], body["metric"], body["version"]) == ("toy", "score", 1)
    assert body["payload"] == computed.payload
    assert [row["algorithm"] for row in body["rows"]] == ["alpha", "beta", "gamma"]
    assert body["rows"][1]["win_rate"] == pytest.approx(computed.payload["win_rate"]["beta"])
    assert body["columns"][0] == "algorithm"
    assert client.get(f"{BASE}1/export.json").json()["rows"] == body["rows"]


def test_a_computing_version_has_nothing_to_export(client, computing):
    assert client.get(f"{BASE}2/export.csv").status_code == 404


def test_export_columns_follow_the_payload():
    from leaderboard.api.export import rows_as_csv, snapshot_rows

    payload = {
        "input": {"algorithms": ["a", "b"], "n_datasets": 3},
        "params": {"alpha": 0.05},
        "win_rate": {"a": 0.75, "b": 0.25},
        "estimators": {"loo_kl": {"p": {"a": 0.6, "b": 0.4}, "ci": {"a": [0.5, 0.9], "b": None}}},
        "nemenyi": {"not_applicable": "one dataset"},
        "wilcoxon": {"letters": {"a": "a", "b": "ab"}},
    }
    columns, rows = snapshot_rows(payload)
    assert rows_as_csv(columns, rows).splitlines() == [
        "algorithm,win_rate,loo_kl,loo_kl_ci_low,loo_kl_ci_high,loo_kl_p_best,wilcoxon_group",
        "a,0.75,0.6,0.5,0.9,,a",
        "b,0.25,0.4,,,,ab",
    ]
