"""Maintainers' pages: create and edit a benchmark, moderate, read the result history."""

import pytest
from django.utils import timezone

from estimation.models import ResultSnapshot
from leaderboard.models import Benchmark, Submission
from tests.factories import make_benchmark, make_submission, make_user

pytestmark = pytest.mark.django_db

CREATE = {
    "slug": "my-study",
    "title": "My study",
    "description": "Ten classifiers on UCI data.",
    "citation": "",
    "licence": "CC-BY-4.0",
    "visibility": "public",
    "submission_policy": "moderated",
    "allow_new_datasets": "on",
    "allow_new_algorithms": "on",
    "missing_policy": "complete",
    "incomplete_submissions": "exclude",
    "min_coverage": "0.5",
    "tie_tolerance": "0.001",
    "top_k": "3",
    "alpha": "0.05",
    "correction": "holm",
    "default_estimator": "loo_kl",
    "bootstrap_size": "200",
    "seed": "7",
    "metrics-TOTAL_FORMS": "2",
    "metrics-INITIAL_FORMS": "0",
    "metrics-MIN_NUM_FORMS": "0",
    "metrics-MAX_NUM_FORMS": "20",
    "metrics-0-name": "accuracy",
    "metrics-0-direction": "higher",
    "metrics-1-name": "runtime",
    "metrics-1-direction": "lower",
    "action": "save",
}


@pytest.fixture
def maintainer(client):
    user = make_user("maintainer")
    client.force_login(user)
    return user


def test_create_a_benchmark_with_metrics(client, maintainer):
    page = client.get("/benchmarks/new/").content.decode()
    assert 'name="metrics-0-name"' in page and 'name="slug"' in page
    response = client.post("/benchmarks/new/", CREATE)
    assert response.status_code == 302 and response.url == "/b/my-study/maintain/"
    benchmark = Benchmark.objects.get(slug="my-study")
    assert benchmark.maintainers.filter(pk=maintainer.pk).exists()
    assert (benchmark.tie_tolerance, benchmark.bootstrap_size, benchmark.seed) == (0.001, 200, 7)
    assert list(benchmark.metrics.values_list("name", "direction", "is_primary")) == [
        ("accuracy", "higher", True),
        ("runtime", "lower", False),
    ]
    assert "My study" in client.get("/maintain/").content.decode()


def test_create_refuses_bad_input_and_keeps_it(client, maintainer):
    make_benchmark("taken")
    data = {
        **CREATE,
        "slug": "taken",
        "alpha": "0.9",
        "metrics-0-name": "",
        "metrics-1-name": "",
    }
    response = client.post("/benchmarks/new/", data)
    body = response.content.decode()
    assert response.status_code == 200
    assert 'href="#id_slug"' in body and 'href="#id_alpha"' in body
    assert 'value="Ten classifiers' not in body  # a textarea keeps it as text
    assert "Ten classifiers on UCI data." in body and 'value="0.9"' in body
    assert Benchmark.objects.filter(title="My study").count() == 0

    no_metric = client.post("/benchmarks/new/", {**data, "slug": "fresh", "alpha": "0.05"})
    assert "a benchmark needs at least one metric" in no_metric.content.decode()
    assert not Benchmark.objects.filter(slug="fresh").exists()


def test_add_metric_button_keeps_the_page(client, maintainer):
    body = client.post("/benchmarks/new/", {**CREATE, "action": "add_metric"}).content.decode()
    assert 'name="metrics-2-name"' in body and 'value="runtime"' in body
    assert 'value="my-study"' in body and 'data-testid="error-summary"' not in body
    assert not Benchmark.objects.filter(slug="my-study").exists()


def test_edit_is_for_maintainers_only(client, maintainer):
    benchmark = make_benchmark("study")
    benchmark.maintainers.add(maintainer)
    make_benchmark("secret", visibility=Benchmark.Visibility.PRIVATE)
    page = client.get("/b/study/maintain/")
    assert page.status_code == 200 and 'value="Benchmark study"' in page.content.decode()
    data = {
        key: value
        for key, value in CREATE.items()
        if not key.startswith("metrics") and key != "slug"
    }
    saved = client.post("/b/study/maintain/", {**data, "title": "Renamed", "top_k": "5"})
    assert saved.status_code == 302
    benchmark.refresh_from_db()
    assert (benchmark.title, benchmark.top_k) == ("Renamed", 5)
    bad = client.post("/b/study/maintain/", {**data, "top_k": "0"})
    assert bad.status_code == 200 and 'href="#id_top_k"' in bad.content.decode()

    client.force_login(make_user("outsider"))
    assert client.get("/b/study/maintain/").status_code == 403
    assert client.post("/b/study/maintain/", {**data, "title": "Hijacked"}).status_code == 403
    benchmark.refresh_from_db()
    assert benchmark.title == "Renamed"
    assert client.get("/b/secret/maintain/").status_code == 404
    client.logout()
    assert client.get("/b/study/maintain/").status_code == 302


def test_moderation_queue_and_decisions(client, maintainer):
    benchmark = make_benchmark("study")
    benchmark.maintainers.add(maintainer)
    first = make_submission(benchmark, "alpha", {"d1": 0.5, "d2": 0.6, "d3": 0.7})
    second = make_submission(benchmark, "beta", {"d1": [0.4, 0.5], "d2": [0.5, 0.6]}, folds=True)
    body = client.get("/b/study/maintain/moderation/").content.decode()
    assert f'data-submission-id="{first.pk}"' in body and "beta" in body
    assert 'data-testid="moderation-n-scores">3<' in body
    assert 'data-testid="moderation-n-datasets">2 of 3<' in body

    url = f"/b/study/maintain/moderation/{first.pk}/"
    assert client.post(url, {"decision": "accept", "note": "Thanks!"}).status_code == 302
    first.refresh_from_db()
    assert first.status == Submission.Status.ACCEPTED and first.decision_note == "Thanks!"
    assert first.decided_by == maintainer
    url = f"/b/study/maintain/moderation/{second.pk}/"
    client.post(url, {"decision": "reject", "note": "Folds look duplicated."})
    second.refresh_from_db()
    assert second.status == Submission.Status.REJECTED
    assert (
        'data-testid="moderation-empty"'
        in client.get("/b/study/maintain/moderation/").content.decode()
    )


def test_moderation_is_refused_to_others(client):
    benchmark = make_benchmark("study")
    pending = make_submission(benchmark, "alpha", {"d1": 0.5})
    client.force_login(pending.submitter)
    assert client.get("/b/study/maintain/moderation/").status_code == 403
    response = client.post(f"/b/study/maintain/moderation/{pending.pk}/", {"decision": "accept"})
    assert response.status_code == 403
    pending.refresh_from_db()
    assert pending.status == Submission.Status.PENDING
    client.logout()
    assert (
        client.post(
            f"/b/study/maintain/moderation/{pending.pk}/", {"decision": "accept"}
        ).status_code
        == 302
    )  # to the login page
    pending.refresh_from_db()
    assert pending.status == Submission.Status.PENDING


def test_snapshot_history_for_maintainers(client, maintainer):
    benchmark = make_benchmark("study")
    metric = benchmark.metrics.get()
    now = timezone.now()
    ResultSnapshot.objects.create(
        benchmark=benchmark,
        metric=metric,
        version=1,
        fingerprint="a" * 64,
        engine_version="1.0",
        status=ResultSnapshot.Status.FAILED,
        error="LinAlgError: singular matrix",
        finished_at=now,
    )
    ResultSnapshot.objects.create(
        benchmark=benchmark,
        metric=metric,
        version=2,
        fingerprint="b" * 64,
        engine_version="1.0",
        status=ResultSnapshot.Status.READY,
        timings={"load_s": 0.0123, "analyse_s": 1.5},
        finished_at=now,
    )
    client.force_login(make_user("reader"))
    assert client.get("/b/study/maintain/snapshots/").status_code == 403

    benchmark.maintainers.add(maintainer)
    client.force_login(maintainer)
    body = client.get("/b/study/maintain/snapshots/").content.decode()
    assert 'data-version="2" data-status="ready"' in body
    assert 'data-version="1" data-status="failed"' in body
    assert "LinAlgError: singular matrix" in body
    assert "analysis: 1.500 s" in body and "reading the scores: 0.012 s" in body
    assert "load_s" not in body
    assert body.index('data-version="2"') < body.index('data-version="1"')

    make_benchmark("secret", visibility=Benchmark.Visibility.PRIVATE)
    assert client.get("/b/secret/maintain/snapshots/").status_code == 404


def test_the_settings_form_picks_the_default_control_among_the_algorithms(client, maintainer):
    benchmark = make_benchmark("study")
    benchmark.maintainers.add(maintainer)
    make_submission(benchmark, "alpha", {"d1": 0.5})
    make_submission(benchmark, "beta", {"d1": 0.6})
    page = client.get("/b/study/maintain/").content.decode()
    select = page.split('name="control_algorithm"')[1].split("</select>")[0]
    assert 'value="alpha"' in select and 'value="beta"' in select
    assert "best mean rank" in select
    data = {
        key: value
        for key, value in CREATE.items()
        if not key.startswith("metrics") and key != "slug"
    }
    assert (
        client.post("/b/study/maintain/", {**data, "control_algorithm": "beta"}).status_code == 302
    )
    benchmark.refresh_from_db()
    assert benchmark.control_algorithm == "beta"
    bad = client.post("/b/study/maintain/", {**data, "control_algorithm": "nobody"})
    assert bad.status_code == 200 and 'href="#id_control_algorithm"' in bad.content.decode()
    benchmark.refresh_from_db()
    assert benchmark.control_algorithm == "beta"


def test_create_names_every_problem_in_one_submit_in_readers_words(client, maintainer):
    """A taken slug no longer hides the metrics' problems until the next submit."""
    make_benchmark("taken")
    data = {
        **CREATE,
        "slug": "taken",
        "metrics-0-rope": "-1",
        "metrics-1-min_value": "5",
        "metrics-1-max_value": "1",
    }
    body = client.post("/benchmarks/new/", data).content.decode()
    assert "Another benchmark already has this address" in body
    assert (
        "metric &#x27;accuracy&#x27;: the region of practical equivalence (rope) cannot be "
        "negative" in body
    )
    assert "metric &#x27;runtime&#x27;: the lowest valid value (min_value) must be below" in body
    assert "&gt;= 0" not in body and "(metric units)" not in body
    assert not Benchmark.objects.filter(title="My study").exists()
    # Once the slug is free, the same metrics are refused with the same words.
    again = client.post("/benchmarks/new/", {**data, "slug": "fresh"}).content.decode()
    assert "(rope) cannot be negative" in again and "Another benchmark" not in again


def test_a_refused_metric_row_does_not_claim_there_is_no_metric(client, maintainer):
    data = {
        **CREATE,
        "metrics-TOTAL_FORMS": "1",
        "metrics-0-rope": "abc",
        "alpha": "0.9",
    }
    body = client.post("/benchmarks/new/", data).content.decode()
    assert "Enter a number" in body and 'href="#id_alpha"' in body
    assert "a benchmark needs at least one metric" not in body
