"""Creating and changing benchmarks: their fields, analysis settings, metrics,
maintainers and datasets."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.conf import settings
from django.db import transaction

from estimation.core.uncertainty_sections import MIN_BOOTSTRAP
from estimation.requests import recompute_request
from leaderboard.confusables import lookalike_message, lookalikes_new
from leaderboard.models import (
    Algorithm,
    Benchmark,
    Dataset,
    Metric,
)
from leaderboard.selectors import (
    dataset_names_public,
)
from leaderboard.services.access import require_maintainer
from leaderboard.services.entries import MAX_NAME_LENGTH, is_finite_number
from leaderboard.services.errors import NameConflict, Problem, ValidationFailed
from leaderboard.services.rope import metric_rope_problems
from leaderboard.services.submissions import names_ensure
from leaderboard.services.text import benchmark_text_problems, full_clean, text_problem

# Benchmark fields whose change alters the analysis and so needs a recompute, in the
# order a maintainer reads them (the benchmark form shows them so).
ANALYSIS_FIELDS = (
    "ranking_only",
    "missing_policy",
    "incomplete_submissions",
    "min_coverage",
    "tie_tolerance",
    "top_k",
    "alpha",
    "correction",
    "default_estimator",
    "control_algorithm",
    "bootstrap_size",
    "seed",
)
EDITABLE_FIELDS = (
    "title",
    "description",
    "citation",
    "licence",
    "visibility",
    "submission_policy",
    "allow_new_datasets",
    "allow_new_algorithms",
    *ANALYSIS_FIELDS,
)


# --- benchmarks -----------------------------------------------------------------------


@transaction.atomic
def benchmark_create(
    *,
    slug: str,
    title: str,
    metrics: Iterable[tuple],
    creator=None,
    **fields,
) -> Benchmark:
    """Create a benchmark with its metrics, given as (name, direction) or (name, direction,
    {"min_value", "max_value", "unit", "rope"}); the first is primary."""
    unknown = set(fields) - set(EDITABLE_FIELDS)
    if unknown:
        raise ValidationFailed(
            [Problem(f"unknown field {name!r}", name) for name in sorted(unknown)]
        )
    metrics = list(metrics)
    problems = benchmark_create_problems(slug=slug, title=title, metrics=metrics, **fields)
    from leaderboard.quotas import benchmark_quota_check  # it subclasses our errors

    benchmark_quota_check(creator=creator)
    taken = Benchmark.objects.filter(slug=slug).exists()
    if taken:
        problems.append(Problem(f"a benchmark with slug {slug!r} already exists", "slug"))
    if problems:
        # A taken slug alone is a conflict (409); with other problems, all of them (400).
        raise (NameConflict if taken and len(problems) == 1 else ValidationFailed)(problems)
    benchmark = Benchmark(slug=slug, title=title, **fields)
    full_clean(benchmark)
    benchmark.save()
    if creator is not None and creator.is_authenticated:
        benchmark.maintainers.add(creator)
    for index, (name, direction, *described) in enumerate(metrics):
        Metric.objects.create(
            benchmark=benchmark,
            name=name,
            direction=direction,
            is_primary=index == 0,
            **(described[0] if described else {}),
        )
    return benchmark


def benchmark_create_problems(
    *, slug: str | None, title: str | None, metrics: list[tuple], **fields
) -> list[Problem]:
    """Every rule :func:`benchmark_create` checks on its input (but a taken slug and the
    creator's quota), without writing: a form whose own checks failed asks it too, so
    that one submit names every problem. A field given as None was refused before and
    is not checked again."""
    problems = _metric_problems(metrics)
    problems += _ranking_problems(
        ranking_only=bool(fields.get("ranking_only")), n_metrics=len(metrics), field="metrics"
    )
    given = {k: v for k, v in {"slug": slug, "title": title, **fields}.items() if v is not None}
    problems += benchmark_problems(given, benchmark=None)
    return problems


# Paths under /api/benchmarks/ that a benchmark slug would shadow.
RESERVED_SLUGS = frozenset({"create"})


def benchmark_problems(fields: dict, *, benchmark: Benchmark | None) -> list[Problem]:
    """Every rule on a benchmark's own fields (``benchmark`` None: a new one, with its
    slug): the one check behind create, update and the admin's form."""
    problems = _analysis_cost_problems(fields) + _control_problems(fields, benchmark=benchmark)
    problems += benchmark_text_problems(fields)
    slug = fields.get("slug")
    if benchmark is None and slug in RESERVED_SLUGS:
        problems.append(Problem(f"{slug!r} is reserved by the API; choose another slug", "slug"))
    return problems


def _analysis_cost_problems(fields: dict) -> list[Problem]:
    """Settings that cost server time on every recompute stay within the site's limits
    (PODIUM_MAX_BOOTSTRAP); only whoever runs the site can raise them."""
    limit = settings.PODIUM_MAX_BOOTSTRAP
    value = fields.get("bootstrap_size")
    if isinstance(value, int) and 0 < value < MIN_BOOTSTRAP:
        return [
            Problem(
                f"give 0 bootstrap replicates (no bands) or at least {MIN_BOOTSTRAP}, got {value}",
                "bootstrap_size",
            )
        ]
    if isinstance(value, int) and value > limit:
        return [
            Problem(
                f"at most {limit} bootstrap replicates on this site, got {value} "
                "(the site's administrators set PODIUM_MAX_BOOTSTRAP)",
                "bootstrap_size",
            )
        ]
    return []


def _control_problems(fields: dict, *, benchmark: Benchmark | None) -> list[Problem]:
    """The default control names one of the benchmark's algorithms, or is blank."""
    value = fields.get("control_algorithm")
    if value is None:
        return []
    if not isinstance(value, str):
        return [Problem("must be an algorithm's name or blank", "control_algorithm")]
    name = value.strip()
    if not name:
        return []
    if benchmark is None or not Algorithm.objects.filter(benchmark=benchmark, name=name).exists():
        return [
            Problem(
                f"no algorithm named {name[:100]!r} in this benchmark (leave it blank for "
                "the best mean rank)",
                "control_algorithm",
            )
        ]
    return []


MAX_METRICS = 50  # each metric is a leaderboard the engine recomputes
MAX_METRIC_NAME_LENGTH = 100  # Metric.name


def metric_range_problems(
    *,
    min_value: float | None = None,
    max_value: float | None = None,
    unit: str = "",
    name: str = "",
) -> list[Problem]:
    """The rules on a metric's valid range and unit (either end may be open)."""
    problems = []
    label = f"metric {name!r}: " if name else ""
    for field_name, value in (("min_value", min_value), ("max_value", max_value)):
        if value is not None and not is_finite_number(value):
            problems.append(Problem(f"{label}{field_name} must be a finite number", field_name))
    if not problems and min_value is not None and max_value is not None and min_value >= max_value:
        problems.append(
            Problem(
                f"{label}the lowest valid value (min_value) must be below the highest "
                f"(max_value); got {min_value:g} and {max_value:g}",
                "min_value",
            )
        )
    if problem := text_problem(unit or "", max_length=20):
        problems.append(Problem(f"{label}unit {problem}", "unit"))
    return problems


# A ranking's results are positions: a second metric would be a second ranking in one
# file format that has no metric column (its exports and template would not read back).
RANKING_ONE_METRIC = "a ranking-only benchmark has one metric, the rank"


def _ranking_problems(*, ranking_only: bool, n_metrics: int, field: str) -> list[Problem]:
    return [Problem(RANKING_ONE_METRIC, field)] if ranking_only and n_metrics > 1 else []


NEEDS_A_METRIC = "a benchmark needs at least one metric"


def _metric_problems(metrics: list[tuple]) -> list[Problem]:
    problems = []
    if not metrics:
        problems.append(Problem(NEEDS_A_METRIC, "metrics"))
    if len(metrics) > MAX_METRICS:
        return [Problem(f"at most {MAX_METRICS} metrics, got {len(metrics)}", "metrics")]
    seen = set()
    directions = {choice.value for choice in Metric.Direction}
    for name, direction, *described in metrics:
        if described:
            ranges = dict(described[0])
            problems += metric_rope_problems(
                ranges.pop("rope", None),
                field="metrics",
                name=name if isinstance(name, str) else "",
            )
            problems += metric_range_problems(name=name, **ranges)
        if not isinstance(name, str) or not name.strip():
            problems.append(Problem("a metric needs a name", "metrics"))
            continue
        if problem := text_problem(name, max_length=MAX_METRIC_NAME_LENGTH):
            problems.append(Problem(f"metric name {name[:40]!r} {problem}", "metrics"))
        if name in seen:
            problems.append(Problem(f"metric {name!r} is listed twice", "metrics"))
        seen.add(name)
        if direction not in directions:
            problems.append(
                Problem(
                    f"metric {name!r}: direction must be one of {sorted(directions)}, "
                    f"got {direction!r}",
                    "metrics",
                )
            )
    return problems


@transaction.atomic
def benchmark_update(*, benchmark: Benchmark, user, **changes) -> Benchmark:
    """Change a benchmark's metadata or analysis settings (maintainers only)."""
    require_maintainer(user=user, benchmark=benchmark)
    unknown = set(changes) - set(EDITABLE_FIELDS)
    if unknown:
        raise ValidationFailed(
            [Problem("this field cannot be changed", name) for name in sorted(unknown)]
        )
    problems = benchmark_problems(changes, benchmark=benchmark)
    if changes.get("ranking_only") and not benchmark.ranking_only:
        problems += _ranking_problems(
            ranking_only=True, n_metrics=benchmark.metrics.count(), field="ranking_only"
        )
    if problems:
        raise ValidationFailed(problems)
    if "control_algorithm" in changes:
        changes["control_algorithm"] = changes["control_algorithm"].strip()
    analysis_changed = any(
        name in ANALYSIS_FIELDS and getattr(benchmark, name) != value
        for name, value in changes.items()
    )
    for name, value in changes.items():
        setattr(benchmark, name, value)
    full_clean(benchmark)
    benchmark.save()
    if analysis_changed:
        recompute_request(benchmark_id=benchmark.pk)
    return benchmark


@transaction.atomic
def benchmark_add_maintainer(*, benchmark: Benchmark, user, new_maintainer) -> None:
    require_maintainer(user=user, benchmark=benchmark)
    benchmark.maintainers.add(new_maintainer)


@transaction.atomic
def benchmark_datasets_add(*, benchmark: Benchmark, user, names: Sequence[str]) -> list[Dataset]:
    """Declare datasets before results arrive (maintainers); known names are skipped."""
    require_maintainer(user=user, benchmark=benchmark)
    wanted = list(dict.fromkeys(name.strip() for name in names if name.strip()))
    problems = [
        Problem(f"dataset name {name[:40]!r} {problem}", "names")
        for name in wanted
        if (problem := text_problem(name, max_length=MAX_NAME_LENGTH))
    ]
    if not wanted:
        problems.append(Problem("give at least one dataset name", "names"))
    problems += [
        Problem(lookalike_message("dataset", name, original), "names")
        for name, original in lookalikes_new(
            kind="dataset", names=wanted, listed=dataset_names_public(benchmark=benchmark)
        )
    ]
    if problems:
        raise ValidationFailed(problems)
    listed = set(
        benchmark.datasets.filter(name__in=wanted, declared=True).values_list("name", flat=True)
    )
    added = names_ensure(Dataset, benchmark=benchmark, names=set(wanted) - listed)
    Dataset.objects.filter(pk__in=[d.pk for d in added.values()]).update(declared=True)
    return [added[name] for name in wanted if name in added]


@transaction.atomic
def metric_add(
    *,
    benchmark: Benchmark,
    user,
    name: str,
    direction: str,
    min_value: float | None = None,
    max_value: float | None = None,
    unit: str = "",
) -> Metric:
    """Add a metric (maintainers). It has no scores yet, so nothing is recomputed."""
    require_maintainer(user=user, benchmark=benchmark)
    name = name.strip()
    problems = metric_problems(benchmark=benchmark, name=name, direction=direction)
    problems += metric_range_problems(min_value=min_value, max_value=max_value, unit=unit)
    problems += _ranking_problems(
        ranking_only=benchmark.ranking_only, n_metrics=benchmark.metrics.count() + 1, field="name"
    )
    if problems:
        raise ValidationFailed(problems)
    return Metric.objects.create(
        benchmark=benchmark,
        name=name,
        direction=direction,
        min_value=min_value,
        max_value=max_value,
        unit=unit.strip(),
    )


@transaction.atomic
def metric_range_set(
    *,
    benchmark: Benchmark,
    user,
    metric: Metric,
    min_value: float | None,
    max_value: float | None,
    unit: str = "",
) -> Metric:
    """Set a metric's valid range and unit (maintainers). Scores already stored are kept:
    the range applies to what arrives next."""
    require_maintainer(user=user, benchmark=benchmark)
    if problems := metric_range_problems(min_value=min_value, max_value=max_value, unit=unit):
        raise ValidationFailed(problems)
    metric.min_value, metric.max_value, metric.unit = min_value, max_value, unit.strip()
    metric.save(update_fields=["min_value", "max_value", "unit"])
    return metric


def metric_problems(
    *, benchmark: Benchmark, name: str, direction: str, metric: Metric | None = None
) -> list[Problem]:
    """The rules on a benchmark's metrics, with ``metric`` (if given) named and directed so."""
    others = benchmark.metrics.exclude(pk=metric.pk) if metric is not None else benchmark.metrics
    return _metric_problems([*others.values_list("name", "direction"), (name, direction)])
