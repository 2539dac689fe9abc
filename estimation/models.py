"""Result snapshots, and the bookkeeping that coalesces recomputes."""

from __future__ import annotations

from django.db import models


class ResultSnapshot(models.Model):
    """What the engine computed from one state of a benchmark's accepted scores."""

    class Status(models.TextChoices):
        COMPUTING = "computing"
        READY = "ready"
        FAILED = "failed"

    class FailedDuring(models.TextChoices):
        """Where a failed version failed: reading the input or storing the results
        (retried with back-off), the analysis (deterministic: waits for the next
        change), or its worker stopped (the next run redoes it)."""

        LOAD = "load"
        ANALYSIS = "analysis"
        STORE = "store"
        ABANDONED = "abandoned"

    benchmark = models.ForeignKey(
        "leaderboard.Benchmark", on_delete=models.CASCADE, related_name="snapshots"
    )
    metric = models.ForeignKey("leaderboard.Metric", on_delete=models.CASCADE, related_name="+")
    version = models.PositiveIntegerField()
    fingerprint = models.CharField(max_length=64, help_text="sha256 of the input and settings")
    engine_version = models.CharField(max_length=20)
    schema_version = models.PositiveSmallIntegerField(
        default=0, help_text="contract version of its sections (0: before the typed contract)"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.COMPUTING)
    stage = models.CharField(max_length=40, blank=True)
    progress = models.FloatField(default=0.0)
    error = models.TextField(blank=True)
    timings = models.JSONField(default=dict, blank=True, help_text="seconds per stage")
    failed_during = models.CharField(max_length=10, choices=FailedDuring.choices, blank=True)
    submissions = models.JSONField(
        null=True,
        blank=True,
        help_text="ids of the accepted submissions its input was read from (null: unknown)",
    )
    # Stored with the ready status so that a list of benchmarks reads no payload.
    leader = models.CharField(
        max_length=200,
        blank=True,
        default="",
        help_text="the board's first algorithm under its default estimator (ready only)",
    )
    cited_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="first time its permalink, an export or its version URL was requested: "
        "a cited version is never pruned",
    )
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


class PrunedSnapshot(models.Model):
    """A version that retention (estimation/recompute/retention.py) removed: its URLs answer 410
    Gone and name the latest version, where a version that never existed answers 404."""

    benchmark = models.ForeignKey(
        "leaderboard.Benchmark", on_delete=models.CASCADE, related_name="+"
    )
    metric = models.ForeignKey("leaderboard.Metric", on_delete=models.CASCADE, related_name="+")
    version = models.PositiveIntegerField()
    pruned_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["benchmark", "metric", "version"], name="pruned_snapshot_unique_version"
            )
        ]

    def __str__(self) -> str:
        return f"{self.benchmark_id} v{self.version} (pruned)"


class SnapshotSection(models.Model):
    """One section of a ready snapshot (estimation/core/contract/), serialised once.

    ``body`` is the section's compact JSON text, written when the snapshot becomes ready
    and never changed, so it is served as stored (``etag`` is its sha256).
    """

    snapshot = models.ForeignKey(ResultSnapshot, on_delete=models.CASCADE, related_name="sections")
    name = models.CharField(max_length=20)
    body = models.TextField()
    etag = models.CharField(max_length=64, help_text="sha256 of body")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["snapshot", "name"], name="snapshot_section_unique")
        ]

    def __str__(self) -> str:
        return f"{self.snapshot} {self.name}"


class RecomputeState(models.Model):
    """Per benchmark: what was asked for, what was computed, and who is computing.

    Writers bump ``requested_revision``; a run records the revision it computed. A lease
    (owner + expiry) lets exactly one worker run per benchmark; a dead worker's lease
    expires, so the next run completes.
    """

    benchmark = models.OneToOneField(
        "leaderboard.Benchmark",
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="recompute_state",
    )
    requested_revision = models.PositiveBigIntegerField(default=0)
    computed_revision = models.PositiveBigIntegerField(default=0)
    requested_at = models.DateTimeField(null=True, blank=True)
    # When the oldest change not yet computed was recorded (null: none waits); after a
    # run that computed only part of what was asked, the time that run read its input
    # (every change left arrived after it): an upper bound, never an underestimate.
    pending_since = models.DateTimeField(null=True, blank=True)
    lease_owner = models.CharField(max_length=64, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    # Consecutive runs that could not load or store a metric: the sweep retries the
    # benchmark no sooner than ``retry_at`` (exponential back-off, capped).
    failures = models.PositiveIntegerField(default=0)
    retry_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.benchmark_id}: {self.computed_revision}/{self.requested_revision}"

    @property
    def is_stale(self) -> bool:
        return self.computed_revision < self.requested_revision
