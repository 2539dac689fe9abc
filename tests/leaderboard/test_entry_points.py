"""The services' rules hold on every other way in: the admin and the import command.

Each test sends what a service refuses (a right-to-left override in a title, a reserved
slug, control characters in prose) through a path that once saved models directly.
"""

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from leaderboard.models import Benchmark, Metric, ScorePack, Submission
from leaderboard.services import MAX_METRICS, ValidationFailed, benchmark_create
from tests.factories import make_benchmark, make_submission, stored_scores

pytestmark = pytest.mark.django_db

BIDI_OVERRIDE = "\u202e"


def _admin_post(client, url: str, **changes):
    """Post the admin form at ``url`` as shown, with ``changes``."""
    form = client.get(url).context["adminform"].form
    data = {}
    for name, field in form.fields.items():
        value = form.initial.get(name, field.initial)
        if isinstance(value, bool):
            if value:
                data[name] = "on"
        elif isinstance(value, list | tuple):
            data[name] = [getattr(v, "pk", v) for v in value]
        elif value is not None:
            data[name] = getattr(value, "pk", value)
    data.update(changes)
    return client.post(url, data)


def test_admin_refuses_a_benchmark_title_with_a_bidi_override(admin_client):
    benchmark = make_benchmark()
    url = reverse("admin:leaderboard_benchmark_change", args=[benchmark.pk])
    response = _admin_post(admin_client, url, title=f"Best {BIDI_OVERRIDE}lla")
    assert response.status_code == 200  # the form again, with the problem
    assert "U+202E" in response.content.decode()
    benchmark.refresh_from_db()
    assert benchmark.title == "Benchmark toy"


def test_admin_refuses_analysis_settings_beyond_the_sites_limits(admin_client, settings):
    benchmark = make_benchmark()
    url = reverse("admin:leaderboard_benchmark_change", args=[benchmark.pk])
    response = _admin_post(admin_client, url, bootstrap_size=settings.PODIUM_MAX_BOOTSTRAP + 1)
    assert response.status_code == 200
    assert "PODIUM_MAX_BOOTSTRAP" in response.content.decode()
    benchmark.refresh_from_db()
    assert benchmark.bootstrap_size != settings.PODIUM_MAX_BOOTSTRAP + 1


def test_admin_benchmark_edits_go_through_the_service(admin_client):
    benchmark = make_benchmark()
    url = reverse("admin:leaderboard_benchmark_change", args=[benchmark.pk])
    response = _admin_post(admin_client, url, title="Renamed", description="line\nbreak")
    assert response.status_code == 302
    benchmark.refresh_from_db()
    assert (benchmark.title, benchmark.description) == ("Renamed", "line\nbreak")


def test_admin_cannot_create_benchmarks_submissions_or_scores(admin_client):
    for model in ("benchmark", "submission", "scorepack", "dataset", "algorithm"):
        response = admin_client.post(reverse(f"admin:leaderboard_{model}_add"), {})
        assert response.status_code == 403, model


def test_admin_metric_add_keeps_the_metric_rules(admin_client):
    benchmark = make_benchmark()
    url = reverse("admin:leaderboard_metric_add")
    refused = admin_client.post(
        url, {"benchmark": benchmark.pk, "name": f"acc{BIDI_OVERRIDE}", "direction": "higher"}
    )
    assert refused.status_code == 200 and "U+202E" in refused.content.decode()
    twice = admin_client.post(
        url, {"benchmark": benchmark.pk, "name": "score", "direction": "higher"}
    )
    assert twice.status_code == 200 and "listed twice" in twice.content.decode()
    for i in range(MAX_METRICS - 1):
        Metric.objects.create(benchmark=benchmark, name=f"m{i}", direction="higher")
    too_many = admin_client.post(
        url, {"benchmark": benchmark.pk, "name": "one-more", "direction": "lower"}
    )
    assert too_many.status_code == 200 and f"at most {MAX_METRICS}" in too_many.content.decode()
    assert benchmark.metrics.count() == MAX_METRICS


def test_admin_metric_add_goes_through_the_service(admin_client):
    benchmark = make_benchmark()
    response = admin_client.post(
        reverse("admin:leaderboard_metric_add"),
        {"benchmark": benchmark.pk, "name": "  time  ", "direction": "lower"},
    )
    assert response.status_code == 302
    assert benchmark.metrics.filter(name="time", direction="lower", is_primary=False).exists()


def test_admin_submission_keeps_text_rules_and_cannot_moderate(admin_client):
    benchmark = make_benchmark()
    submission = make_submission(benchmark, "alg", {"d1": 0.5})
    url = reverse("admin:leaderboard_submission_change", args=[submission.pk])
    refused = _admin_post(admin_client, url, note="bad\x07bell")
    assert refused.status_code == 200 and "U+0007" in refused.content.decode()
    # The status is not a field here: moderation checks transitions and recomputes.
    response = _admin_post(admin_client, url, note="fine", status="accepted")
    assert response.status_code == 302
    submission.refresh_from_db()
    assert (submission.note, submission.status) == ("fine", Submission.Status.PENDING)


def test_admin_algorithm_description_keeps_the_prose_rule(admin_client):
    benchmark = make_benchmark()
    submission = make_submission(benchmark, "alg", {"d1": 0.5})
    url = reverse("admin:leaderboard_algorithm_change", args=[submission.algorithm_id])
    refused = _admin_post(admin_client, url, description="a\x07b", name="renamed")
    assert refused.status_code == 200 and "U+0007" in refused.content.decode()
    submission.algorithm.refresh_from_db()
    assert submission.algorithm.name == "alg" and submission.algorithm.description == ""


def test_admin_scores_are_read_only(admin_client):
    benchmark = make_benchmark()
    make_submission(benchmark, "alg", {"d1": 0.5})
    pack = ScorePack.objects.get()
    url = reverse("admin:leaderboard_scorepack_change", args=[pack.pk])
    assert admin_client.get(url).status_code == 200  # shown, read-only
    admin_client.post(url, {"submission": "", "metric": ""})
    assert [(r.dataset, r.value) for r in stored_scores()] == [("d1", 0.5)]
    deleted = admin_client.post(
        reverse("admin:leaderboard_scorepack_delete", args=[pack.pk]), {"post": "yes"}
    )
    assert deleted.status_code == 403 and ScorePack.objects.filter(pk=pack.pk).exists()


def test_reserved_slug_is_refused_by_the_service_itself():
    with pytest.raises(ValidationFailed, match="reserved"):
        benchmark_create(slug="create", title="Shadow", metrics=[("score", "higher")])


def test_import_benchmark_keeps_the_slug_and_text_rules(tmp_path):
    path = tmp_path / "results.csv"
    path.write_text("dataset,algorithm,score\nd1,a,0.5\nd1,b,0.4\n")
    with pytest.raises(CommandError, match="reserved"):
        call_command("import_benchmark", str(path), "--slug", "create")
    with pytest.raises(CommandError, match="U\\+202E"):
        call_command("import_benchmark", str(path), "--slug", "ok", "--title", BIDI_OVERRIDE)
    assert not Benchmark.objects.exists()
