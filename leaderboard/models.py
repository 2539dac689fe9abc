"""Benchmarks and the results submitted to them."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class Benchmark(models.Model):
    slug = models.SlugField(max_length=80, unique=True)
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    citation = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["title"]

    def __str__(self) -> str:
        return self.title


class Metric(models.Model):
    class Direction(models.TextChoices):
        HIGHER = "higher", "higher is better"
        LOWER = "lower", "lower is better"

    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="metrics")
    name = models.CharField(max_length=100)
    direction = models.CharField(max_length=6, choices=Direction.choices)
    is_primary = models.BooleanField(default=False)

    class Meta:
        ordering = ["-is_primary", "name"]
        constraints = [
            models.UniqueConstraint(fields=["benchmark", "name"], name="metric_unique_name"),
            models.UniqueConstraint(
                fields=["benchmark"], condition=Q(is_primary=True), name="metric_one_primary"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_direction_display()})"

    @property
    def higher_is_better(self) -> bool:
        return self.direction == self.Direction.HIGHER


class Algorithm(models.Model):
    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="algorithms")
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["benchmark", "name"], name="algorithm_unique_name")
        ]

    def __str__(self) -> str:
        return self.name


class Dataset(models.Model):
    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="datasets")
    name = models.CharField(max_length=200)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["benchmark", "name"], name="dataset_unique_name")
        ]

    def __str__(self) -> str:
        return self.name


class Submission(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending"
        ACCEPTED = "accepted"
        REJECTED = "rejected"
        WITHDRAWN = "withdrawn"

    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="submissions")
    algorithm = models.ForeignKey(Algorithm, on_delete=models.PROTECT, related_name="submissions")
    submitter = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["benchmark", "status"])]

    def __str__(self) -> str:
        return f"{self.algorithm} ({self.status})"


class Score(models.Model):
    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="scores")
    dataset = models.ForeignKey(Dataset, on_delete=models.PROTECT, related_name="scores")
    metric = models.ForeignKey(Metric, on_delete=models.PROTECT, related_name="scores")
    fold = models.PositiveIntegerField(null=True, blank=True)
    value = models.FloatField()

    class Meta:
        constraints = [
            # Finite values only: NaN and +-inf fail both comparisons in PostgreSQL.
            models.CheckConstraint(
                condition=Q(value__gte=-1e308) & Q(value__lte=1e308), name="score_value_finite"
            ),
            models.UniqueConstraint(
                fields=["submission", "dataset", "metric", "fold"], name="score_unique_fold"
            ),
            models.UniqueConstraint(
                fields=["submission", "dataset", "metric"],
                condition=Q(fold__isnull=True),
                name="score_unique_without_fold",
            ),
        ]

    def __str__(self) -> str:
        fold = f" fold {self.fold}" if self.fold is not None else ""
        return f"{self.dataset}{fold}: {self.value}"
