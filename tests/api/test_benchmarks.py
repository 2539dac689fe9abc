from unittest.mock import ANY

import pytest

from estimation.models import RecomputeState
from leaderboard.models import Benchmark, Metric
from leaderboard.services import submission_accept, submission_reject
from tests.api.conftest import client_for
from tests.factories import make_benchmark, make_submission

pytestmark = pytest.mark.django_db


def test_list_shows_public_benchmarks_with_counts_to_anyone(client, benchmark):
    """Counts are of accepted results: a pending or rejected algorithm is not counted."""
    make_benchmark("hidden-link", visibility=Benchmark.Visibility.UNLISTED)
    make_benchmark("secret", visibility=Benchmark.Visibility.PRIVATE)
    accepted = make_submission(benchmark, "alg-a", {"d1": 0.5, "d2": 0.7})
    submission_accept(submission=accepted)
    make_submission(benchmark, "alg-pending", {"d1": 0.5, "d3": 0.7})
    rejected = make_submission(benchmark, "alg-rejected", {"d4": 0.5})
    submission_reject(submission=rejected, user=benchmark.maintainers.get())

    response = client.get("/api/benchmarks/")

    assert response.status_code == 200
    assert response.json() == {
        "count": 1,
        "next": None,
        "previous": None,
        "results": [
            {
                "slug": "toy",
                "title": "Benchmark toy",
                "description": "",
                "visibility": "public",
                "submission_policy": "moderated",
                "ranking_only": False,
                # names only a pending submission brought are not counted
                "n_algorithms": 1,
                "n_datasets": 2,
                "n_metrics": 1,
                "n_accepted": 1,
                "updated_at": ANY,
            }
        ],
    }


def test_list_includes_the_private_benchmarks_one_maintains(
    maintainer, benchmark, private_benchmark
):
    response = client_for(maintainer).get("/api/benchmarks/")
    assert response.status_code == 200
    assert [b["slug"] for b in response.json()["results"]] == ["secret", "toy"]


def test_list_search_and_pagination(client):
    for slug in ("alpha-vision", "beta-vision", "gamma-text"):
        make_benchmark(slug)
    found = client.get("/api/benchmarks/?q=VISION").json()
    assert [b["slug"] for b in found["results"]] == ["alpha-vision", "beta-vision"]
    page = client.get("/api/benchmarks/?limit=1&offset=1").json()
    assert page["count"] == 3
    assert [b["slug"] for b in page["results"]] == ["beta-vision"]


def test_detail_of_a_public_benchmark(client, benchmark):
    response = client.get("/api/benchmarks/toy/")
    assert response.status_code == 200
    body = response.json()
    assert body["slug"] == "toy"
    assert body["metrics"] == [
        {
            "name": "score",
            "direction": "higher",
            "is_primary": True,
            "description": "",
            "rope": None,
            "min_value": None,
            "max_value": None,
            "unit": "",
        }
    ]
    assert body["maintainers"] == ["maintainer"]
    assert body["is_maintainer"] is False
    assert (body["alpha"], body["default_estimator"], body["n_pending"]) == (0.05, "loo_kl", 0)


def test_unlisted_is_readable_by_slug(client):
    make_benchmark("hidden-link", visibility=Benchmark.Visibility.UNLISTED)
    assert client.get("/api/benchmarks/hidden-link/").status_code == 200


def test_private_benchmark_is_404_to_strangers_and_readable_by_maintainers(
    client, stranger, maintainer, private_benchmark
):
    for path in (
        "/api/benchmarks/secret/",
        "/api/benchmarks/secret/metrics/",
        "/api/benchmarks/secret/datasets/",
        "/api/benchmarks/secret/algorithms/",
        "/api/benchmarks/secret/submissions/",
        "/api/benchmarks/secret/snapshots/",
        "/api/benchmarks/secret/snapshots/latest/",
    ):
        for api in (client, client_for(stranger)):
            response = api.get(path)
            assert response.status_code == 404, path
            assert response.json() == {"detail": "No benchmark 'secret'."}
    response = client_for(maintainer).get("/api/benchmarks/secret/")
    assert response.status_code == 200
    assert response.json()["is_maintainer"] is True


def test_missing_benchmark_is_404(client):
    response = client.get("/api/benchmarks/nope/")
    assert response.status_code == 404
    assert response.json() == {"detail": "No benchmark 'nope'."}


def test_any_logged_in_user_creates_a_benchmark_and_maintains_it(researcher):
    response = client_for(researcher).post(
        "/api/benchmarks/create/",
        {
            "slug": "new-one",
            "title": "A new one",
            "metrics": [
                {"name": "auc", "direction": "higher"},
                {"name": "time", "direction": "lower"},
            ],
            "submission_policy": "open",
            "alpha": 0.1,
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["slug"], body["title"], body["submission_policy"], body["alpha"]) == (
        "new-one",
        "A new one",
        "open",
        0.1,
    )
    assert body["maintainers"] == ["researcher"] and body["is_maintainer"] is True
    benchmark = Benchmark.objects.get(slug="new-one")
    assert list(benchmark.maintainers.all()) == [researcher]
    assert list(benchmark.metrics.values_list("name", "direction", "is_primary")) == [
        ("auc", "higher", True),
        ("time", "lower", False),
    ]


def test_create_needs_a_login(client):
    response = client.post(
        "/api/benchmarks/create/",
        {"slug": "x", "title": "X", "metrics": [{"name": "m", "direction": "higher"}]},
        format="json",
    )
    assert response.status_code == 401
    assert response.json() == {"detail": "Authentication credentials were not provided."}
    assert response["WWW-Authenticate"] == "Token"
    assert not Benchmark.objects.exists()


def test_create_reports_every_problem(researcher, benchmark):
    response = client_for(researcher).post(
        "/api/benchmarks/create/",
        {
            "slug": "toy",
            "title": "Again",
            "metrics": [{"name": "m", "direction": "higher"}, {"name": "m", "direction": "lower"}],
        },
        format="json",
    )
    assert response.status_code == 400
    assert response.json() == {
        "detail": "The input was refused; nothing was written. 2 problems found.",
        "problems": [
            {"line": None, "field": "metrics", "message": "metric 'm' is listed twice"},
            {
                "line": None,
                "field": "slug",
                "message": "a benchmark with slug 'toy' already exists",
            },
        ],
        "problems_total": 2,
    }
    assert Benchmark.objects.count() == 1


def test_create_refuses_bad_fields_before_the_service(researcher):
    response = client_for(researcher).post(
        "/api/benchmarks/create/",
        {"slug": "create", "title": "X", "metrics": [{"name": "m", "direction": "sideways"}]},
        format="json",
    )
    assert response.status_code == 400
    assert response.json() == {
        "detail": "The input was refused; nothing was written.",
        "problems": [
            {"line": None, "field": "slug", "message": "'create' is reserved by the API"},
            {
                "line": None,
                "field": "metrics[1].direction",
                "message": '"sideways" is not a valid choice.',
            },
        ],
        "problems_total": 2,
    }
    assert not Benchmark.objects.exists()


def test_maintainer_updates_settings_and_a_recompute_is_requested(maintainer, benchmark):
    response = client_for(maintainer).post(
        "/api/benchmarks/toy/update/",
        {"title": "Renamed", "alpha": 0.01, "visibility": "unlisted"},
        format="json",
    )
    assert response.status_code == 200, response.json()
    body = response.json()
    assert (body["title"], body["alpha"], body["visibility"]) == ("Renamed", 0.01, "unlisted")
    benchmark.refresh_from_db()
    assert (benchmark.title, benchmark.alpha) == ("Renamed", 0.01)
    assert RecomputeState.objects.get(pk=benchmark.pk).requested_revision == 1


def test_maintainer_sets_the_default_control_through_the_api(maintainer, benchmark):
    make_submission(benchmark, "baseline", {"d1": 0.5})
    client = client_for(maintainer)
    refused = client.post(
        "/api/benchmarks/toy/update/", {"control_algorithm": "nobody"}, format="json"
    )
    assert refused.status_code == 400
    assert refused.json()["problems"][0]["field"] == "control_algorithm"
    response = client.post(
        "/api/benchmarks/toy/update/", {"control_algorithm": "baseline"}, format="json"
    )
    assert response.status_code == 200, response.json()
    assert response.json()["control_algorithm"] == "baseline"
    assert client.get("/api/benchmarks/toy/").json()["control_algorithm"] == "baseline"


def test_update_refuses_out_of_range_settings(maintainer, benchmark):
    response = client_for(maintainer).post(
        "/api/benchmarks/toy/update/", {"alpha": 0.9, "top_k": 0}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["problems"] == [
        {
            "line": None,
            "field": "top_k",
            "message": "Ensure this value is greater than or equal to 1.",
        },
        {
            "line": None,
            "field": "alpha",
            "message": "Ensure this value is less than or equal to 0.5.",
        },
    ]
    benchmark.refresh_from_db()
    assert (benchmark.alpha, benchmark.top_k) == (0.05, 3)


def test_non_maintainers_cannot_update(client, researcher, benchmark, private_benchmark):
    change = {"title": "Hijacked", "alpha": 0.2}
    assert client.post("/api/benchmarks/toy/update/", change, format="json").status_code == 401
    response = client_for(researcher).post("/api/benchmarks/toy/update/", change, format="json")
    assert response.status_code == 403
    assert response.json() == {"detail": "only maintainers of 'toy' may do this"}
    response = client_for(researcher).post("/api/benchmarks/secret/update/", change, format="json")
    assert response.status_code == 404
    for b in (benchmark, private_benchmark):
        before = (b.title, b.alpha)
        b.refresh_from_db()
        assert (b.title, b.alpha) == before
    assert not RecomputeState.objects.exists()


def test_metrics_datasets_and_algorithms(client, benchmark):
    Metric.objects.create(benchmark=benchmark, name="time", direction="lower")
    submission = make_submission(benchmark, "alg-a", {"d1": 0.5, "d2": 0.7})
    make_submission(benchmark, "alg-b", {"d1": 0.1})
    from leaderboard.services import submission_accept

    submission_accept(submission=submission)

    metrics = client.get("/api/benchmarks/toy/metrics/").json()["results"]
    assert [(m["name"], m["is_primary"]) for m in metrics] == [("score", True), ("time", False)]
    datasets = client.get("/api/benchmarks/toy/datasets/").json()["results"]
    assert datasets == [
        {"name": "d1", "description": "", "url": None, "domain": "", "n_scores": 1},
        {"name": "d2", "description": "", "url": None, "domain": "", "n_scores": 1},
    ]
    algorithms = client.get("/api/benchmarks/toy/algorithms/").json()["results"]
    assert algorithms == [
        {
            "name": "alg-a",
            "description": "",
            "url": None,
            "version": "",
            "family": "",
            "parameters": None,
            "licence": "",
            "revision": "",
            "precision": "",
            "open_weights": None,
            "n_accepted": 1,
            "owners": [submission.submitter.username],
        },
    ]  # alg-b is only pending: not public
