"""Every write to benchmarks and results goes through these functions.

Web forms, the REST API, CSV uploads and management commands all call them, so the
rules (who may do what, what a valid score is, when a recompute is due) live here once.
"""

from __future__ import annotations

import hashlib
import math
import re
import secrets
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import cast

import numpy as np
from django.conf import settings
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import URLValidator
from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone

from estimation.core.analysis import MIN_BOOTSTRAP
from estimation.results_csv import control_character_problem
from estimation.services import recompute_request
from leaderboard.models import (
    Algorithm,
    ApiToken,
    Benchmark,
    Dataset,
    Metric,
    Score,
    Submission,
)
from leaderboard.notifications import submission_decision_notify
from leaderboard.selectors import (
    algorithm_names_public,
    api_token_digest,
    dataset_names_public,
)
from leaderboard.typo_guard import NameIndex, did_you_mean

# Benchmark fields whose change alters the analysis and so needs a recompute.
ANALYSIS_FIELDS = (
    "missing_policy",
    "min_coverage",
    "tie_tolerance",
    "top_k",
    "alpha",
    "correction",
    "default_estimator",
    "bootstrap_size",
    "seed",
    "ranking_only",
    "control_algorithm",
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


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the input, located as precisely as the input allows."""

    message: str
    field: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        where = []
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.field:
            where.append(f"column {self.field!r}" if self.line is not None else self.field)
        return f"{', '.join(where)}: {self.message}" if where else self.message

    def to_dict(self) -> dict:
        return {"line": self.line, "field": self.field, "message": self.message}


class ValidationFailed(ValueError):
    """The input was refused as a whole; nothing was written."""

    def __init__(self, problems: Sequence[Problem]):
        self.problems = tuple(problems)
        super().__init__("; ".join(str(p) for p in self.problems[:5]))


class NameNotFound(ValidationFailed):
    """The benchmark has no entry of that name (the API answers 404): nothing was written."""


class NameConflict(ValidationFailed):
    """The name is taken, or the entry is in use (the API answers 409): nothing was written."""


class StateConflict(ValidationFailed):
    """The object's current state does not allow this change, or it is already done
    (the API answers 409 Conflict): nothing was written."""

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__([Problem(reason, "status")])


class PermissionDenied(Exception):
    """The user may not do this to this object."""


@dataclass(frozen=True)
class ScoreInput:
    dataset: str
    value: float
    metric: str | None = None
    fold: int | None = None
    line: int | None = None


@dataclass(frozen=True, eq=False)
class ScoreBlock(Sequence[ScoreInput]):
    """One algorithm's scores from a parsed results file, as columns.

    A million-row file would otherwise become a million :class:`ScoreInput` objects
    (the peak memory of an upload): the services check and store a block with numpy
    and write it to the binary COPY straight from these arrays. It is still a sequence
    of ``ScoreInput`` (built one at a time on access), so every reader of
    ``SubmissionInput.scores`` works unchanged. Codes index ``datasets``/``metrics``;
    ``-1`` is no metric (the primary one) or no fold.
    """

    datasets: tuple[str, ...]
    metrics: tuple[str, ...]
    dataset_codes: np.ndarray
    metric_codes: np.ndarray
    folds: np.ndarray
    values: np.ndarray
    lines: np.ndarray

    def __len__(self) -> int:
        return len(self.values)

    def _score(self, d: int, k: int, fold: int, value: float, line: int) -> ScoreInput:
        return ScoreInput(
            dataset=self.datasets[d],
            value=value,
            metric=self.metrics[k] if k >= 0 else None,
            fold=fold if fold >= 0 else None,
            line=line,
        )

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        i = range(len(self))[index]
        return self._score(
            int(self.dataset_codes[i]),
            int(self.metric_codes[i]),
            int(self.folds[i]),
            float(self.values[i]),
            int(self.lines[i]),
        )

    def __iter__(self):
        for d, k, fold, value, line in zip(
            self.dataset_codes.tolist(),
            self.metric_codes.tolist(),
            self.folds.tolist(),
            self.values.tolist(),
            self.lines.tolist(),
            strict=True,
        ):
            yield self._score(d, k, fold, value, line)

    def used_datasets(self) -> list[str]:
        """The dataset names of this block, in order of first appearance."""
        codes, first = np.unique(self.dataset_codes, return_index=True)
        return [self.datasets[c] for c in codes[np.argsort(first, kind="stable")].tolist()]


@dataclass(frozen=True)
class SubmissionInput:
    algorithm: str
    scores: Sequence[ScoreInput]
    algorithm_url: str = ""
    algorithm_version: str = ""
    note: str = ""
    extra: dict = field(default_factory=dict)
    algorithm_metadata: dict = field(default_factory=dict)  # ALGORITHM_METADATA keys
    provenance: dict = field(default_factory=dict)


# --- permissions ----------------------------------------------------------------------


def user_is_maintainer(*, user, benchmark: Benchmark) -> bool:
    if user is None or not user.is_authenticated:
        return False
    if user.is_superuser:
        return True
    return benchmark.maintainers.filter(pk=user.pk).exists()


def _require_maintainer(*, user, benchmark: Benchmark) -> None:
    if not user_is_maintainer(user=user, benchmark=benchmark):
        raise PermissionDenied(f"only maintainers of {benchmark.slug!r} may do this")


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
    {"min_value", "max_value", "unit"}); the first is primary."""
    unknown = set(fields) - set(EDITABLE_FIELDS)
    if unknown:
        raise ValidationFailed(
            [Problem(f"unknown field {name!r}", name) for name in sorted(unknown)]
        )
    metrics = list(metrics)
    problems = _metric_problems(metrics)
    problems += benchmark_problems({"slug": slug, "title": title, **fields}, benchmark=None)
    taken = Benchmark.objects.filter(slug=slug).exists()
    if taken:
        problems.append(Problem(f"a benchmark with slug {slug!r} already exists", "slug"))
    if problems:
        # A taken slug alone is a conflict (409); with other problems, all of them (400).
        raise (NameConflict if taken and len(problems) == 1 else ValidationFailed)(problems)
    benchmark = Benchmark(slug=slug, title=title, **fields)
    _full_clean(benchmark)
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


# Paths under /api/benchmarks/ that a benchmark slug would shadow.
RESERVED_SLUGS = frozenset({"create"})


def benchmark_problems(fields: dict, *, benchmark: Benchmark | None) -> list[Problem]:
    """Every rule on a benchmark's own fields (``benchmark`` None: a new one, with its
    slug): the one check behind create, update and the admin's form."""
    problems = _analysis_cost_problems(fields) + _control_problems(fields, benchmark=benchmark)
    problems += _text_field_problems(fields)
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


MAX_TEXT_LENGTH = 20_000  # a description, citation or note: pages of text, not a data store
# Benchmark fields shown on one line (titles, table cells) and those that are prose.
_ONE_LINE_FIELDS = ("title", "licence", "control_algorithm")
_PROSE_FIELDS = ("description", "citation")
# In prose, line breaks and tabs are text; other C0 controls, DEL and lone surrogates
# (which UTF-8 and PostgreSQL cannot hold) are not.
_PROSE_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")


def text_problem(text: str, *, prose: bool = False, max_length: int | None = None) -> str | None:
    """Why ``text`` cannot be stored, or None: the one rule for every user text.

    One-line texts (names, titles, token names) follow
    :func:`~estimation.results_csv.control_character_problem` (no control or invisible
    characters); prose (descriptions, citations, notes) may hold line breaks and tabs,
    and at most ``MAX_TEXT_LENGTH`` characters unless ``max_length`` says otherwise.
    """
    if not isinstance(text, str):
        return "must be text"
    limit = max_length if max_length is not None else (MAX_TEXT_LENGTH if prose else None)
    if limit is not None and len(text) > limit:
        return f"is {len(text)} characters long; the limit is {limit}"
    if not prose:
        return control_character_problem(text)
    if found := _PROSE_CONTROL.search(text):
        return (
            f"contains the control character U+{ord(found.group()):04X} at position "
            f"{found.start() + 1}"
        )
    return None


def text_field_problems(
    values: Mapping[str, object], *, prose: Collection[str] = ()
) -> list[Problem]:
    """:func:`text_problem` of each text in ``values`` (field name to value; those named
    in ``prose`` are prose), reported on its field; values that are not text are skipped."""
    return [
        Problem(f"{name} {problem}", name)
        for name, value in values.items()
        if isinstance(value, str) and (problem := text_problem(value, prose=name in prose))
    ]


def _text_field_problems(fields: dict) -> list[Problem]:
    """Benchmark texts: one-line fields without control or invisible characters, prose
    within MAX_TEXT_LENGTH (lengths of one-line fields are the model's)."""
    texts = {
        name: value
        for name, value in fields.items()
        if name in _ONE_LINE_FIELDS or name in _PROSE_FIELDS
    }
    return text_field_problems(texts, prose=_PROSE_FIELDS)


def _full_clean(instance) -> None:
    """Model validation, reported like every other refused input."""
    try:
        instance.full_clean()
    except DjangoValidationError as exc:
        raise ValidationFailed(
            [
                Problem(message, None if name == "__all__" else name)
                for name, messages in exc.message_dict.items()
                for message in messages
            ]
        ) from None


MAX_METRICS = 50  # each metric is a leaderboard the engine recomputes
MAX_METRIC_NAME_LENGTH = 100  # Metric.name


def metric_range_problems(
    *, min_value: float | None, max_value: float | None, unit: str = "", name: str = ""
) -> list[Problem]:
    """The rules on a metric's valid range and unit (either end may be open)."""
    problems = []
    label = f"metric {name!r}: " if name else ""
    for field_name, value in (("min_value", min_value), ("max_value", max_value)):
        if value is not None and (not _is_number(value) or not math.isfinite(value)):
            problems.append(Problem(f"{label}{field_name} must be a finite number", field_name))
    if not problems and min_value is not None and max_value is not None and min_value >= max_value:
        problems.append(
            Problem(
                f"{label}min_value must be below max_value ({min_value} >= {max_value})",
                "min_value",
            )
        )
    if problem := text_problem(unit or "", max_length=20):
        problems.append(Problem(f"{label}unit {problem}", "unit"))
    return problems


def metric_range_problem(metric: Metric, value: float) -> str | None:
    """Why ``value`` is outside ``metric``'s valid range, or None."""
    low, high = metric.min_value, metric.max_value
    if (low is None or value >= low) and (high is None or value <= high):
        return None
    unit = f" {metric.unit}" if metric.unit else ""
    shown = f"[{'-inf' if low is None else f'{low:g}'}, {'inf' if high is None else f'{high:g}'}]"
    return f"{value:g} is outside the valid range of metric {metric.name!r}, {shown}{unit}"


def _metric_problems(metrics: list[tuple]) -> list[Problem]:
    problems = []
    if not metrics:
        problems.append(Problem("a benchmark needs at least one metric", "metrics"))
    if len(metrics) > MAX_METRICS:
        return [Problem(f"at most {MAX_METRICS} metrics, got {len(metrics)}", "metrics")]
    seen = set()
    directions = {choice.value for choice in Metric.Direction}
    for name, direction, *described in metrics:
        if described:
            problems += metric_range_problems(name=name, **described[0])
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
    _require_maintainer(user=user, benchmark=benchmark)
    unknown = set(changes) - set(EDITABLE_FIELDS)
    if unknown:
        raise ValidationFailed(
            [Problem("this field cannot be changed", name) for name in sorted(unknown)]
        )
    if problems := benchmark_problems(changes, benchmark=benchmark):
        raise ValidationFailed(problems)
    if "control_algorithm" in changes:
        changes["control_algorithm"] = changes["control_algorithm"].strip()
    analysis_changed = any(
        name in ANALYSIS_FIELDS and getattr(benchmark, name) != value
        for name, value in changes.items()
    )
    for name, value in changes.items():
        setattr(benchmark, name, value)
    _full_clean(benchmark)
    benchmark.save()
    if analysis_changed:
        recompute_request(benchmark_id=benchmark.pk)
    return benchmark


@transaction.atomic
def benchmark_add_maintainer(*, benchmark: Benchmark, user, new_maintainer) -> None:
    _require_maintainer(user=user, benchmark=benchmark)
    benchmark.maintainers.add(new_maintainer)


@transaction.atomic
def benchmark_datasets_add(*, benchmark: Benchmark, user, names: Sequence[str]) -> list[Dataset]:
    """Declare datasets before results arrive (maintainers); known names are skipped."""
    _require_maintainer(user=user, benchmark=benchmark)
    wanted = list(dict.fromkeys(name.strip() for name in names if name.strip()))
    problems = [
        Problem(f"dataset name {name[:40]!r} {problem}", "names")
        for name in wanted
        if (problem := text_problem(name, max_length=MAX_NAME_LENGTH))
    ]
    if not wanted:
        problems.append(Problem("give at least one dataset name", "names"))
    if problems:
        raise ValidationFailed(problems)
    listed = set(
        benchmark.datasets.filter(name__in=wanted, declared=True).values_list("name", flat=True)
    )
    added = _names_ensure(Dataset, benchmark=benchmark, names=set(wanted) - listed)
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
    _require_maintainer(user=user, benchmark=benchmark)
    name = name.strip()
    problems = metric_problems(benchmark=benchmark, name=name, direction=direction)
    problems += metric_range_problems(min_value=min_value, max_value=max_value, unit=unit)
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
    _require_maintainer(user=user, benchmark=benchmark)
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


# --- renaming and deleting datasets and algorithms -------------------------------------
# Published results name their datasets and algorithms, so only names that no accepted
# result uses may change: a typo in a pending submission, or a name a rejected one left.

_CATALOGUE: dict[str, type[Dataset] | type[Algorithm]] = {
    "dataset": Dataset,
    "algorithm": Algorithm,
}


def _catalogue_entry_for_change(*, benchmark: Benchmark, user, kind: str, name: str):
    _require_maintainer(user=user, benchmark=benchmark)
    model = _CATALOGUE[kind]
    entry = model.objects.select_for_update().filter(benchmark=benchmark, name=name).first()
    if entry is None:
        raise NameNotFound([Problem(f"no {kind} named {name!r} in this benchmark", "name")])
    if isinstance(entry, Dataset):
        accepted = Score.objects.filter(
            dataset=entry, submission__status=Submission.Status.ACCEPTED
        ).exists()
    else:
        accepted = entry.submissions.filter(status=Submission.Status.ACCEPTED).exists()
    if accepted:
        raise NameConflict(
            [
                Problem(
                    f"{kind} {name!r} is used by accepted results, which are public: "
                    "reject or withdraw them first",
                    "name",
                )
            ]
        )
    return entry


def _name_problems(kind: str, name: str) -> list[Problem]:
    """The rules on a dataset's or algorithm's name (``kind``), as a new name."""
    if not name:
        return [Problem(f"the {kind} needs a name", "new_name")]
    if len(name) > MAX_NAME_LENGTH:
        return [Problem(f"{kind} name is longer than {MAX_NAME_LENGTH} characters", "new_name")]
    if problem := control_character_problem(name):
        return [Problem(f"{kind} name {problem}", "new_name")]
    return []


@transaction.atomic
def catalogue_entry_rename(
    *, benchmark: Benchmark, user, kind: str, name: str, new_name: str
) -> Dataset | Algorithm:
    """Rename a dataset or algorithm (``kind``) that no accepted result uses (maintainers)."""
    entry = _catalogue_entry_for_change(benchmark=benchmark, user=user, kind=kind, name=name)
    new_name = new_name.strip()
    problems = _name_problems(kind, new_name)
    if problems:
        raise ValidationFailed(problems)
    if type(entry).objects.filter(benchmark=benchmark, name=new_name).exists():
        raise NameConflict([Problem(f"a {kind} named {new_name!r} already exists", "new_name")])
    entry.name = new_name
    entry.save(update_fields=["name"])
    return entry


@transaction.atomic
def catalogue_entry_delete(*, benchmark: Benchmark, user, kind: str, name: str) -> None:
    """Delete a dataset or algorithm that no accepted or pending result uses (maintainers).

    What rejected or withdrawn submissions stored for it goes with it.
    """
    entry = _catalogue_entry_for_change(benchmark=benchmark, user=user, kind=kind, name=name)
    if kind == "dataset":
        scores = Score.objects.filter(dataset=entry)
        pending = scores.filter(submission__status=Submission.Status.PENDING)
    else:
        pending = entry.submissions.filter(status=Submission.Status.PENDING)
    n_pending = pending.values("submission_id" if kind == "dataset" else "pk").distinct().count()
    if n_pending:
        raise NameConflict(
            [
                Problem(
                    f"{n_pending} pending submission{'s' if n_pending > 1 else ''} use "
                    f"{kind} {name!r}: accept or reject {'them' if n_pending > 1 else 'it'} first",
                    "name",
                )
            ]
        )
    if kind == "dataset":
        scores.delete()
    else:
        entry.submissions.all().delete()  # rejected or withdrawn only, checked above
    entry.delete()


# --- submissions ----------------------------------------------------------------------


def submission_create(
    *,
    benchmark: Benchmark,
    submitter,
    entry: SubmissionInput,
    source: str = Submission.Source.API,
    idempotency_key: str = "",
    new_datasets_confirmed: bool = False,
) -> Submission:
    """Store one algorithm's scores, all or nothing.

    Open benchmarks accept on arrival; moderated ones wait for a maintainer (a
    maintainer's own submission is accepted at once); closed ones take maintainers only.
    A dataset the benchmark does not have yet is added only with
    ``new_datasets_confirmed`` (see :func:`_typo_problems`).
    """
    return submissions_create(
        benchmark=benchmark,
        submitter=submitter,
        entries=[entry],
        source=source,
        idempotency_key=idempotency_key,
        new_datasets_confirmed=new_datasets_confirmed,
    )[0]


def submissions_create(
    *,
    benchmark: Benchmark,
    submitter,
    entries: Sequence[SubmissionInput],
    source: str = Submission.Source.API,
    idempotency_key: str = "",
    new_datasets_confirmed: bool = False,
) -> list[Submission]:
    """Several algorithms at once (a CSV file), all or nothing; see submission_create."""
    is_maintainer = user_is_maintainer(user=submitter, benchmark=benchmark)
    closed = benchmark.submission_policy == Benchmark.SubmissionPolicy.CLOSED
    system_import = submitter is None and source == Submission.Source.IMPORT
    if not system_import and (submitter is None or not submitter.is_authenticated):
        raise PermissionDenied("log in to submit results")
    if closed and not (system_import or is_maintainer):
        raise PermissionDenied(f"benchmark {benchmark.slug!r} is closed to submissions")
    content_hash = _content_hash(entries)
    if idempotency_key:
        earlier = _submissions_by_key(benchmark, submitter, idempotency_key)
        if earlier:
            return _replay(earlier, content_hash, idempotency_key)
    auto_accept = (
        system_import
        or is_maintainer
        or benchmark.submission_policy == Benchmark.SubmissionPolicy.OPEN
    )
    for attempt in range(1, WRITE_ATTEMPTS + 1):
        try:
            with transaction.atomic():
                submissions = _submissions_write(
                    benchmark=benchmark,
                    submitter=submitter,
                    entries=entries,
                    source=source,
                    idempotency_key=idempotency_key,
                    content_hash=content_hash,
                    accept=auto_accept,
                    new_datasets_confirmed=new_datasets_confirmed or system_import,
                )
                if auto_accept:
                    recompute_request(benchmark_id=benchmark.pk)
            return submissions
        except IntegrityError:
            # A concurrent request with the same key won the race: return what it stored.
            if idempotency_key:
                earlier = _submissions_by_key(benchmark, submitter, idempotency_key)
                if earlier:
                    return _replay(earlier, content_hash, idempotency_key)
            # Otherwise a concurrent change (a name created or deleted meanwhile) broke
            # a constraint: the next attempt reads the catalogue afresh.
            if attempt == WRITE_ATTEMPTS:
                raise
    raise AssertionError("unreachable")


# A write that loses a race with a concurrent one is retried this many times in all.
WRITE_ATTEMPTS = 3


def benchmark_metric_check(*, benchmark: Benchmark) -> Callable[[str], str | None]:
    """For the CSV parser: why a metric name is not one of ``benchmark``'s, or None.

    The parser then reports each such row at its own line (with a "did you mean"),
    instead of the rows' absence confusing its fold checks.
    """
    names = list(benchmark.metrics.values_list("name", flat=True))
    index = NameIndex.of(names)

    def check(name: str) -> str | None:
        if name in index:
            return None
        return f"unknown metric {name!r}; this benchmark has {sorted(names)}" + did_you_mean(
            name, index
        )

    return check


def submission_entries_from_csv(
    *, benchmark: Benchmark, parsed, note: str = ""
) -> list[SubmissionInput]:
    """One SubmissionInput per algorithm of a parsed results file (estimation.results_csv).

    Every score keeps its line so that later problems still point into the file.
    """
    if parsed.kind == "rank" and not benchmark.ranking_only:
        raise ValidationFailed(
            [
                Problem(
                    "this benchmark takes scores, but the file holds ranks "
                    "(dataset,algorithm,rank); send scores, or ask a maintainer to make the "
                    "benchmark ranking-only",
                    "rank",
                    line=1,
                )
            ]
        )
    if parsed.kind != "rank" and benchmark.ranking_only:
        raise ValidationFailed(
            [
                Problem(
                    "this benchmark takes rankings (dataset,algorithm,rank), but the file "
                    "holds scores",
                    "score",
                    line=1,
                )
            ]
        )
    # One ScoreBlock per algorithm, in order of first appearance: columns, no object
    # per row (a stable sort keeps each algorithm's rows in file order).
    codes = np.asarray(parsed.algorithm_codes)
    order = np.argsort(codes, kind="stable")
    present, first, counts = np.unique(codes, return_index=True, return_counts=True)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    columns = {
        name: np.asarray(getattr(parsed, name))[order]
        for name in ("dataset_codes", "metric_codes", "folds", "values", "lines")
    }
    entries = []
    for i in np.argsort(first, kind="stable").tolist():
        rows = slice(int(starts[i]), int(starts[i] + counts[i]))
        name = parsed.algorithms[int(present[i])]
        described = dict(parsed.algorithm_metadata.get(name, {}))
        entries.append(
            SubmissionInput(
                algorithm=name,
                algorithm_url=str(described.pop("url", "")),
                algorithm_metadata=described,
                scores=ScoreBlock(
                    datasets=parsed.datasets,
                    metrics=parsed.metrics,
                    dataset_codes=columns["dataset_codes"][rows],
                    metric_codes=columns["metric_codes"][rows],
                    folds=columns["folds"][rows],
                    values=columns["values"][rows],
                    lines=columns["lines"][rows],
                ),
                note=note,
            )
        )
    return entries


def _submissions_by_key(benchmark, submitter, key: str) -> list[Submission]:
    """Submissions stored under an idempotency key (``key#i`` for a file's i-th algorithm)."""
    return list(
        Submission.objects.filter(benchmark=benchmark, submitter=submitter)
        .filter(Q(idempotency_key=key) | Q(idempotency_key__startswith=f"{key}#"))
        .select_related("benchmark", "algorithm", "submitter", "decided_by")  # see the API
        .order_by("id")
    )


def _replay(earlier: list[Submission], content_hash: str, key: str) -> list[Submission]:
    if any(s.content_hash != content_hash for s in earlier):
        raise ValidationFailed(
            [
                Problem(
                    f"idempotency key {key!r} was already used for different content",
                    "idempotency_key",
                )
            ]
        )
    return earlier


def _content_hash(entries: Sequence[SubmissionInput]) -> str:
    digest = hashlib.sha256()
    for entry in entries:
        digest.update(entry.algorithm.encode())
        if isinstance(entry.scores, ScoreBlock):
            _block_hash_update(digest, entry.scores)
            continue
        for score in entry.scores:
            digest.update(
                f"{score.dataset}\x1f{score.metric}\x1f{score.fold}\x1f{score.value!r}".encode()
            )
    return digest.hexdigest()


def _block_hash_update(digest, block: ScoreBlock, chunk: int = 65536) -> None:
    """The bytes :func:`_content_hash` feeds for a block's ScoreInputs, without them."""
    datasets = block.datasets
    metrics = [str(None), *block.metrics]  # code -1 -> "None"
    for start in range(0, len(block), chunk):
        stop = start + chunk
        digest.update(
            "".join(
                f"{datasets[d]}\x1f{metrics[k + 1]}\x1f{'None' if f < 0 else f}\x1f{v!r}"
                for d, k, f, v in zip(
                    block.dataset_codes[start:stop].tolist(),
                    block.metric_codes[start:stop].tolist(),
                    block.folds[start:stop].tolist(),
                    block.values[start:stop].tolist(),
                    strict=True,
                )
            ).encode()
        )


def _submissions_write(
    *,
    benchmark: Benchmark,
    submitter,
    entries: Sequence[SubmissionInput],
    source: str,
    idempotency_key: str,
    content_hash: str,
    accept: bool,
    new_datasets_confirmed: bool = False,
) -> list[Submission]:
    metrics = {m.name: m for m in benchmark.metrics.all()}
    primary = next((m for m in metrics.values() if m.is_primary), None)
    datasets = {d.name: d for d in benchmark.datasets.all()}
    algorithms = {a.name: a for a in benchmark.algorithms.all()}
    # "Listed" is what the public sees: names only unaccepted submissions brought stay
    # unknown to a benchmark that takes listed datasets or algorithms only.
    listed_datasets = set(dataset_names_public(benchmark=benchmark))
    listed_algorithms = set(algorithm_names_public(benchmark=benchmark))
    problems = _entry_problems(
        benchmark, entries, metrics, primary, listed_datasets, listed_algorithms
    )
    problems += _typo_problems(
        benchmark, entries, listed_datasets, listed_algorithms, confirmed=new_datasets_confirmed
    )
    if problems:
        raise ValidationFailed(problems)

    new_datasets = {
        name
        for e in entries
        for name in (
            e.scores.used_datasets()
            if isinstance(e.scores, ScoreBlock)
            else (s.dataset for s in e.scores)
        )
    } - set(datasets)
    datasets.update(_names_ensure(Dataset, benchmark=benchmark, names=new_datasets))
    new_algorithms = {e.algorithm for e in entries} - set(algorithms)
    algorithms.update(_names_ensure(Algorithm, benchmark=benchmark, names=new_algorithms))

    now = timezone.now()
    submissions = [
        Submission(
            benchmark=benchmark,
            algorithm=algorithms[entry.algorithm],
            submitter=submitter,
            source=source,
            note=entry.note,
            algorithm_url=entry.algorithm_url,
            algorithm_version=entry.algorithm_version,
            algorithm_metadata=entry.algorithm_metadata,
            provenance=entry.provenance,
            idempotency_key=(
                idempotency_key
                if len(entries) == 1 or not idempotency_key
                else f"{idempotency_key}#{index}"
            ),
            content_hash=content_hash,
            status=Submission.Status.ACCEPTED if accept else Submission.Status.PENDING,
            decided_at=now if accept else None,
            decided_by=submitter if accept else None,
        )
        for index, entry in enumerate(entries)
    ]
    # One INSERT for a file's thousands of algorithms (a wide file) where the database
    # hands back the new ids; one per submission elsewhere.
    if connection.features.can_return_rows_from_bulk_insert:
        Submission.objects.bulk_create(submissions, batch_size=1000)
    else:
        for submission in submissions:
            submission.save(force_insert=True)
    primary_pk = primary.pk if primary else -1
    parts = [
        _score_columns(entry.scores, datasets=datasets, metrics=metrics, primary_pk=primary_pk)
        for entry in entries
    ]
    _scores_insert(
        ScoreColumns(
            submission=np.repeat(
                np.array([s.pk for s in submissions], dtype=np.int64),
                [len(entry.scores) for entry in entries],
            ),
            **{
                name: np.concatenate([part[i] for part in parts])
                if parts
                else np.empty(0, dtype=np.float64 if name == "value" else np.int64)
                for i, name in enumerate(("dataset", "metric", "fold", "value"))
            },
        )
    )
    del parts
    if accept:  # only a submission that gives a link or version can change them
        _algorithm_links_refresh(
            algorithm_ids={
                s.algorithm_id
                for s in submissions
                if s.algorithm_url or s.algorithm_version or s.algorithm_metadata
            }
        )
    return submissions


def _score_columns(
    scores: Sequence[ScoreInput], *, datasets: dict, metrics: dict, primary_pk: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Dataset keys, metric keys, folds (-1 = none) and values of checked scores."""
    if isinstance(scores, ScoreBlock):
        # Codes of names this block does not use may be missing from ``datasets``.
        dataset_pk = np.array(
            [datasets[name].pk if name in datasets else -1 for name in scores.datasets],
            dtype=np.int64,
        )
        metric_pk = np.array(
            [primary_pk] + [metrics[name].pk if name in metrics else -1 for name in scores.metrics],
            dtype=np.int64,
        )
        return (
            dataset_pk[scores.dataset_codes],
            metric_pk[scores.metric_codes + 1],
            scores.folds.astype(np.int64, copy=False),
            scores.values.astype(np.float64, copy=False),
        )
    return (
        np.array([datasets[score.dataset].pk for score in scores], dtype=np.int64),
        np.array(
            [metrics[score.metric].pk if score.metric else primary_pk for score in scores],
            dtype=np.int64,
        ),
        np.array([-1 if score.fold is None else score.fold for score in scores], dtype=np.int64),
        np.array([score.value for score in scores], dtype=np.float64),
    )


def _algorithm_links_refresh(*, algorithm_ids: Iterable[int]) -> None:
    """Set each algorithm's public URL and version from its accepted submissions only:
    the newest accepted one that gives a value (blank when none does)."""
    for algorithm_id in sorted(algorithm_ids):
        accepted = Submission.objects.filter(
            algorithm_id=algorithm_id, status=Submission.Status.ACCEPTED
        ).order_by("-created_at", "-id")
        url = accepted.exclude(algorithm_url="").values_list("algorithm_url", flat=True).first()
        version = (
            accepted.exclude(algorithm_version="")
            .values_list("algorithm_version", flat=True)
            .first()
        )
        metadata = (
            accepted.exclude(algorithm_metadata={})
            .values_list("algorithm_metadata", flat=True)
            .first()
        ) or {}
        Algorithm.objects.filter(pk=algorithm_id).update(
            url=url or "",
            version=version or "",
            family=metadata.get("family", ""),
            parameters=metadata.get("parameters"),
            licence=metadata.get("licence", ""),
            revision=metadata.get("revision", ""),
        )


def _names_ensure(model, *, benchmark: Benchmark, names: Iterable[str]) -> dict:
    """The benchmark's datasets or algorithms of these names, creating the missing ones.

    Safe under concurrency: ``INSERT ... ON CONFLICT DO NOTHING`` then a re-read, so
    submitters racing to name the same new dataset all get the one row (on PostgreSQL
    the insert waits for a concurrent inserter's commit, and the re-read, a new
    statement under READ COMMITTED, sees its row). Names go in sorted order, so two
    transactions never wait on each other's rows in opposite orders (no deadlock).
    """
    names = sorted(names)
    if not names:
        return {}
    model.objects.bulk_create(
        [model(benchmark=benchmark, name=name) for name in names], ignore_conflicts=True
    )
    return {row.name: row for row in model.objects.filter(benchmark=benchmark, name__in=names)}


@dataclass(frozen=True)
class ScoreColumns:
    """Score rows to store, as columns of primary keys (fold -1 = no fold)."""

    submission: np.ndarray
    dataset: np.ndarray
    metric: np.ndarray
    fold: np.ndarray
    value: np.ndarray


def _scores_insert(columns: ScoreColumns) -> None:
    """Store score rows: one binary COPY on PostgreSQL, batched INSERTs elsewhere.

    COPY runs inside the caller's transaction; the table's checks still apply, and its
    references are checked once per statement (see ``Score``). The dataset and metric
    keys come from the benchmark's own rows, read in this transaction.
    """
    if not len(columns.value):
        return
    if connection.vendor != "postgresql":
        Score.objects.bulk_create(
            (
                Score(
                    submission_id=s, dataset_id=d, metric_id=m, fold=None if f < 0 else f, value=v
                )
                for s, d, m, f, v in zip(
                    columns.submission.tolist(),
                    columns.dataset.tolist(),
                    columns.metric.tolist(),
                    columns.fold.tolist(),
                    columns.value.tolist(),
                    strict=True,
                )
            ),
            batch_size=5000,
        )
        return
    buffer = score_copy_buffer(
        columns.submission, columns.dataset, columns.metric, columns.fold, columns.value
    )
    with connection.cursor() as cursor, connection.wrap_database_errors:
        with cursor.cursor.copy(
            f"COPY {Score._meta.db_table} (submission_id, dataset_id, metric_id, fold, value) "
            "FROM STDIN (FORMAT BINARY)"
        ) as copy:
            copy.write(buffer)


_COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + (0).to_bytes(4, "big") + (0).to_bytes(4, "big")
_COPY_TRAILER = (-1).to_bytes(2, "big", signed=True)


def _copy_dtype(with_fold: bool) -> np.dtype:
    """One score tuple of PostgreSQL's binary COPY format (big-endian, length-prefixed)."""
    fields = [("count", ">i2")]
    for name, kind in (("submission", ">i8"), ("dataset", ">i8"), ("metric", ">i8")):
        fields += [(f"{name}_length", ">i4"), (name, kind)]
    fields += [("fold_length", ">i4")] + ([("fold", ">i4")] if with_fold else [])
    fields += [("value_length", ">i4"), ("value", ">f8")]
    return np.dtype(fields)


def score_copy_buffer(submission, dataset, metric, fold, value) -> bytes:
    """Score columns (numpy arrays; fold -1 = no fold) as one binary COPY stream.

    Column order: submission_id, dataset_id, metric_id, fold, value. Built by numpy in
    one pass: no Python object per row.
    """
    parts = [_COPY_HEADER]
    fold = np.asarray(fold)
    for with_fold, keep in ((True, fold >= 0), (False, fold < 0)):
        count = int(keep.sum())
        if not count:
            continue
        dtype = _copy_dtype(with_fold)
        tuples = np.empty(count, dtype=dtype)
        tuples["count"] = 5
        for name, column in (
            ("submission", submission),
            ("dataset", dataset),
            ("metric", metric),
            ("value", value),
        ):
            tuples[f"{name}_length"] = 8
            tuples[name] = np.asarray(column)[keep]
        if with_fold:
            tuples["fold_length"] = 4
            tuples["fold"] = fold[keep]
        else:
            tuples["fold_length"] = -1
        parts.append(tuples.tobytes())
    parts.append(_COPY_TRAILER)
    return b"".join(parts)


MAX_PROBLEMS = 100
MAX_FOLD = 2**31 - 1  # Score.fold is a 32-bit integer column
MAX_NAME_LENGTH = 200  # Dataset.name and Algorithm.name


MAX_URL_LENGTH = 200  # Submission.algorithm_url and Algorithm.url
_URL_VALIDATOR = URLValidator(schemes=["http", "https"])
# RFC 3986: unreserved and reserved characters, and "%" only before two hex digits.
_URI_CHARACTERS = re.compile(r"(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*")


def url_problem(url: str) -> str | None:
    """Why ``url`` is not a link Podium publishes (an absolute http(s) URI), or None.

    Only ASCII: the API's schema promises ``format: uri`` (RFC 3986), which an
    internationalised address breaks; percent-encode it instead. Django's URLValidator
    takes any printable character in the path, RFC 3986 does not: ``{ } | \\ ^ ` " < >``
    and a "%" without two hex digits are refused here too.
    """
    if len(url) > MAX_URL_LENGTH:
        return f"is longer than {MAX_URL_LENGTH} characters"
    if not url.isascii() or any(c.isspace() or not c.isprintable() for c in url):
        return "must be an http(s) URL of printable ASCII characters (percent-encode the rest)"
    if not _URI_CHARACTERS.fullmatch(url):
        return (
            "must be a URI (RFC 3986): percent-encode characters such as spaces, "
            '{ } | \\ ^ ` " < > and a "%" not followed by two hex digits'
        )
    try:
        _URL_VALIDATOR(url)
    except DjangoValidationError:
        return f"must be an absolute http:// or https:// URL, got {url[:60]!r}"
    return None


# An algorithm's metadata: field -> most characters (parameters is a positive integer).
ALGORITHM_METADATA = {"family": 100, "parameters": None, "licence": 100, "revision": 100}


def algorithm_metadata_problems(metadata: Mapping) -> list[Problem]:
    """The rules on an algorithm's metadata, each problem naming its field."""
    problems = []
    for name in sorted(set(metadata) - set(ALGORITHM_METADATA)):
        problems.append(Problem(f"unknown algorithm metadata {name!r}", name))
    for name, longest in ALGORITHM_METADATA.items():
        if name not in metadata:
            continue
        value = metadata[name]
        if longest is None:
            if not isinstance(value, int) or isinstance(value, bool) or not 0 < value < 2**63:
                problems.append(Problem(f"{name} must be a positive integer, got {value!r}", name))
        elif not isinstance(value, str):
            problems.append(Problem(f"{name} must be text", name))
        elif problem := text_problem(value, max_length=longest):
            problems.append(Problem(f"{name} {problem}", name))
    return problems


def _is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _entry_problems(benchmark, entries, metrics, primary, datasets, algorithms) -> list[Problem]:
    """Everything wrong with the entries, up to MAX_PROBLEMS, each with its line or field."""
    problems: list[Problem] = []
    if not entries:
        problems.append(Problem("a submission needs at least one score", "scores"))
    seen_algorithms: set[str] = set()
    for entry in entries:
        name = entry.algorithm.strip()
        if not name:
            problems.append(Problem("the algorithm needs a name", "algorithm"))
        elif name in seen_algorithms:
            problems.append(Problem(f"algorithm {name!r} appears twice", "algorithm"))
        seen_algorithms.add(name)
        if len(name) > MAX_NAME_LENGTH:
            problems.append(
                Problem(f"algorithm name is longer than {MAX_NAME_LENGTH} characters", "algorithm")
            )
        for field_name, text in (
            ("algorithm", name),
            ("algorithm_url", entry.algorithm_url),
            ("algorithm_version", entry.algorithm_version),
        ):
            if problem := control_character_problem(text):
                problems.append(Problem(f"{field_name} {problem}", field_name))
        if problem := text_problem(entry.note, prose=True):
            problems.append(Problem(f"note {problem}", "note"))
        if entry.algorithm_url and (problem := url_problem(entry.algorithm_url)):
            problems.append(Problem(f"algorithm_url {problem}", "algorithm_url"))
        problems += algorithm_metadata_problems(entry.algorithm_metadata)
        if name and name not in algorithms and not benchmark.allow_new_algorithms:
            problems.append(
                Problem(
                    f"unknown algorithm {name!r}; this benchmark only takes listed algorithms",
                    "algorithm",
                )
            )
        if not entry.scores:
            problems.append(Problem(f"algorithm {name!r} has no scores", "scores"))
        if isinstance(entry.scores, ScoreBlock) and _block_is_clean(
            benchmark, entry.scores, metrics, primary, datasets
        ):
            continue  # checked with numpy; otherwise the loop below says what is wrong
        seen: dict[tuple, int | None] = {}
        for position, score in enumerate(entry.scores, start=1):
            where = {"line": score.line} if score.line is not None else {}
            label = "" if score.line is not None else f"scores[{position}]: "
            if not score.dataset or not str(score.dataset).strip():
                problems.append(Problem(f"{label}dataset is empty", "dataset", **where))
            elif len(score.dataset) > MAX_NAME_LENGTH:
                problems.append(
                    Problem(
                        f"{label}dataset name is longer than {MAX_NAME_LENGTH} characters",
                        "dataset",
                        **where,
                    )
                )
            elif problem := control_character_problem(score.dataset):
                problems.append(Problem(f"{label}dataset name {problem}", "dataset", **where))
            elif score.dataset not in datasets and not benchmark.allow_new_datasets:
                problems.append(
                    Problem(
                        f"{label}unknown dataset {score.dataset!r}; "
                        "this benchmark only takes listed datasets",
                        "dataset",
                        **where,
                    )
                )
            if not _is_number(score.value) or not math.isfinite(score.value):
                problems.append(
                    Problem(
                        f"{label}score must be a finite number, got {score.value!r}",
                        "value",
                        **where,
                    )
                )
            metric = metrics.get(score.metric) if score.metric is not None else primary
            if (
                metric is not None
                and _is_number(score.value)
                and math.isfinite(score.value)
                and (problem := metric_range_problem(metric, score.value))
            ):
                problems.append(Problem(f"{label}{problem}", "value", **where))
            if score.metric is not None and score.metric not in metrics:
                problems.append(
                    Problem(
                        f"{label}unknown metric {score.metric!r}; "
                        f"this benchmark has {sorted(metrics)}"
                        + did_you_mean(score.metric, NameIndex.of(metrics)),
                        "metric",
                        **where,
                    )
                )
            if score.metric is None and primary is None:
                problems.append(Problem("the benchmark has no metric", "metric", **where))
            if score.fold is not None and (
                not isinstance(score.fold, int)
                or isinstance(score.fold, bool)
                or not 0 <= score.fold <= MAX_FOLD
            ):
                problems.append(
                    Problem(f"{label}fold must be an integer from 0 to {MAX_FOLD}", "fold", **where)
                )
            if benchmark.ranking_only and _is_number(score.value) and score.value < 1:
                problems.append(
                    Problem(
                        f"{label}a rank is 1 (best) or more, got {score.value}", "value", **where
                    )
                )
            key = (score.dataset, score.metric or getattr(primary, "name", None), score.fold)
            if key in seen:
                first = seen[key]
                where_first = f" (first given on line {first})" if first is not None else ""
                problems.append(
                    Problem(
                        f"{label}duplicate score for dataset {score.dataset!r}"
                        + (f", fold {score.fold}" if score.fold is not None else "")
                        + where_first,
                        "dataset",
                        **where,
                    )
                )
            else:
                seen[key] = score.line
            if len(problems) >= MAX_PROBLEMS:
                return problems
    return problems


def _block_is_clean(benchmark, block: ScoreBlock, metrics, primary, datasets) -> bool:
    """Whether :func:`_entry_problems` would find nothing wrong with ``block``'s scores.

    The same rules, once per distinct name and with numpy over the columns, so a clean
    million-row file is checked without a Python object per row.
    """
    for dataset in block.used_datasets():
        if (
            not dataset.strip()
            or len(dataset) > MAX_NAME_LENGTH
            or control_character_problem(dataset)
            or (dataset not in datasets and not benchmark.allow_new_datasets)
        ):
            return False
    values, folds, codes = block.values, block.folds, block.metric_codes
    if values.dtype.kind != "f" or not np.isfinite(values).all():
        return False
    if benchmark.ranking_only and (values < 1).any():
        return False
    if _block_out_of_range(block, metrics, primary):
        return False
    if ((folds > MAX_FOLD) | (folds < -1)).any():
        return False
    used = np.unique(codes).tolist()
    if -1 in used and primary is None:
        return False
    if any(code >= 0 and block.metrics[code] not in metrics for code in used):
        return False
    # Duplicates of (dataset, metric name, fold); no metric means the primary one.
    names = sorted(set(block.metrics) | ({primary.name} if primary else set()))
    name_id = np.array(
        [names.index(primary.name) if primary else -1] + [names.index(n) for n in block.metrics],
        dtype=np.int64,
    )[codes + 1]
    order = np.lexsort((folds, name_id, block.dataset_codes))
    same = np.ones(max(len(order) - 1, 0), dtype=bool)
    for column in (block.dataset_codes, name_id, folds):
        ordered = column[order]
        same &= ordered[1:] == ordered[:-1]
    return not same.any()


def _block_out_of_range(block: ScoreBlock, metrics, primary) -> bool:
    """Whether a value of ``block`` is outside its metric's valid range."""
    codes = block.metric_codes
    for code in np.unique(codes).tolist():
        metric = primary if code < 0 else metrics.get(block.metrics[code])
        if metric is None or (metric.min_value is None and metric.max_value is None):
            continue
        values = block.values[codes == code]
        if metric.min_value is not None and (values < metric.min_value).any():
            return True
        if metric.max_value is not None and (values > metric.max_value).any():
            return True
    return False


def _typo_problems(
    benchmark: Benchmark,
    entries: Sequence[SubmissionInput],
    listed_datasets: Iterable[str],
    listed_algorithms: Iterable[str],
    *,
    confirmed: bool,
) -> list[Problem]:
    """Names that are probably typos, and new datasets nobody confirmed (typo_guard).

    A dataset the benchmark lacks, but that is close to one it has (case, punctuation,
    one edit), or an algorithm equal to one it has up to case and punctuation, is refused
    with a "did you mean". Any other new dataset
    needs ``confirmed``, unless the benchmark has none yet (nothing to mistype). Only
    public names count as the benchmark's: datasets that a maintainer declared or that
    have an accepted score, algorithms with an accepted submission; so a suggestion never
    reveals what waits in the moderation queue. Each name is reported once, at its first
    line (or its first ``scores[i]``).
    """
    known_datasets = NameIndex.of(listed_datasets)
    known_algorithms = NameIndex.of(listed_algorithms)
    problems: list[Problem] = []
    first_seen: dict[str, tuple[int, Problem | None]] = {}
    for entry in entries:
        name = entry.algorithm.strip()
        suggestion = known_algorithms.suggest(name, edits=False) if name else None
        if suggestion is not None:
            line = next((s.line for s in entry.scores if s.line is not None), None)
            problems.append(
                Problem(
                    f"algorithm {name!r} is not in this benchmark; did you mean "
                    f"{suggestion!r}? Use its exact name, or a clearly different one",
                    "algorithm",
                    line=line,
                )
            )
        for dataset, n_scores, line, position in _datasets_in_order(entry.scores):
            if not isinstance(dataset, str) or not dataset.strip() or dataset in known_datasets:
                continue
            if not benchmark.allow_new_datasets:
                break  # _entry_problems refuses every unlisted dataset already
            if dataset in first_seen:
                count, problem = first_seen[dataset]
                first_seen[dataset] = (count + n_scores, problem)
                continue
            label = "" if line is not None else f"scores[{position}]: "
            where = {"line": line} if line is not None else {}
            suggestion = known_datasets.suggest(dataset)
            problem = None
            if suggestion is not None:
                problem = Problem(
                    f"{label}dataset {dataset!r} is not in this benchmark; did you mean "
                    f"{suggestion!r}?",
                    "dataset",
                    **where,
                )
            elif not confirmed and known_datasets.names:
                problem = Problem(
                    f"{label}dataset {dataset!r} is new to this benchmark: confirm that "
                    'it is a new dataset to add it (API: "allow_new_datasets": true; '
                    "file upload: tick the new datasets in the preview)",
                    "dataset",
                    **where,
                )
            first_seen[dataset] = (n_scores, problem)
    for count, problem in first_seen.values():
        if problem is None:
            continue
        if count > 1:
            problem = Problem(
                f"{problem.message} ({count} scores name it)", problem.field, problem.line
            )
        problems.append(problem)
        if len(problems) >= MAX_PROBLEMS:
            break
    return problems


def _datasets_in_order(scores: Sequence[ScoreInput]) -> Iterable[tuple]:
    """(dataset, number of scores, line, position) per score, or per distinct dataset of a
    ScoreBlock (at its first score): what :func:`_typo_problems` counts."""
    if not isinstance(scores, ScoreBlock):
        for position, score in enumerate(scores, start=1):
            yield score.dataset, 1, score.line, position
        return
    codes, first, counts = np.unique(scores.dataset_codes, return_index=True, return_counts=True)
    for i in np.argsort(first, kind="stable").tolist():
        at = int(first[i])
        yield scores.datasets[int(codes[i])], int(counts[i]), int(scores.lines[at]), at + 1


# From each status, the changes that make sense; anything else is a StateConflict with
# the reason below (the one table behind accept, reject and withdraw; bulk decisions
# take only pending submissions and check that themselves).
_ACTION_STATUS = {
    "accept": Submission.Status.ACCEPTED,
    "reject": Submission.Status.REJECTED,
    "withdraw": Submission.Status.WITHDRAWN,
}
_TRANSITIONS: dict[str, frozenset[str]] = {
    Submission.Status.PENDING: frozenset({"accept", "reject", "withdraw"}),
    Submission.Status.ACCEPTED: frozenset({"reject", "withdraw"}),
    # A rejected one stays out of the results; its submitter may still take it back.
    Submission.Status.REJECTED: frozenset({"withdraw"}),
    Submission.Status.WITHDRAWN: frozenset(),
}


def _transition_check(*, submission: Submission, action: str) -> None:
    """Raise StateConflict unless ``action`` is possible from the submission's status."""
    current = submission.status
    if action in _TRANSITIONS[current]:
        return
    label = f"submission {submission.pk}"
    if _ACTION_STATUS[action] == current:
        raise StateConflict(f"{label} is already {current}; nothing changed")
    if current == Submission.Status.WITHDRAWN:
        reason = "it was taken back; its scores can be submitted again"
    else:
        reason = "only a pending submission can be accepted; its scores can be submitted again"
    raise StateConflict(f"{label} is {current} and cannot be {_ACTION_STATUS[action]}: {reason}")


def _decide(*, submission: Submission, user, status: str, note: str) -> Submission:
    if problem := text_problem(note, prose=True):
        raise ValidationFailed([Problem(f"note {problem}", "note")])
    submission.status = status
    submission.decision_note = note
    submission.decided_by = user
    submission.decided_at = timezone.now()
    submission.save(update_fields=["status", "decision_note", "decided_by", "decided_at"])
    submission_decision_notify(submission=submission)
    return submission


@transaction.atomic
def submission_accept(*, submission: Submission, user=None, note: str = "") -> Submission:
    """Accept a pending submission (maintainers; ``user=None`` is the system itself)."""
    if user is not None:
        _require_maintainer(user=user, benchmark=submission.benchmark)
    submission = Submission.objects.select_for_update().get(pk=submission.pk)
    _transition_check(submission=submission, action="accept")
    _decide(submission=submission, user=user, status=Submission.Status.ACCEPTED, note=note)
    _algorithm_links_refresh(algorithm_ids=[submission.algorithm_id])
    recompute_request(benchmark_id=submission.benchmark_id)
    return submission


MAX_BULK_DECISIONS = 500


@transaction.atomic
def submissions_decide(
    *, benchmark: Benchmark, user, ids: Sequence[int], accept: bool, note: str = ""
) -> list[Submission]:
    """Accept or reject several pending submissions of ``benchmark`` at once (maintainers).

    All or nothing; one recompute for the lot. A submission that is no longer pending
    (someone decided it meanwhile, or it was withdrawn) is refused by name.
    """
    _require_maintainer(user=user, benchmark=benchmark)
    wanted = list(dict.fromkeys(ids))
    if not wanted:
        raise ValidationFailed([Problem("choose at least one submission", "submissions")])
    if len(wanted) > MAX_BULK_DECISIONS:
        raise ValidationFailed(
            [Problem(f"at most {MAX_BULK_DECISIONS} submissions at once", "submissions")]
        )
    found = {
        s.pk: s
        for s in Submission.objects.select_for_update()
        .filter(benchmark=benchmark, pk__in=wanted)
        .select_related("algorithm")
    }
    problems = [
        Problem(f"submission {pk} is not one of this benchmark's", "submissions")
        for pk in wanted
        if pk not in found
    ]
    problems += [
        Problem(
            f"{found[pk].algorithm.name} (#{pk}) is {found[pk].status}, not pending",
            "submissions",
        )
        for pk in wanted
        if pk in found and found[pk].status != Submission.Status.PENDING
    ]
    if problems:
        raise ValidationFailed(problems)
    status = Submission.Status.ACCEPTED if accept else Submission.Status.REJECTED
    decided = [_decide(submission=found[pk], user=user, status=status, note=note) for pk in wanted]
    if accept:
        recompute_request(benchmark_id=benchmark.pk)
    return decided


@transaction.atomic
def submission_reject(*, submission: Submission, user, note: str = "") -> Submission:
    _require_maintainer(user=user, benchmark=submission.benchmark)
    submission = Submission.objects.select_for_update().get(pk=submission.pk)
    _transition_check(submission=submission, action="reject")
    was_accepted = submission.status == Submission.Status.ACCEPTED
    _decide(submission=submission, user=user, status=Submission.Status.REJECTED, note=note)
    if was_accepted:
        _algorithm_links_refresh(algorithm_ids=[submission.algorithm_id])
        recompute_request(benchmark_id=submission.benchmark_id)
    return submission


@transaction.atomic
def submission_withdraw(*, submission: Submission, user) -> Submission:
    """The submitter (or a maintainer) takes a submission back; its scores stop counting."""
    is_owner = user is not None and user.is_authenticated and submission.submitter_id == user.pk
    if not is_owner:
        _require_maintainer(user=user, benchmark=submission.benchmark)
    submission = Submission.objects.select_for_update().get(pk=submission.pk)
    _transition_check(submission=submission, action="withdraw")
    was_accepted = submission.status == Submission.Status.ACCEPTED
    submission.status = Submission.Status.WITHDRAWN
    submission.save(update_fields=["status"])
    if was_accepted:
        _algorithm_links_refresh(algorithm_ids=[submission.algorithm_id])
        recompute_request(benchmark_id=submission.benchmark_id)
    return submission


# --- API tokens -----------------------------------------------------------------------

API_TOKEN_SCHEME = "pod_"
MAX_ACTIVE_API_TOKENS = 50
# Recording every use would turn each API read into a write; once a minute is enough
# to tell an owner whether a token is still in use.
API_TOKEN_USE_RESOLUTION = timedelta(minutes=1)


@transaction.atomic
def api_token_create(*, user, name: str) -> tuple[ApiToken, str]:
    """A new personal token; returns it with the raw value, which is never stored."""
    if user is None or not user.is_authenticated:
        raise PermissionDenied("log in to create an API token")
    name = name.strip()
    problems = []
    if not name:
        problems.append(Problem("a token needs a name", "name"))
    elif len(name) > cast(int, ApiToken._meta.get_field("name").max_length):
        problems.append(Problem("the name is longer than 100 characters", "name"))
    elif problem := control_character_problem(name):
        problems.append(Problem(f"the name {problem}", "name"))
    active = ApiToken.objects.select_for_update().filter(user=user, revoked_at__isnull=True)
    if len(active) >= MAX_ACTIVE_API_TOKENS:
        problems.append(
            Problem(f"at most {MAX_ACTIVE_API_TOKENS} active tokens; revoke one first", "name")
        )
    if problems:
        raise ValidationFailed(problems)
    raw = API_TOKEN_SCHEME + secrets.token_urlsafe(32)  # 256 bits of entropy
    token = ApiToken.objects.create(
        user=user,
        name=name,
        prefix=raw[: ApiToken.PREFIX_LENGTH],
        key_hash=api_token_digest(raw),
    )
    return token, raw


@transaction.atomic
def api_token_revoke(*, token: ApiToken, user) -> ApiToken:
    """Revoke a token for good (its owner only); revoking twice changes nothing."""
    if user is None or not user.is_authenticated or token.user_id != user.pk:
        raise PermissionDenied("only the owner of a token may revoke it")
    ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
    token.refresh_from_db(fields=["revoked_at"])
    return token


def api_token_record_use(*, token: ApiToken) -> None:
    """Note that a token was used (at most once per API_TOKEN_USE_RESOLUTION)."""
    now = timezone.now()
    ApiToken.objects.filter(pk=token.pk).filter(
        Q(last_used_at__isnull=True) | Q(last_used_at__lt=now - API_TOKEN_USE_RESOLUTION)
    ).update(last_used_at=now)
