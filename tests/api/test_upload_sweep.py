"""Stuck upload jobs: the sweep queues a lost job again, and fails abandoned ones.

With a real Celery worker over Redis: a queued job whose message never reached a
worker is processed once the sweep queues it again; a job queued or running for longer
than the limits ends failed with a reason the uploader can read, and nothing stored.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from leaderboard.models import UploadJob
from leaderboard.uploads import upload_jobs_sweep
from tests.api.background_helpers import finished
from tests.api.conftest import client_for
from tests.api.test_upload import GOOD_LONG
from tests.factories import stored_scores

pytestmark = pytest.mark.django_db(transaction=True)


def stuck_job(benchmark, user, *, status, age_seconds: float, started: bool) -> UploadJob:
    """A job as a lost message or a dead worker leaves it (no dispatch)."""
    job = UploadJob.objects.create(
        benchmark=benchmark,
        submitter=user,
        content=GOOD_LONG,
        size=len(GOOD_LONG),
        status=status,
        stage="storing" if started else "",
    )
    then = timezone.now() - timedelta(seconds=age_seconds)
    UploadJob.objects.filter(pk=job.pk).update(
        created_at=then, started_at=then if started else None
    )
    return job


def test_a_lost_queued_job_is_queued_again_and_processed(
    celery_worker, settings, researcher, benchmark
):
    settings.PODIUM_UPLOAD_QUEUE_SECONDS = 60
    job = stuck_job(benchmark, researcher, status="queued", age_seconds=90, started=False)
    fresh = stuck_job(benchmark, researcher, status="queued", age_seconds=5, started=False)
    sweep = upload_jobs_sweep()
    assert sweep.requeued == (job.pk,) and sweep.failed == ()
    body = finished(client_for(researcher), f"/api/benchmarks/toy/uploads/{job.pk}/")
    assert body["status"] == "done" and body["http_status"] == 201
    assert len(stored_scores()) == 4
    assert UploadJob.objects.get(pk=fresh.pk).status == "queued"  # not yet its turn


def test_abandoned_jobs_fail_with_a_reason_and_store_nothing(settings, researcher, benchmark):
    settings.PODIUM_UPLOAD_TIME_LIMIT = 100
    settings.PODIUM_UPLOAD_QUEUE_SECONDS = 60
    dead = stuck_job(benchmark, researcher, status="running", age_seconds=200, started=True)
    alive = stuck_job(benchmark, researcher, status="running", age_seconds=50, started=True)
    never = stuck_job(benchmark, researcher, status="queued", age_seconds=200, started=False)
    sweep = upload_jobs_sweep()
    assert sweep.requeued == () and set(sweep.failed) == {dead.pk, never.pk}
    api = client_for(researcher)
    for job, words in ((dead, "stopped before it finished"), (never, "No worker took")):
        body = api.get(f"/api/benchmarks/toy/uploads/{job.pk}/").json()
        assert body["status"] == "failed" and body["http_status"] == 503
        assert words in str(body), body
        assert UploadJob.objects.get(pk=job.pk).content in (b"", memoryview(b""))
    assert UploadJob.objects.get(pk=alive.pk).status == "running"
    assert len(stored_scores()) == 0
    # A second sweep finds nothing more to do.
    assert upload_jobs_sweep() == type(sweep)(requeued=(), failed=())
