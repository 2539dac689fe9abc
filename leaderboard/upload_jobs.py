"""A background upload's run: the job claimed, its file through the one upload service
(:func:`leaderboard.services.uploads.submissions_upload`) with the uploader's choices, and
its outcome recorded (``leaderboard.process_upload`` runs it; the embedded mode in a
thread). Apart from :mod:`leaderboard.uploads`, which the service itself uses to queue a
job, so that neither imports the other."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import close_old_connections
from django.db.models import Q
from django.utils import timezone

from leaderboard.api.errors import exception_handler
from leaderboard.ingest.results_csv import ResultsCsvError
from leaderboard.models import UploadJob
from leaderboard.services import PermissionDenied, ValidationFailed
from leaderboard.services.uploads import UploadInput, left_out_where, submissions_upload
from leaderboard.uploads import _finish, _stage, upload_limits

logger = logging.getLogger(__name__)


def upload_job_run(*, job_id: int) -> UploadJob | None:
    """Process a queued job (a duplicate delivery finds it taken and does nothing)."""
    job = _claimed(job_id)
    if job is None:
        return None
    upload = UploadInput(
        content=bytes(job.content),
        filename=job.filename,
        format=job.format or None,
        note=job.note,
        on_error=job.on_error,
        incomplete=job.incomplete,
        columns=job.columns or None,
        nan_missing=job.nan_missing,
        models_as_rows=job.models_as_rows,
        new_datasets_confirmed=job.new_datasets_confirmed,
        idempotency_key=job.idempotency_key,
    )
    try:
        outcome = submissions_upload(
            benchmark=job.benchmark,
            submitter=job.submitter,
            upload=upload,
            background=False,
            limits=upload_limits(background=True),
            stage=lambda stage, progress: _stage(job_id, stage, progress),
        )
    except (ValidationFailed, ResultsCsvError, PermissionDenied) as exc:
        response = exception_handler(exc, {})
        return _finish(job_id, UploadJob.Status.FAILED, response.data, response.status_code)
    except Exception:
        logger.exception("upload %s failed", job_id)
        body: dict[str, object] = {
            "detail": "The upload could not be processed; nothing was written."
        }
        return _finish(job_id, UploadJob.Status.FAILED, body, 500)
    body = {
        "submissions": [s.pk for s in outcome.submissions],
        "n_scores": outcome.n_scores,
        "incomplete_notes": outcome.incomplete_notes,
    }
    if outcome.n_left_out:
        body["left_out"] = [
            {"field": left_out_where(p), "message": p.message} for p in outcome.left_out
        ]
        body["n_left_out"] = outcome.n_left_out
    if outcome.read is not None and outcome.read.notes:
        body["notes"] = list(outcome.read.notes)  # what a column mapping left out
    return _finish(job_id, UploadJob.Status.DONE, body, 201)


def _claimed(job_id: int) -> UploadJob | None:
    """The job, once this worker has taken it: queued, or left running by a worker that
    died (redelivered after the time limit); None when another has it."""
    close_old_connections()
    now = timezone.now()
    abandoned = Q(
        status=UploadJob.Status.RUNNING,
        started_at__lt=now - timedelta(seconds=settings.PODIUM_UPLOAD_TIME_LIMIT),
    )
    claimed = (
        UploadJob.objects.filter(pk=job_id)
        .filter(Q(status=UploadJob.Status.QUEUED) | abandoned)
        .update(status=UploadJob.Status.RUNNING, started_at=now, stage="reading", progress=0.0)
    )
    if not claimed:
        return None
    return UploadJob.objects.select_related("benchmark", "submitter").get(pk=job_id)
