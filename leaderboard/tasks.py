"""Thin Celery tasks: ids in, a service call, nothing else."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from leaderboard.notifications import decision_mails_send
from leaderboard.upload_jobs import upload_job_run
from leaderboard.uploads import upload_jobs_sweep


@shared_task(
    name="leaderboard.process_upload",
    acks_late=True,
    reject_on_worker_lost=True,
    time_limit=settings.PODIUM_UPLOAD_TIME_LIMIT,
)
def process_upload(job_id: int) -> int | None:
    job = upload_job_run(job_id=job_id)
    return job.pk if job else None


@shared_task(name="leaderboard.sweep_uploads", acks_late=True, time_limit=60)
def sweep_uploads() -> dict:
    sweep = upload_jobs_sweep()
    return {"requeued": list(sweep.requeued), "failed": list(sweep.failed)}


@shared_task(name="leaderboard.send_decision_mails", acks_late=True, time_limit=600)
def send_decision_mails(submission_ids: list[int]) -> int:
    return decision_mails_send(submission_ids=submission_ids)
