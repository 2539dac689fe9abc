"""Submitting results: one algorithm's scores or many (a results file), idempotent by
key, checked as a whole (leaderboard.services.entries) and written in one transaction."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone

from estimation.requests import recompute_request
from leaderboard import ownership
from leaderboard.ingest.results_csv import ResultsCsvError, RowError
from leaderboard.models import (
    Algorithm,
    Benchmark,
    Dataset,
    Metric,
    Submission,
)
from leaderboard.selectors import algorithms_with_listing, dataset_keys_with_listing
from leaderboard.services.access import user_is_maintainer
from leaderboard.services.content_hash import content_hash, content_hash_legacy
from leaderboard.services.entries import (
    entry_problems,
    lookalike_problems,
    spelling_problems,
    typo_problems,
)
from leaderboard.services.errors import PermissionDenied, Problem, ValidationFailed
from leaderboard.services.inputs import ScoreBlock, SubmissionInput
from leaderboard.services.scores import ScoreColumns, score_columns, score_counts, scores_insert
from leaderboard.typo_guard import NameIndex, did_you_mean

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
    ``new_datasets_confirmed`` (see :func:`typo_problems`).
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
    digest = content_hash(entries)
    if idempotency_key:
        earlier = _submissions_by_key(benchmark, submitter, idempotency_key)
        if earlier:
            return _replay(earlier, digest, idempotency_key, entries)
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
                    content_hash=digest,
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
                    return _replay(earlier, digest, idempotency_key, entries)
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
    """One SubmissionInput per algorithm of a parsed results file (leaderboard.ingest.results_csv).

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
    primary = (
        benchmark.metrics.filter(is_primary=True).values_list("name", flat=True).first() or ""
        if parsed.standard_errors
        else ""
    )
    entries = []
    for i in np.argsort(first, kind="stable").tolist():
        rows = slice(int(starts[i]), int(starts[i] + counts[i]))
        name = parsed.algorithms[int(present[i])]
        described = dict(parsed.algorithm_metadata.get(name, {}))
        spreads = _standard_errors(parsed, columns, rows, primary)
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
                    value_column=parsed.value_column or name,
                ),
                note=note,
                provenance={"standard_errors": spreads} if spreads else {},
            )
        )
    return entries


def _standard_errors(parsed, columns: dict, rows: slice, primary: str) -> dict[str, float]:
    """``{"<dataset> | <metric>": standard error}`` of one algorithm's rows, keyed as the
    importers key a source's spread (a row without a metric is the primary metric's)."""
    if not parsed.standard_errors:
        return {}
    spreads = {}
    for line, d, k in zip(
        columns["lines"][rows].tolist(),
        columns["dataset_codes"][rows].tolist(),
        columns["metric_codes"][rows].tolist(),
        strict=True,
    ):
        if line in parsed.standard_errors:
            metric = parsed.metrics[k] if k >= 0 else primary
            spreads[f"{parsed.datasets[d]} | {metric}"] = parsed.standard_errors[line]
    return spreads


def submissions_check(
    *, benchmark: Benchmark, entries: Sequence[SubmissionInput], new_datasets_confirmed: bool
) -> list[Problem]:
    """What storing ``entries`` would refuse, without writing: for a page whose own
    checks failed, so that it names the benchmark's problems (misspelt datasets, values
    out of range) in the same answer."""
    try:
        _entries_check(
            benchmark, entries, _BenchmarkNames.of(benchmark), confirmed=new_datasets_confirmed
        )
    except ValidationFailed as exc:
        return list(exc.problems)
    return []


def results_file_refusal(
    *, benchmark: Benchmark, error: ResultsCsvError, new_datasets_confirmed: bool
) -> ResultsCsvError:
    """A refused results file's problems with the benchmark's own in one answer.

    The parser refuses a file for what it cannot read (a cell that is no number, an
    empty name); the rows that did read (``error.partial``) are checked here against the
    benchmark's rules as well (unknown or misspelt datasets, values out of range, two
    spellings of one name), so that fixing the first round does not reveal a second. A
    rule's problem at a line the parser already named is left out; one without a line
    (an algorithm's) is put on the header's.
    """
    parsed = error.partial
    if parsed is None or not len(parsed.values):
        return error
    try:
        entries = submission_entries_from_csv(benchmark=benchmark, parsed=parsed)
    except ValidationFailed as exc:
        problems = list(exc.problems)
    else:
        problems = submissions_check(
            benchmark=benchmark, entries=entries, new_datasets_confirmed=new_datasets_confirmed
        )
    named = {e.line for e in error.errors}
    more = [
        RowError(p.line or 1, p.field, p.message)
        for p in problems
        if p.line is None or p.line not in named
    ]
    if not more:
        return error
    return ResultsCsvError([*error.errors, *more], error.total + len(more))


def _submissions_by_key(benchmark, submitter, key: str) -> list[Submission]:
    """Submissions stored under an idempotency key (``key#i`` for a file's i-th algorithm)."""
    return list(
        Submission.objects.filter(benchmark=benchmark, submitter=submitter)
        .filter(Q(idempotency_key=key) | Q(idempotency_key__startswith=f"{key}#"))
        .select_related("benchmark", "algorithm", "submitter", "decided_by")  # see the API
        .order_by("id")
    )


def _replay(
    earlier: list[Submission], digest: str, key: str, entries: Sequence[SubmissionInput]
) -> list[Submission]:
    """The submissions an earlier request stored under ``key``, when its content was the
    same (a submission stored before today's hash holds the legacy one)."""
    mismatched = {s.content_hash for s in earlier} - {digest}
    if mismatched and mismatched != {content_hash_legacy(entries)}:
        raise ValidationFailed(
            [
                Problem(
                    f"idempotency key {key!r} was already used for different content",
                    "idempotency_key",
                )
            ]
        )
    return earlier


@dataclass(frozen=True)
class _BenchmarkNames:
    """A benchmark's metrics and algorithms by name and its datasets' keys by name, as a
    write sees them, and the names the public sees ("listed": names only unaccepted
    submissions brought stay unknown to a benchmark that takes listed datasets or
    algorithms only). The submissions written hold their Algorithm (the API answers with
    its name); a dataset is only a key in a score pack."""

    metrics: dict[str, Metric]
    primary: Metric | None
    datasets: dict[str, int]
    algorithms: dict[str, Algorithm]
    listed_datasets: frozenset[str]
    listed_algorithms: frozenset[str]

    @classmethod
    def of(cls, benchmark: Benchmark) -> _BenchmarkNames:
        """Three queries (each name list read with its public flag)."""
        metrics = {m.name: m for m in benchmark.metrics.all()}
        datasets = dataset_keys_with_listing(benchmark=benchmark)
        algorithms = algorithms_with_listing(benchmark=benchmark)
        return cls(
            metrics=metrics,
            primary=next((m for m in metrics.values() if m.is_primary), None),
            datasets={name: key for name, key, _ in datasets},
            algorithms={a.name: a for a, _ in algorithms},
            listed_datasets=frozenset(name for name, _, listed in datasets if listed),
            listed_algorithms=frozenset(a.name for a, listed in algorithms if listed),
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
    known = _BenchmarkNames.of(benchmark)
    _entries_check(benchmark, entries, known, confirmed=new_datasets_confirmed)
    _names_add(benchmark, entries, known)
    ownership.submit_check(  # under the algorithms' row locks: a race lost is a 403
        benchmark=benchmark,
        submitter=None if source == Submission.Source.IMPORT and submitter is None else submitter,
        names=[e.algorithm for e in entries],
        is_maintainer=user_is_maintainer(user=submitter, benchmark=benchmark),
        lock=True,
    )
    submissions = _submission_rows(
        benchmark=benchmark,
        submitter=submitter,
        entries=entries,
        algorithms=known.algorithms,
        source=source,
        idempotency_key=idempotency_key,
        content_hash=content_hash,
        accept=accept,
    )
    _submissions_insert(submissions)
    if accept:
        ownership.owners_claim(submissions=submissions)
    _entry_scores_insert(benchmark, entries, submissions, known)
    if accept:  # only a submission that gives a link or version can change them
        algorithm_links_refresh(
            algorithm_ids={
                s.algorithm_id
                for s in submissions
                if s.algorithm_url or s.algorithm_version or s.algorithm_metadata
            }
        )
    return submissions


def _entries_check(
    benchmark: Benchmark,
    entries: Sequence[SubmissionInput],
    known: _BenchmarkNames,
    *,
    confirmed: bool,
) -> None:
    """Every rule on the entries, or ValidationFailed with all that is wrong."""
    listed_datasets, listed_algorithms = known.listed_datasets, known.listed_algorithms
    problems = entry_problems(
        benchmark, entries, known.metrics, known.primary, listed_datasets, listed_algorithms
    )
    problems += typo_problems(
        benchmark, entries, listed_datasets, listed_algorithms, confirmed=confirmed
    )
    problems += lookalike_problems(entries, listed_datasets, listed_algorithms)
    problems += spelling_problems(entries, listed_datasets, listed_algorithms)
    if problems:
        raise ValidationFailed(problems)


def _names_add(
    benchmark: Benchmark, entries: Sequence[SubmissionInput], known: _BenchmarkNames
) -> None:
    """Create the datasets and algorithms the entries name that ``known`` lacks."""
    new_datasets = {
        name
        for e in entries
        for name in (
            e.scores.used_datasets()
            if isinstance(e.scores, ScoreBlock)
            else (s.dataset for s in e.scores)
        )
    } - set(known.datasets)
    added = names_ensure(Dataset, benchmark=benchmark, names=new_datasets)
    known.datasets.update((name, row.pk) for name, row in added.items())
    new_algorithms = {e.algorithm for e in entries} - set(known.algorithms)
    known.algorithms.update(names_ensure(Algorithm, benchmark=benchmark, names=new_algorithms))


def _submission_rows(
    *,
    benchmark: Benchmark,
    submitter,
    entries: Sequence[SubmissionInput],
    algorithms: Mapping[str, Algorithm],
    source: str,
    idempotency_key: str,
    content_hash: str,
    accept: bool,
) -> list[Submission]:
    """One unsaved Submission per entry."""
    now = timezone.now()
    return [
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
            **score_counts(entry.scores)._asdict(),
        )
        for index, entry in enumerate(entries)
    ]


def _submissions_insert(submissions: list[Submission]) -> None:
    """One INSERT for a file's thousands of algorithms (a wide file) where the database
    hands back the new ids; one per submission elsewhere."""
    if connection.features.can_return_rows_from_bulk_insert:
        Submission.objects.bulk_create(submissions, batch_size=1000)
    else:
        for submission in submissions:
            submission.save(force_insert=True)


def _entry_scores_insert(
    benchmark: Benchmark,
    entries: Sequence[SubmissionInput],
    submissions: list[Submission],
    known: _BenchmarkNames,
) -> None:
    """Every entry's scores, as columns, in one write."""
    primary_pk = known.primary.pk if known.primary else -1
    parts = [
        score_columns(
            entry.scores, datasets=known.datasets, metrics=known.metrics, primary_pk=primary_pk
        )
        for entry in entries
    ]
    scores_insert(
        benchmark_id=benchmark.pk,
        columns=ScoreColumns(
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
        ),
    )


def algorithm_links_refresh(*, algorithm_ids: Iterable[int]) -> None:
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
            precision=metadata.get("precision", ""),
            open_weights=metadata.get("open_weights"),
        )


def names_ensure(model, *, benchmark: Benchmark, names: Iterable[str]) -> dict:
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


TRANSITIONS: dict[str, frozenset[str]] = {
    Submission.Status.PENDING: frozenset({"accept", "reject", "withdraw"}),
    Submission.Status.ACCEPTED: frozenset({"reject", "withdraw"}),
    # A rejected one stays out of the results; its submitter may still take it back.
    Submission.Status.REJECTED: frozenset({"withdraw"}),
    Submission.Status.WITHDRAWN: frozenset(),
}
