"""Result snapshots: what the engine computed from one state of a benchmark."""

from __future__ import annotations

from django.db import models


class ResultSnapshot(models.Model):
    class Status(models.TextChoices):
        COMPUTING = "computing"
        READY = "ready"
        FAILED = "failed"

    benchmark = models.ForeignKey(
        "leaderboard.Benchmark", on_delete=models.CASCADE, related_name="snapshots"
    )
    metric = models.ForeignKey("leaderboard.Metric", on_delete=models.CASCADE, related_name="+")
    version = models.PositiveIntegerField()
    fingerprint = models.CharField(max_length=64, help_text="sha256 of the input and settings")
    engine_version = models.CharField(max_length=20)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.COMPUTING)
    stage = models.CharField(max_length=40, blank=True)
    error = models.TextField(blank=True)
    payload = models.JSONField(null=True, blank=True)
    timings = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-version"]
        get_latest_by = "version"
        constraints = [
            models.UniqueConstraint(
                fields=["benchmark", "metric", "version"], name="snapshot_unique_version"
            )
        ]

    def __str__(self) -> str:
        return f"{self.benchmark} v{self.version} ({self.status})"
