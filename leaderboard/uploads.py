"""Large results files, stored first and processed in the background.

A file over ``PODIUM_BACKGROUND_UPLOAD_BYTES`` (a zip of another tool's files: unpacked)
is not parsed within the request: it is
stored as an :class:`UploadJob` and a worker (``leaderboard.process_upload``; a thread
of the server process in the embedded mode) runs the same parse -> validate -> store
path as the synchronous upload (``leaderboard.services.uploads.submissions_upload``,
with the uploader's ``on_error`` and ``incomplete`` choices), recording its stage and
progress. The job's ``result`` holds what the synchronous upload would have answered. What an upload
may hold in either place is :func:`upload_limits`'s to say.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import BinaryIO

import psycopg
from celery import current_app as celery_app
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from common.threads import db_daemon_thread
from leaderboard.ingest.formats import IMPORT_FORMATS, UPLOAD_FORMATS, unpacked_size
from leaderboard.ingest.formats.common import UploadLimits
from leaderboard.ingest.formats.files import MAX_UNPACKED_BYTES
from leaderboard.models import Benchmark, UploadJob
from leaderboard.quotas import upload_jobs_quota_check

logger = logging.getLogger(__name__)


def upload_limits(*, background: bool) -> UploadLimits:
    """The limits of an upload read in a web request, or by a background job (the worker
    has time the request has not, so a larger bound: PODIUM_MAX_BACKGROUND_UPLOAD_ROWS).

    The one place these are decided; ``leaderboard.services.uploads.submissions_upload``
    holds every entry point to them (the API, the web form, the job and both import
    commands, which take the background's bound).
    """
    if background:
        return UploadLimits(
            max_rows=settings.PODIUM_MAX_BACKGROUND_UPLOAD_ROWS,
            max_unpacked_bytes=MAX_UNPACKED_BYTES,
        )
    threshold = settings.PODIUM_BACKGROUND_UPLOAD_BYTES
    return UploadLimits(
        max_rows=settings.PODIUM_MAX_UPLOAD_ROWS,
        max_unpacked_bytes=MAX_UNPACKED_BYTES if threshold is None else threshold,
    )


def upload_in_background(upload: bytes | BinaryIO, *, format: str | None) -> bool:
    """Whether an upload is processed in the background: over
    ``PODIUM_BACKGROUND_UPLOAD_BYTES`` as it is read, that is unpacked for a zip of another
    tool's files (a 1.4 MiB zip of 600k results held a web worker 110 s). The unpacked
    size is the zip's declaration; reading it in the request then stops at the threshold
    whatever the members really hold (:func:`upload_limits`)."""
    threshold = settings.PODIUM_BACKGROUND_UPLOAD_BYTES
    if threshold is None:
        return False
    size = len(upload) if isinstance(upload, bytes) else _file_size(upload)
    if size > threshold:
        return True  # no need to read a zip's directory
    if format not in IMPORT_FORMATS:
        return False
    return unpacked_size(upload) > threshold


def _file_size(upload: BinaryIO) -> int:
    size = upload.seek(0, io.SEEK_END)
    upload.seek(0)
    return size


def upload_job_create(
    *,
    benchmark: Benchmark,
    submitter,
    content: bytes,
    format: str | None,
    note: str,
    idempotency_key: str,
    new_datasets_confirmed: bool = False,
    filename: str = "upload",
    on_error: str = "refuse",
    incomplete: str = "refuse",
    columns: Mapping[str, str] | None = None,
    nan_missing: bool = False,
    models_as_rows: bool = False,
) -> UploadJob:
    """Store the file and hand it to a worker once the row is committed.

    Refused (``QuotaExceeded``) while the account has the most uploads pending; a
    ``format`` no reader has is a caller's mistake (ValueError), not a job that fails.
    """
    if format and format not in UPLOAD_FORMATS:
        raise ValueError(f"no reader for format {format!r}")
    with transaction.atomic():
        upload_jobs_quota_check(submitter=submitter)
        job = UploadJob.objects.create(
            benchmark=benchmark,
            submitter=submitter,
            content=b"" if connection.vendor == "postgresql" else content,
            size=len(content),
            format=format or "",
            filename=filename[:255] or "upload",
            note=note,
            idempotency_key=idempotency_key,
            new_datasets_confirmed=new_datasets_confirmed,
            on_error=on_error,
            incomplete=incomplete,
            columns=dict(columns or {}),
            nan_missing=nan_missing,
            models_as_rows=models_as_rows,
        )
        if connection.vendor == "postgresql":
            _content_store(job_id=job.pk, content=content)
        transaction.on_commit(lambda: _dispatch(job.pk))
    return job


def _content_store(*, job_id: int, content: bytes) -> None:
    """Send the file as one binary parameter. Django's client-side binding would spell
    it into the SQL text in hex, several copies of twice its size (a 100 MiB file rose
    the web process by about 1 GB)."""
    connection.ensure_connection()
    with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as raw:
        raw.execute(
            f"UPDATE {UploadJob._meta.db_table} SET content = %b WHERE id = %s",
            [content, job_id],
        )


PROCESS_UPLOAD_TASK = "leaderboard.process_upload"  # leaderboard.tasks.process_upload


def _dispatch(job_id: int) -> None:
    if settings.CELERY_TASK_ALWAYS_EAGER:  # embedded mode: a thread of this process
        run = celery_app.tasks[PROCESS_UPLOAD_TASK].run  # by name, as below
        db_daemon_thread(run, job_id=job_id, name=f"podium-upload-{job_id}").start()
        return
    try:
        # By name: leaderboard.tasks imports this module.
        celery_app.tasks[PROCESS_UPLOAD_TASK].delay(job_id)
    except Exception:  # the broker is down: say so rather than leave the job waiting
        logger.exception("upload %s could not be queued", job_id)
        _finish(
            job_id,
            UploadJob.Status.FAILED,
            {"detail": "The upload could not be queued for processing; send it again."},
            503,
        )


@dataclass(frozen=True)
class UploadSweep:
    """What :func:`upload_jobs_sweep` did, by job id."""

    requeued: tuple[int, ...]
    failed: tuple[int, ...]


def upload_jobs_sweep(*, now: datetime | None = None) -> UploadSweep:
    """Requeue or fail upload jobs stuck in the queue or abandoned while running."""
    now = now or timezone.now()
    limit = timedelta(seconds=settings.PODIUM_UPLOAD_TIME_LIMIT)
    queue_wait = timedelta(seconds=settings.PODIUM_UPLOAD_QUEUE_SECONDS)
    failed: list[int] = []
    # Past the time limit (plus a minute for the worker's own handling): the task was
    # killed, or its worker died and the redelivery never came.
    running = UploadJob.objects.filter(
        status=UploadJob.Status.RUNNING, started_at__lt=now - limit - timedelta(seconds=60)
    ).values_list("pk", flat=True)
    for job_id in running:
        if _give_up(
            job_id,
            UploadJob.Status.RUNNING,
            "Processing the upload stopped before it finished (the worker stopped or the "
            f"time limit of {settings.PODIUM_UPLOAD_TIME_LIMIT} s passed); nothing was "
            "written. Send it again, or split the file.",
        ):
            failed.append(job_id)
    queued = UploadJob.objects.filter(
        status=UploadJob.Status.QUEUED, created_at__lt=now - queue_wait
    ).values_list("pk", "created_at")
    requeued: list[int] = []
    for job_id, created_at in queued:
        if created_at < now - queue_wait - limit:
            if _give_up(
                job_id,
                UploadJob.Status.QUEUED,
                "No worker took the upload in time; nothing was written. Send it again.",
            ):
                failed.append(job_id)
            continue
        logger.warning("upload %s still queued after %s; queueing it again", job_id, queue_wait)
        _dispatch(job_id)  # a duplicate delivery finds the job taken and does nothing
        requeued.append(job_id)
    return UploadSweep(requeued=tuple(requeued), failed=tuple(failed))


def _give_up(job_id: int, status: str, detail: str) -> bool:
    """Fail the job if it is still in ``status`` (a worker may have just finished it)."""
    updated = UploadJob.objects.filter(pk=job_id, status=status).update(
        status=UploadJob.Status.FAILED,
        stage="",
        progress=1.0,
        result={"detail": detail},
        http_status=503,
        content=b"",
        finished_at=timezone.now(),
    )
    if updated:
        logger.warning("upload %s given up: %s", job_id, detail)
    return bool(updated)


def _stage(job_id: int, stage: str, progress: float) -> None:
    UploadJob.objects.filter(pk=job_id).update(stage=stage, progress=progress)


def _finish(job_id: int, status: str, result: dict, http_status: int) -> UploadJob:
    UploadJob.objects.filter(pk=job_id).update(
        status=status,
        stage="",
        progress=1.0,
        result=result,
        http_status=http_status,
        content=b"",  # the file is not kept once processed
        finished_at=timezone.now(),
    )
    return UploadJob.objects.get(pk=job_id)
