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
