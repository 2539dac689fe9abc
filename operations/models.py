"""What the deployment's background processes last said about themselves."""

from django.db import models


class Heartbeat(models.Model):
    """One Celery worker or beat scheduler, by name, and when it was last seen alive.

    Written every ``PODIUM_HEARTBEAT_SECONDS`` by a thread of each worker's main process
    (whatever its tasks are doing) and by beat's scheduler loop; read by the status page,
    the maintainers' page, ``/metrics`` and ``/health/ready/``'s details. Rows of
    processes not seen for a day are deleted by the next heartbeat of their role.
    """

    class Role(models.TextChoices):
        WORKER = "worker"
        BEAT = "beat"

    role = models.CharField(max_length=10, choices=Role.choices)
    name = models.CharField(max_length=200, help_text="celery@host for a worker, beat@host")
    queues = models.JSONField(default=list, blank=True, help_text="queues a worker consumes")
    started_at = models.DateTimeField()
    seen_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["role", "name"], name="heartbeat_role_name_unique")
        ]
        indexes = [models.Index(fields=["role", "-seen_at"], name="heartbeat_role_seen")]

    def __str__(self) -> str:
        return f"{self.role} {self.name} @ {self.seen_at:%Y-%m-%d %H:%M:%S}"


class TaskFailure(models.Model):
    """A background task that gave up (its retries used up), as its worker saw it.

    Recorded by the worker's ``task_failure`` handler (operations.failures); when the
    database is what failed, the record waits in Redis (or in the process) and is written
    once the database answers again, so an outage's failures reach the status page and
    the maintainers' page after it. Rows older than a week are deleted when new ones come.
    """

    task = models.CharField(max_length=200)
    task_id = models.CharField(max_length=64, blank=True)
    benchmark_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    error = models.TextField()
    failed_at = models.DateTimeField(db_index=True)
    recorded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["task_id", "failed_at"], name="task_failure_once")
        ]

    def __str__(self) -> str:
        return f"{self.task} {self.benchmark_id} @ {self.failed_at:%Y-%m-%d %H:%M:%S}"
