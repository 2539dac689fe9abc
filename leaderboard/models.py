"""Benchmarks and the results submitted to them."""

from __future__ import annotations

import json

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from estimation.core.contract import AnalysisSettings
from estimation.core.registry import ESTIMATORS


class Benchmark(models.Model):
    class Visibility(models.TextChoices):
        PUBLIC = "public", "public: listed and readable by anyone"
        UNLISTED = "unlisted", "unlisted: readable by anyone with the link"
        PRIVATE = "private", "private: maintainers only"

    class SubmissionPolicy(models.TextChoices):
        OPEN = "open", "open: accepted on arrival"
        MODERATED = "moderated", "moderated: a maintainer accepts each submission"
        CLOSED = "closed", "closed: maintainers only"

    class MissingPolicy(models.TextChoices):
        COMPLETE = "complete", "analyse datasets every included algorithm has"
        WORST = "worst", "a missing result ranks last"

    class IncompleteSubmissions(models.TextChoices):
        # The rule: leaderboard/incomplete.py.
        EXCLUDE = "exclude", "not ranked until complete"
        RANK_ON_WHAT_IT_HAS = "rank_on_what_it_has", "ranked last where it has no result"
        DROP_DATASETS = (
            "drop_datasets",
            "those datasets left out for all",
        )

    class Correction(models.TextChoices):
        HOLM = "holm", "Holm"
        BONFERRONI = "bonferroni", "Bonferroni"

    # The estimators are listed once, in estimation/core/registry.py.
    ESTIMATOR_CHOICES = [(e.key, e.label) for e in ESTIMATORS]

    slug = models.SlugField(max_length=80, unique=True)
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    citation = models.TextField(blank=True)
    licence = models.CharField(max_length=100, blank=True)
    visibility = models.CharField(
        max_length=8, choices=Visibility.choices, default=Visibility.PUBLIC
    )
    submission_policy = models.CharField(
        max_length=9, choices=SubmissionPolicy.choices, default=SubmissionPolicy.MODERATED
    )
    maintainers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="maintained_benchmarks"
    )
    ranking_only = models.BooleanField(
        default=False, help_text="Results are rankings (1 = best), possibly only the top K."
    )
    allow_new_datasets = models.BooleanField(
        default=True, help_text="A submission may add datasets the benchmark does not list yet."
    )
    allow_new_algorithms = models.BooleanField(default=True)

    # Analysis settings (METHODS.md); a change triggers a recompute.
    missing_policy = models.CharField(
        max_length=8, choices=MissingPolicy.choices, default=MissingPolicy.COMPLETE
    )
    incomplete_submissions = models.CharField(
        max_length=19,
        choices=IncompleteSubmissions.choices,
        default=IncompleteSubmissions.EXCLUDE,
        help_text="What an algorithm without results on every dataset of the board does "
        "to the analysis.",
    )
    min_coverage = models.FloatField(
        default=0.5, validators=[MinValueValidator(0.0), MaxValueValidator(1.0)]
    )
    tie_tolerance = models.FloatField(default=0.0, validators=[MinValueValidator(0.0)])
    top_k = models.PositiveSmallIntegerField(default=3, validators=[MinValueValidator(1)])
    alpha = models.FloatField(
        default=0.05, validators=[MinValueValidator(0.001), MaxValueValidator(0.5)]
    )
    correction = models.CharField(
        max_length=10, choices=Correction.choices, default=Correction.HOLM
    )
    default_estimator = models.CharField(
        max_length=14, choices=ESTIMATOR_CHOICES, default=AnalysisSettings().default_estimator
    )
    bootstrap_size = models.PositiveIntegerField(
        default=1000, validators=[MinValueValidator(0), MaxValueValidator(100_000)]
    )
    seed = models.PositiveIntegerField(default=0)
    control_algorithm = models.CharField(
        max_length=200,
        blank=True,
        default="",
        help_text="The algorithm the comparison with a control uses by default "
        "(blank: the best mean rank).",
    )

    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["title"]
        constraints = [
            models.CheckConstraint(
                condition=Q(tie_tolerance__gte=0), name="benchmark_tie_tolerance_nonnegative"
            ),
            models.CheckConstraint(
                condition=Q(min_coverage__gte=0) & Q(min_coverage__lte=1),
                name="benchmark_min_coverage_share",
            ),
            models.CheckConstraint(
                condition=Q(alpha__gt=0) & Q(alpha__lt=1), name="benchmark_alpha_probability"
            ),
            models.CheckConstraint(condition=Q(top_k__gte=1), name="benchmark_top_k_positive"),
        ]

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
    description = models.TextField(blank=True)
    rope = models.FloatField(
        null=True,
        blank=True,
        validators=[MinValueValidator(0.0)],
        help_text="Region of practical equivalence: differences within ±rope (metric units) "
        "do not matter in practice. Empty: none (no practical-equivalence probabilities).",
    )
    # The valid range (either end may be open): a value outside it is refused on every
    # entry point, and a "perfect" score is one at the range's better end.
    min_value = models.FloatField(null=True, blank=True, help_text="Lowest valid value")
    max_value = models.FloatField(null=True, blank=True, help_text="Highest valid value")
    unit = models.CharField(max_length=20, blank=True, help_text="e.g. %, s, MB")

    class Meta:
        ordering = ["-is_primary", "name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(min_value__isnull=True)
                | Q(max_value__isnull=True)
                | Q(min_value__lt=models.F("max_value")),
                name="metric_range_ordered",
            ),
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

    @property
    def best_possible(self) -> float | None:
        """The end of the valid range a perfect score reaches, if the range has one."""
        return self.max_value if self.higher_is_better else self.min_value


class Algorithm(models.Model):
    """An algorithm named by a submission; public once one of its submissions is accepted.

    ``url`` and ``version`` are those of its newest accepted submission that gives one
    (set by the services), so a pending or rejected submitter never sets them.
    ``owners`` (an account, or a team of accounts) are the only ones who may submit
    under its name: the first submitter whose submission is accepted, then whoever an
    owner adds or a maintainer transfers it to (leaderboard/ownership.py).
    """

    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="algorithms")
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    url = models.URLField(blank=True, help_text="Paper or code")
    version = models.CharField(max_length=50, blank=True)
    owners = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="owned_algorithms"
    )
    # Metadata from its newest accepted submission that gives any (like url and version).
    family = models.CharField(max_length=100, blank=True, help_text="Family or type")
    parameters = models.PositiveBigIntegerField(null=True, blank=True, help_text="Parameter count")
    licence = models.CharField(max_length=100, blank=True)
    revision = models.CharField(max_length=100, blank=True, help_text="e.g. a commit or model sha")
    precision = models.CharField(
        max_length=30, blank=True, help_text="e.g. bfloat16, float16, 8bit, 4bit"
    )
    open_weights = models.BooleanField(
        null=True, blank=True, help_text="whether its weights are published (unknown: null)"
    )

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["benchmark", "name"], name="algorithm_unique_name")
        ]

    def __str__(self) -> str:
        return self.name


class Dataset(models.Model):
    """A dataset; public when a maintainer declared it or an accepted score uses it."""

    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="datasets")
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    # Set by a maintainer (leaderboard.services.dataset_describe checks scheme and lengths).
    url = models.URLField(max_length=500, blank=True)
    domain = models.CharField(max_length=100, blank=True)
    declared = models.BooleanField(
        default=False, help_text="Listed by a maintainer, before or without any accepted result."
    )

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

    class Source(models.TextChoices):
        # The labels follow "via" on the pages ("via the API", not "via Api").
        FORM = "form", "the web form"
        API = "api", "the API"
        CSV = "csv", "a CSV upload"
        IMPORT = "import", "a maintainer's import"

    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="submissions")
    algorithm = models.ForeignKey(Algorithm, on_delete=models.PROTECT, related_name="submissions")
    submitter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="submissions",
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    source = models.CharField(max_length=6, choices=Source.choices, default=Source.API)
    note = models.TextField(blank=True, help_text="The submitter's description")
    # What the submitter says about the algorithm; public only once accepted.
    algorithm_url = models.URLField(blank=True, help_text="Paper or code")
    algorithm_version = models.CharField(max_length=50, blank=True)
    # {"family", "parameters", "licence", "revision", "precision", "open_weights"}: what the
    # submitter says (ALGORITHM_METADATA).
    algorithm_metadata = models.JSONField(default=dict, blank=True)
    # How the numbers were made, as an imported file says (model revision, harness
    # version, dataset revisions); shown to maintainers, never used in the analysis.
    provenance = models.JSONField(default=dict, blank=True)
    decision_note = models.TextField(blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    idempotency_key = models.CharField(max_length=100, blank=True)
    content_hash = models.CharField(max_length=64, blank=True)
    # What its scores cover, counted when they are stored.
    n_scores = models.PositiveIntegerField(default=0)
    n_datasets = models.PositiveIntegerField(default=0)
    n_folds = models.PositiveIntegerField(default=0, help_text="distinct fold numbers")
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["benchmark", "status"])]
        constraints = [
            # A retried upload with the same key is the same submission.
            models.UniqueConstraint(
                fields=["benchmark", "submitter", "idempotency_key"],
                condition=~Q(idempotency_key=""),
                name="submission_unique_idempotency_key",
            )
        ]

    def __str__(self) -> str:
        return f"{self.algorithm} ({self.status})"


class DatasetKeys(models.Field):
    """Distinct dataset keys, ascending: ``bigint[]`` on PostgreSQL (GIN-indexed, so "which
    submissions use this dataset" is an index probe), a JSON list elsewhere (SQLite)."""

    description = "distinct dataset keys"

    def db_type(self, connection) -> str:
        return "bigint[]" if connection.vendor == "postgresql" else "text"

    def from_db_value(self, value, expression, connection):
        if value is None or isinstance(value, list):
            return value
        return json.loads(value)

    def to_python(self, value):
        """A list of keys, also from its JSON text (a fixture, the SQLite column)."""
        if value is None:
            return None
        if isinstance(value, str):
            value = json.loads(value)
        return [int(key) for key in value]

    def value_to_string(self, obj):
        return self.value_from_object(obj)  # a list in dumpdata's JSON, as JSONField does

    def get_db_prep_value(self, value, connection, prepared=False):
        keys = self.to_python(value)
        if keys is None or connection.vendor == "postgresql":
            return keys
        return json.dumps(keys)


@DatasetKeys.register_lookup
class HasKey(models.Lookup):
    """``datasets__has=<key or expression>``: the list holds that dataset key."""

    lookup_name = "has"
    prepare_rhs = False

    def get_db_prep_lookup(self, value, connection):
        return "%s", [int(value)]

    def as_sql(self, compiler, connection):
        lhs, lhs_params = self.process_lhs(compiler, connection)
        rhs, rhs_params = self.process_rhs(compiler, connection)
        sql = f"EXISTS (SELECT 1 FROM json_each({lhs}) WHERE json_each.value = {rhs})"
        return sql, (*lhs_params, *rhs_params)

    def as_postgresql(self, compiler, connection):
        lhs, lhs_params = self.process_lhs(compiler, connection)
        rhs, rhs_params = self.process_rhs(compiler, connection)
        return f"{lhs} @> ARRAY[{rhs}]::bigint[]", (*lhs_params, *rhs_params)


class ScorePack(models.Model):
    """A submission's scores on one metric, in one row (``leaderboard.score_packs``).

    A benchmark may hold millions of scores; stored a row each, PostgreSQL spent ten
    times a raw COPY writing them. Packed, a million-score upload is a hundred rows. The
    scores are ordered by dataset key, then fold: ``datasets`` holds the distinct keys,
    ``counts`` how many scores each has (int32), ``folds`` each score's fold (int32, -1 =
    none) and ``scores`` its value (float64), all little-endian. The write service checks
    what row constraints checked before (finite values, one score per dataset and fold,
    the benchmark's own datasets, locked while the write lasts); on PostgreSQL a deferred
    trigger refuses to lose a dataset that a pack still names (migration 0017).
    """

    submission = models.ForeignKey(
        Submission, on_delete=models.CASCADE, related_name="score_packs", db_index=False
    )
    metric = models.ForeignKey(Metric, on_delete=models.PROTECT, related_name="score_packs")
    datasets = DatasetKeys()
    counts = models.BinaryField()
    folds = models.BinaryField()
    scores = models.BinaryField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["submission", "metric"], name="score_pack_unique")
        ]

    def __str__(self) -> str:
        return f"{self.submission} on {self.metric}"


class PublishedOrder(models.Model):
    """A source's own aggregate of its results ("Mean win rate" in HELM), kept from an
    import by a maintainer or an operator so readers can set Podium's order beside it.

    ``values`` maps algorithm name -> the source's number (higher first, as the sources
    Podium reads publish them: mean win rates and mean scores).
    """

    benchmark = models.ForeignKey(
        Benchmark, on_delete=models.CASCADE, related_name="published_orders"
    )
    name = models.CharField(max_length=200)
    source_format = models.CharField(max_length=40)
    values = models.JSONField()
    imported_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(
                fields=["benchmark", "name"], name="published_order_unique_name"
            )
        ]

    def __str__(self) -> str:
        return f"{self.benchmark}: {self.name}"


class ApiToken(models.Model):
    """A personal API token for scripts: ``Authorization: Token <raw>``.

    Only the sha256 of the raw token is stored; the raw value is shown once, at creation.
    ``prefix`` (the first characters of the raw token) finds the candidate rows and lets
    the owner tell tokens apart; a revoked token stays for the record but never matches.
    """

    PREFIX_LENGTH = 12

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=PREFIX_LENGTH, db_index=True)
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(
        null=True, blank=True, help_text="after this the token never matches (blank: never)"
    )

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class UploadJob(models.Model):
    """A results file too large to store within one request, processed by a worker.

    The file is kept (in the database, so any worker on any machine can read it) until
    it is processed, then emptied. ``result`` is the body the synchronous upload would
    have answered (the stored submissions and what was left out, or the refusal with
    every bad row) and ``http_status`` its status code.
    """

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="upload_jobs")
    submitter = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="upload_jobs"
    )
    content = models.BinaryField(editable=False)
    size = models.PositiveBigIntegerField(help_text="bytes of the file as uploaded")
    format = models.CharField(max_length=20, blank=True)
    # Another tool's readers tell its files by name (.json, .csv, a zip's entries).
    filename = models.CharField(max_length=255, default="upload")
    note = models.TextField(blank=True)
    idempotency_key = models.CharField(max_length=100, blank=True)
    new_datasets_confirmed = models.BooleanField(
        default=False, help_text="the uploader confirmed new datasets (typo guard)"
    )
    # The uploader's choices, as leaderboard.services.uploads.UploadInput takes them.
    on_error = models.CharField(
        max_length=10, default="refuse", help_text="refuse, or skip what cannot be read"
    )
    incomplete = models.CharField(
        max_length=10, default="refuse", help_text="refuse, or drop results lacking folds"
    )
    columns = models.JSONField(
        default=dict, blank=True, help_text="a CSV's own column names by role ({} : as read)"
    )
    nan_missing = models.BooleanField(
        default=False, help_text="a NaN (or a long file's empty) score is a missing result"
    )
    models_as_rows = models.BooleanField(
        default=False, help_text="one row per model (its first column), one column per dataset"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    stage = models.CharField(max_length=40, blank=True)
    progress = models.FloatField(default=0.0)
    result = models.JSONField(null=True, blank=True)
    http_status = models.PositiveSmallIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"upload {self.pk} to {self.benchmark} ({self.status})"
