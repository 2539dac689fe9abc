"""Quotas against unlimited work for anyone (a security review's finding).

Twenty benchmarks were created in a row by one account, each with a fresh submission
budget; 30 changes of ``seed`` queued 30 full recomputes; three 20 MiB upload jobs were
queued in 13.5 s with no per-account cap. Each is now bounded by a site setting
(config/settings/base.py) enforced in the services.
"""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from leaderboard.models import Benchmark, UploadJob
from leaderboard.quotas import QuotaExceeded
from leaderboard.services import benchmark_create, benchmark_update
from tests.factories import make_benchmark, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_throttles(settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_CLASSES": []}


def _create(api, slug):
    return api.post(
        "/api/benchmarks/create/",
        {"slug": slug, "title": slug, "metrics": [{"name": "acc", "direction": "higher"}]},
        format="json",
    )


def test_an_account_creates_at_most_its_quota_of_benchmarks(settings):
    settings.PODIUM_MAX_BENCHMARKS_PER_ACCOUNT = 3
    api = APIClient()
    api.force_login(make_user("flooder"))
    assert [_create(api, f"b{i}").status_code for i in range(3)] == [201, 201, 201]
    refused = _create(api, "b3")
    assert refused.status_code == 429
    assert "PODIUM_MAX_BENCHMARKS_PER_ACCOUNT" in refused.json()["detail"]
    assert Benchmark.objects.count() == 3
    web = Client()
    web.force_login(get_flooder())
    page = web.post("/benchmarks/new/", {"slug": "web", "title": "Web"})
    assert page.status_code in (200, 403)  # the form's own errors, or the quota's 403
    assert not Benchmark.objects.filter(slug="web").exists()


def get_flooder():
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(username="flooder")


def test_staff_and_commands_are_exempt_from_the_benchmark_quota(settings):
    settings.PODIUM_MAX_BENCHMARKS_PER_ACCOUNT = 1
    staff = make_user("staff")
    staff.is_staff = True
    staff.save()
    for slug in ("s1", "s2"):
        benchmark_create(slug=slug, title=slug, metrics=[("acc", "higher")], creator=staff)
        benchmark_create(slug=f"cmd-{slug}", title=slug, metrics=[("acc", "higher")])
    user = make_user("user")
    benchmark_create(slug="u1", title="u1", metrics=[("acc", "higher")], creator=user)
    with pytest.raises(QuotaExceeded):
        benchmark_create(slug="u2", title="u2", metrics=[("acc", "higher")], creator=user)


def test_an_account_has_at_most_its_quota_of_uploads_pending(settings):
    settings.PODIUM_BACKGROUND_UPLOAD_BYTES = 0  # every file goes to the background
    settings.PODIUM_MAX_PENDING_UPLOADS_PER_ACCOUNT = 2
    make_benchmark("own")
    flooder = make_user("flooder")
    api = APIClient()
    api.force_login(flooder)

    def upload(name):
        csv = f"dataset,algorithm,score\nd1,{name},0.5\n".encode()
        return api.post(
            "/api/benchmarks/own/submissions/upload/",
            {"file": SimpleUploadedFile("r.csv", csv, content_type="text/csv")},
            format="multipart",
        )

    assert [upload(f"a{i}").status_code for i in range(2)] == [202, 202]
    refused = upload("a2")
    assert refused.status_code == 429
    assert "PODIUM_MAX_PENDING_UPLOADS_PER_ACCOUNT" in refused.json()["detail"]
    assert UploadJob.objects.filter(submitter=flooder).count() == 2
    other = APIClient()
    other.force_login(make_user("other"))  # another account is not held up
    csv = b"dataset,algorithm,score\nd1,b,0.5\n"
    response = other.post(
        "/api/benchmarks/own/submissions/upload/",
        {"file": SimpleUploadedFile("r.csv", csv, content_type="text/csv")},
        format="multipart",
    )
    assert response.status_code == 202
    UploadJob.objects.filter(submitter=flooder).update(status=UploadJob.Status.DONE)
    assert upload("a3").status_code == 202  # finished jobs no longer count


def test_settings_changes_while_a_recompute_is_queued_queue_no_other(
    settings, monkeypatch, django_capture_on_commit_callbacks
):
    from estimation.recompute.coalesce import recompute_release

    settings.RECOMPUTE_IN_THREAD = False
    settings.PODIUM_RECOMPUTE_COALESCE_SECONDS = 900
    sent: list[int] = []
    monkeypatch.setattr(
        "estimation.tasks.recompute_benchmark.apply_async",
        lambda args, kwargs=None, **options: sent.append(args[0]),
    )
    maintainer = make_user("maintainer")
    benchmark = make_benchmark("costly")
    benchmark.maintainers.add(maintainer)
    for seed in range(1, 31):
        with django_capture_on_commit_callbacks(execute=True):
            benchmark_update(benchmark=benchmark, user=maintainer, seed=seed)
    assert sent == [benchmark.pk]  # before: 30 full recomputes queued
    recompute_release(benchmark.pk)  # the queued task starts: a change now queues one more
    with django_capture_on_commit_callbacks(execute=True):
        benchmark_update(benchmark=benchmark, user=maintainer, seed=99)
    assert sent == [benchmark.pk, benchmark.pk]
    other = make_benchmark("other")
    other.maintainers.add(maintainer)
    with django_capture_on_commit_callbacks(execute=True):
        benchmark_update(benchmark=other, user=maintainer, seed=5)
    assert sent[-1] == other.pk  # each benchmark has its own


def test_the_web_upload_over_the_pending_quota_is_a_403_that_says_why(settings):
    import re

    settings.PODIUM_BACKGROUND_UPLOAD_BYTES = 0
    settings.PODIUM_MAX_PENDING_UPLOADS_PER_ACCOUNT = 1
    make_benchmark("own")
    web = Client()
    web.force_login(make_user("flooder"))

    def upload_and_confirm(name):
        csv = f"dataset,algorithm,score\nd1,{name},0.5\n".encode()
        preview = web.post(
            "/b/own/submit/csv/",
            {"file": SimpleUploadedFile("r.csv", csv, content_type="text/csv")},
        )
        token = re.search(r'name="token" value="([0-9a-f]+)"', preview.content.decode())
        assert token, preview.content.decode()[:2000]
        return web.post("/b/own/submit/csv/confirm/", {"token": token.group(1)})

    assert upload_and_confirm("a0").status_code == 302
    refused = upload_and_confirm("a1")
    assert refused.status_code == 403
    assert "PODIUM_MAX_PENDING_UPLOADS_PER_ACCOUNT" in refused.content.decode()


def test_the_benchmark_over_the_quota_on_the_web_is_a_form_error_not_a_500(settings):
    # The review's 11th benchmark from the web form answered the 500 page.
    from tests.frontend.test_contribute_maintain import CREATE

    settings.PODIUM_MAX_BENCHMARKS_PER_ACCOUNT = 2
    web = Client(raise_request_exception=False)
    web.force_login(make_user("builder"))
    for slug in ("first", "second"):
        assert web.post("/benchmarks/new/", {**CREATE, "slug": slug}).status_code == 302
    page = web.post("/benchmarks/new/", {**CREATE, "slug": "third"})
    assert page.status_code == 403
    body = page.content.decode()
    assert "PODIUM_MAX_BENCHMARKS_PER_ACCOUNT" in body
    assert 'name="slug"' in body  # the form again, with what was typed
    assert not Benchmark.objects.filter(slug="third").exists()
