"""One way in for a results file: every entry point (the API, the web form's preview and
confirm, the background job, ``manage.py import_results`` and ``import_benchmark``)
hands its file to :func:`submissions_upload`, which holds the sequence once: the size
and row bounds, the format (a results CSV, or another tool's files), in the request or
in the background, what a bad result does (``on_error``), what an algorithm lacking
folds does (``incomplete``), and the write.

Defaults: ``on_error="refuse"`` and ``incomplete="refuse"`` everywhere (nothing is
stored when anything is wrong, every problem named); ``skip`` and ``drop`` store what
is valid and list what was left out, by line (a CSV) or by file and key (another
tool's files), with the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import cast

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from leaderboard.ingest.formats import ImportedResults, ResultsImportError
from leaderboard.ingest.formats.common import MAX_LEFT_OUT, UploadLimits, import_problem
from leaderboard.ingest.imported import (
    EMPTY_IMPORT,
    IMPORT_FORMATS,
    imported_entries,
    imported_read,
    imported_relocated,
)
from leaderboard.ingest.results_csv import (
    UNRECOGNISED_COLUMNS,
    Format,
    Incomplete,
    ParsedResults,
    ResultsCsvError,
    RowError,
    parse_results_csv_partial,
    parse_results_csv_text,
)
from leaderboard.ingest.results_csv.sheets import (
    MappedCsv,
    TidyTable,
    column_in_file,
    is_xlsx,
    needs_tidying,
    read_whole,
    relocated_error,
    relocated_parsed,
    results_table,
)
from leaderboard.models import Benchmark, Submission, UploadJob
from leaderboard.services.errors import Problem, UploadTooLarge, ValidationFailed
from leaderboard.services.incomplete import entries_incomplete_notes
from leaderboard.services.inputs import SubmissionInput
from leaderboard.services.published_orders import published_orders_store
from leaderboard.services.submissions import (
    benchmark_metric_check,
    results_file_refusal,
    submission_entries_from_csv,
    submissions_create,
)
from leaderboard.uploads import upload_in_background, upload_job_create, upload_limits

__all__ = [
    "UploadInput",
    "UploadOutcome",
    "UploadRead",
    "UploadRefused",
    "UploadTooLarge",
    "submissions_upload",
    "upload_read",
]


@dataclass(frozen=True)
class UploadInput:
    """A results file as an entry point received it, with the submitter's choices."""

    content: bytes
    filename: str = "upload"
    format: str | None = None  # a CSV layout, one of IMPORT_FORMATS, or None: detect
    note: str = ""
    on_error: str = "refuse"  # ON_ERROR: refuse the file, or skip what cannot be read
    incomplete: str = "refuse"  # INCOMPLETE: refuse, or drop results lacking folds
    # A CSV's own column names by role (parse_columns: {"dataset": "task", ...}); the
    # columns not named are left out. None: the header is read as it is.
    columns: Mapping[str, str] | None = None
    # A NaN (or, in a long file, empty) score is a missing result, listed (--nan missing).
    nan_missing: bool = False
    # One row per model (its first column), one column per dataset (--models-as-rows).
    models_as_rows: bool = False
    new_datasets_confirmed: bool = False
    idempotency_key: str = ""


@dataclass(frozen=True, eq=False)
class UploadRead:
    """A file read and checked against the benchmark's rules for names and metrics.

    ``left_out`` lists what ``on_error="skip"`` or ``incomplete="drop"`` left out (the
    first ones; ``n_left_out`` counts them all); ``imported`` is set for another tool's
    files, whose problems it locates at their file and key. ``notes`` says what a column
    mapping left out of the file (its columns not mapped).
    """

    parsed: ParsedResults
    imported: ImportedResults | None = None
    left_out: tuple[RowError, ...] = ()
    n_left_out: int = 0
    notes: tuple[str, ...] = ()
    # {role: the file's column} of a mapped CSV, for problems worded as the file names them.
    named: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of_imported(cls, imported: ImportedResults) -> UploadRead:
        """Another tool's files as a command read them (from a folder)."""
        return cls(imported.parsed, imported, imported.left_out, imported.n_left_out)

    @property
    def format(self) -> str:
        return self.imported.format if self.imported is not None else self.parsed.format

    def located(self, problems: tuple[Problem, ...]) -> tuple[Problem, ...]:
        """The services' problems at the file and key each came from (another tool's),
        or in the column a mapped CSV's own header names."""
        if self.imported is None:
            return tuple(replace(p, field=column_in_file(p.field, self.named)) for p in problems)
        return imported_relocated(ValidationFailed(problems), self.imported).problems


class UploadRefused(ValidationFailed):
    """The services refused the file's results (at the file and key for another tool's
    files); ``read`` is the file as read, for a page that shows it beside the problems."""

    def __init__(self, problems, read: UploadRead):
        super().__init__(problems)
        self.read = read


@dataclass(frozen=True, eq=False)
class UploadOutcome:
    """What :func:`submissions_upload` did: stored ``submissions``, queued ``job``, or (a
    trial) found ``problems`` without storing anything."""

    read: UploadRead | None = None
    submissions: tuple[Submission, ...] = ()
    entries: tuple[SubmissionInput, ...] = ()
    job: UploadJob | None = None
    problems: tuple[Problem, ...] = ()
    replayed: bool = False  # an Idempotency-Key retry answered with what was stored before
    # Nothing stored: results would be left out and the submitter has not confirmed it.
    held: bool = False
    # What each algorithm's empty cells do, said on the board as it was before storing.
    incomplete_notes: Mapping[str, str] = field(default_factory=dict)

    @property
    def n_scores(self) -> int:
        return sum(len(entry.scores) for entry in self.entries)

    @property
    def left_out(self) -> tuple[RowError, ...]:
        return self.read.left_out if self.read is not None else ()

    @property
    def n_left_out(self) -> int:
        return self.read.n_left_out if self.read is not None else 0


def left_out_where(problem: RowError) -> str:
    """Where a result left out was read: ``<file>: <key>``, or ``line N, column "c"``."""
    if not problem.line:
        return problem.column or ""
    return f"line {problem.line}" + (f', column "{problem.column}"' if problem.column else "")


def upload_read(
    *,
    benchmark: Benchmark,
    upload: UploadInput,
    limits: UploadLimits,
    max_errors: int | None = None,
) -> UploadRead:
    """The file read within ``limits``. Raises ResultsCsvError naming every problem (of a
    CSV: with the benchmark's rules on the rows that did read, in one round), or
    ResultsImportError naming the file and key of each (another tool's files)."""
    if upload.format in IMPORT_FORMATS:
        if not upload.content:
            raise ResultsImportError([import_problem("", "", EMPTY_IMPORT)])
        imported = imported_read(
            upload.content,
            filename=upload.filename,
            format=upload.format,
            limits=limits,
            benchmark=benchmark,
            on_error=upload.on_error,
        )
        return UploadRead.of_imported(imported)
    table = None
    try:
        table = _mapped_table(upload, max_rows=limits.max_rows)
        parsed, skipped = _csv_read(
            upload,
            table=table,
            benchmark=benchmark,
            max_rows=limits.max_rows,
            max_errors=max_errors,
        )
    except ResultsCsvError as exc:
        # The benchmark's problems too at the user's own lines and columns: relocated last.
        error = results_file_refusal(
            benchmark=benchmark, error=exc, new_datasets_confirmed=upload.new_datasets_confirmed
        )
        raise relocated_error(error, table) if table is not None else error from None
    if table is not None:  # problems and rows at the user's own lines
        parsed = relocated_parsed(parsed, table)
        if skipped:
            skipped = relocated_error(ResultsCsvError(skipped), table).errors
    # Listed up to the bound another tool's files have; beyond it, counted.
    left_out = (*skipped, *parsed.dropped)[:MAX_LEFT_OUT]
    notes, named = (table.notes, table.named) if table is not None else ((), {})
    return UploadRead(parsed, None, left_out, len(skipped) + parsed.n_dropped, notes, named)


def _tidy_size_bounded(upload: UploadInput) -> None:
    """A CSV read as one row per model is read whole: refused past
    ``PODIUM_MAX_TIDY_UPLOAD_BYTES`` (a workbook is bounded by its own zip bounds)."""
    bound = settings.PODIUM_MAX_TIDY_UPLOAD_BYTES
    if len(upload.content) > bound:
        raise ResultsCsvError(
            [
                RowError(
                    1,
                    None,
                    f"a CSV read as one row per model may be up to {bound / 2**20:.0f} MiB "
                    f"and this one is {len(upload.content) / 2**20:.1f} MiB: write it as "
                    "a plain results CSV (dataset,algorithm,score), or import it with "
                    "manage.py import_benchmark",
                )
            ]
        )


def _mapped_table(upload: UploadInput, *, max_rows: int) -> MappedCsv | TidyTable | None:
    """The file as the parser reads it, where it is not one already: a workbook or one
    row per model read whole, a CSV with a pandas index column, NaN cells read as missing
    or mapped ``columns`` streamed (:func:`results_table`, the reading ``import_benchmark``
    gives them). A column the file lacks is a problem of its header (line 1), as the
    parser's own are."""
    tidied = needs_tidying(
        upload.content,
        filename=upload.filename,
        models_as_rows=upload.models_as_rows,
        nan_missing=upload.nan_missing,
    )
    if not tidied and not upload.columns:
        return None
    content, filename = upload.content, upload.filename
    whole = read_whole(content, filename=filename, models_as_rows=upload.models_as_rows)
    if whole and not is_xlsx(content, filename):
        _tidy_size_bounded(upload)
    try:
        return results_table(
            content,
            filename=filename,
            columns=upload.columns,
            models_as_rows=upload.models_as_rows,
            nan_missing=upload.nan_missing,
            max_rows=max_rows,
        )
    except ResultsCsvError:
        raise
    except ValueError as exc:
        raise ResultsCsvError([RowError(1, None, str(exc), UNRECOGNISED_COLUMNS)]) from None


def _csv_read(
    upload: UploadInput,
    *,
    table: MappedCsv | TidyTable | None,
    benchmark: Benchmark,
    max_rows: int,
    max_errors: int | None,
) -> tuple[ParsedResults, tuple[RowError, ...]]:
    options = {
        "format": cast("Format | None", upload.format or None),  # the parser checks it
        "max_rows": max_rows,
        "metric_check": benchmark_metric_check(benchmark=benchmark),
        "incomplete": cast(Incomplete, upload.incomplete),
    }
    content: bytes = upload.content
    if isinstance(table, TidyTable):
        content = table.text.encode("utf-8")
    elif table is not None:
        content = table.content
    if upload.on_error == "skip":
        try:
            text = content.decode("utf-8")
        except UnicodeDecodeError:
            pass  # the strict reader names the line that is not UTF-8
        else:
            return parse_results_csv_partial(text, **options)  # type: ignore[arg-type]
    max_errors = max_errors or settings.PODIUM_API_MAX_PROBLEMS
    parsed = parse_results_csv_text(content, max_errors=max_errors, **options)  # type: ignore[arg-type]
    return parsed, ()


def upload_entries(*, benchmark: Benchmark, read: UploadRead, note: str) -> list[SubmissionInput]:
    """One submission per algorithm of the file (with the metadata another tool's files
    give); raises ValidationFailed when the file's kind is not the benchmark's."""
    if read.imported is not None:
        return imported_entries(benchmark=benchmark, imported=read.imported, note=note)
    return submission_entries_from_csv(benchmark=benchmark, parsed=read.parsed, note=note)


class _TrialOnly(Exception):
    pass


def _store(
    *,
    benchmark: Benchmark,
    submitter,
    upload: UploadInput,
    read: UploadRead,
    entries: list[SubmissionInput],
    source: str,
    trial: bool,
) -> list[Submission]:
    """Store the entries (a trial: store them and roll back, so that the services, the
    one place that knows a benchmark's rules, say what they would refuse)."""
    try:
        with transaction.atomic():
            submissions = submissions_create(
                benchmark=benchmark,
                submitter=submitter,
                entries=entries,
                source=source,
                idempotency_key="" if trial else upload.idempotency_key,
                new_datasets_confirmed=True if trial else upload.new_datasets_confirmed,
            )
            if trial:
                raise _TrialOnly
    except _TrialOnly:
        return []
    except ValidationFailed as exc:
        raise UploadRefused(read.located(exc.problems), read) from None
    return submissions


def _entries(*, benchmark: Benchmark, read: UploadRead, note: str) -> list[SubmissionInput]:
    try:
        return upload_entries(benchmark=benchmark, read=read, note=note)
    except ValidationFailed as exc:
        raise UploadRefused(read.located(exc.problems), read) from None


def _size_check(upload: UploadInput) -> None:
    size, limit = len(upload.content), settings.PODIUM_MAX_UPLOAD_BYTES
    if size > limit:
        raise UploadTooLarge(
            f"The file is {size} bytes; the limit is {limit} bytes ({limit / 2**20:.1f} MiB). "
            "Split the results into smaller files."
        )


def _queued(*, benchmark: Benchmark, submitter, upload: UploadInput) -> UploadJob:
    return upload_job_create(
        benchmark=benchmark,
        submitter=submitter,
        content=upload.content,
        filename=upload.filename,
        format=upload.format,
        note=upload.note,
        idempotency_key=upload.idempotency_key,
        new_datasets_confirmed=upload.new_datasets_confirmed,
        on_error=upload.on_error,
        incomplete=upload.incomplete,
        columns=upload.columns,
        nan_missing=upload.nan_missing,
        models_as_rows=upload.models_as_rows,
    )


def submissions_upload(
    *,
    benchmark: Benchmark,
    submitter,
    upload: UploadInput,
    source: str = Submission.Source.CSV,
    background: bool = True,
    trial: bool = False,
    limits: UploadLimits | None = None,
    read: UploadRead | None = None,
    max_errors: int | None = None,
    stage: Callable[[str, float], None] | None = None,
    left_out_confirmed: bool = True,
) -> UploadOutcome:
    """Read, check and store a results file: one submission per algorithm, all or
    nothing (what ``on_error="skip"`` / ``incomplete="drop"`` leave out is listed).

    ``background``: a file over PODIUM_BACKGROUND_UPLOAD_BYTES (a zip: unpacked) is
    queued as an :class:`UploadJob` instead (False: read here, as the job itself does).
    ``trial``: nothing is stored; the outcome's ``problems`` are what storing would
    refuse (New datasets count as confirmed: the preview asks for that itself; a file
    the background would take is not tried, the job checks it in full). ``read``: a
    file the caller read itself (the commands read folders and workbooks); it is held
    to ``limits`` all the same. ``left_out_confirmed=False``: when anything would be
    left out, nothing is stored and the outcome is ``held`` (the web form asks first).
    Raises UploadTooLarge, ResultsCsvError (the file's problems), UploadRefused (the
    services', at the file and key for another tool's files) and PermissionDenied.
    """
    _size_check(upload)
    queued = read is None and upload_in_background(upload.content, format=upload.format)
    if queued and background and not trial:
        return UploadOutcome(job=_queued(benchmark=benchmark, submitter=submitter, upload=upload))
    limits = limits or upload_limits(background=False)
    if read is None:
        read = upload_read(benchmark=benchmark, upload=upload, limits=limits, max_errors=max_errors)
    elif read.parsed.n_records > limits.max_rows:
        raise ResultsCsvError(
            [RowError(1, None, f"too many results: at most {limits.max_rows} per upload")]
        )
    if stage is not None:
        stage("validating", 0.4)
    if read.n_left_out and not (left_out_confirmed or trial):
        return UploadOutcome(read=read, held=True)
    try:
        entries = _entries(benchmark=benchmark, read=read, note=upload.note)
        if stage is not None:
            stage("storing", 0.6)
        notes = entries_incomplete_notes(benchmark=benchmark, entries=entries)
        started = timezone.now()
        # A trial of a file the background would take is not stored: the job checks it.
        submissions = (
            []
            if trial and queued
            else _store(
                benchmark=benchmark,
                submitter=submitter,
                upload=upload,
                read=read,
                entries=entries,
                source=source,
                trial=trial,
            )
        )
    except UploadRefused as exc:
        if not trial:
            raise
        return UploadOutcome(read=read, problems=exc.problems)
    if trial:
        return UploadOutcome(read=read, entries=tuple(entries))
    replayed = bool(upload.idempotency_key) and all(s.created_at < started for s in submissions)
    if read.imported is not None and not replayed:
        published_orders_store(
            benchmark=benchmark,
            published=read.imported.published,
            source_format=read.imported.format,
            user=submitter,
            by_operator=submitter is None and source == Submission.Source.IMPORT,
        )
    return UploadOutcome(
        read=read,
        submissions=tuple(submissions),
        entries=tuple(entries),
        replayed=replayed,
        incomplete_notes=notes,
    )
