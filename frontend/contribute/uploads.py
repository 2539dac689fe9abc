"""A results file between its preview and its confirmation.

The preview parses the file and tries it against the services' rules; the file then
waits in the session (compressed, one pending file per session) until the researcher
confirms. Its token is also its idempotency key, so a double-clicked "confirm" stores
the file once.
"""

from __future__ import annotations

import base64
import dataclasses
import io
import uuid
import zlib
from dataclasses import dataclass
from typing import cast

import numpy as np
from django.conf import settings
from django.db import transaction

from leaderboard.ingest.formats import ImportedResults, unpacked_size
from leaderboard.ingest.imported import IMPORT_FORMATS, imported_entries, imported_read
from leaderboard.ingest.results_csv import (
    Format,
    ParsedResults,
    ResultsCsvError,
    RowError,
    parse_results_csv,
)
from leaderboard.models import Benchmark, Submission
from leaderboard.selectors import algorithm_names_public, dataset_names_public
from leaderboard.services import (
    Problem,
    SubmissionInput,
    ValidationFailed,
    benchmark_metric_check,
    results_file_refusal,
    submission_entries_from_csv,
    submission_incomplete_notes,
    submissions_create,
)
from leaderboard.uploads import upload_limits

SESSION_KEY = "podium-pending-upload"
PREVIEW_ROWS = 20
MAX_ERRORS = 100


@dataclass(frozen=True)
class PendingUpload:
    token: str
    benchmark_id: int
    filename: str
    format: str
    note: str
    content: bytes
    stored_ids: tuple[int, ...] = ()
    job_id: int | None = None  # the background job that stores a large file

    @property
    def idempotency_key(self) -> str:
        return f"web-csv-{self.token}"


def pending_upload_save(
    session, *, benchmark: Benchmark, filename: str, fmt: str, note: str, content: bytes
) -> PendingUpload:
    upload = PendingUpload(
        token=uuid.uuid4().hex,
        benchmark_id=benchmark.pk,
        filename=filename,
        format=fmt,
        note=note,
        content=content,
    )
    session[SESSION_KEY] = {
        "token": upload.token,
        "benchmark_id": upload.benchmark_id,
        "filename": filename,
        "format": fmt,
        "note": note,
        "content": base64.b64encode(zlib.compress(content, 6)).decode("ascii"),
        "stored_ids": [],
    }
    return upload


def pending_upload_get(session, *, token: str, benchmark: Benchmark) -> PendingUpload | None:
    stored = session.get(SESSION_KEY)
    if not stored or stored.get("token") != token or stored.get("benchmark_id") != benchmark.pk:
        return None
    content = zlib.decompress(base64.b64decode(stored["content"])) if stored["content"] else b""
    return PendingUpload(
        token=stored["token"],
        benchmark_id=stored["benchmark_id"],
        filename=stored["filename"],
        format=stored["format"],
        note=stored["note"],
        content=content,
        stored_ids=tuple(stored.get("stored_ids", ())),
        job_id=stored.get("job_id"),
    )


def pending_upload_mark_stored(
    session, *, upload: PendingUpload, ids: list[int], job_id: int | None = None
) -> None:
    """Forget the file but remember what it became (submissions, or the background job
    that stores it), for a repeated confirm."""
    session[SESSION_KEY] = {
        "token": upload.token,
        "benchmark_id": upload.benchmark_id,
        "filename": upload.filename,
        "format": upload.format,
        "note": upload.note,
        "content": "",
        "stored_ids": ids,
        "job_id": job_id,
    }


def upload_import(
    content: bytes, *, fmt: str | None, benchmark: Benchmark, filename: str = "upload"
) -> ImportedResults | None:
    """Another tool's results (None for a CSV format); raises ResultsImportError when
    nothing in the files can be read. What cannot is in ``left_out``: the preview lists
    it and the researcher confirms storing the rest."""
    if fmt not in IMPORT_FORMATS:
        return None
    return imported_read(
        content,
        filename=filename,
        format=fmt,
        limits=upload_limits(background=False),
        benchmark=benchmark,
        on_error="skip",
    )


def too_large_to_preview(content: bytes) -> str:
    """Why a zip of another tool's files that unpacks past the request's bound is not
    previewed here, and where to send it."""
    return (
        f"The files unpack to {unpacked_size(content)} bytes; the web form reads at most "
        f"{settings.PODIUM_BACKGROUND_UPLOAD_BYTES} bytes of another tool's files while "
        "you wait. Upload them through the API (submissions/upload/), which processes "
        "larger files in the background, or split them."
    )


def upload_parse(content: bytes, *, fmt: str | None, benchmark: Benchmark) -> ParsedResults:
    """Raises ResultsCsvError listing the file's problems by line and column, with the
    benchmark's rules on the rows that did read (results_file_refusal): one round."""
    if imported := upload_import(content, fmt=fmt, benchmark=benchmark):
        return imported.parsed
    try:
        return parse_results_csv(
            io.BytesIO(content),
            format=cast("Format | None", fmt or None),  # the parser checks it
            max_rows=upload_limits(background=False).max_rows,
            max_errors=MAX_ERRORS,
            metric_check=benchmark_metric_check(benchmark=benchmark),
        )
    except ResultsCsvError as exc:
        # New datasets are confirmed in the preview itself, as upload_trial_problems does.
        raise results_file_refusal(
            benchmark=benchmark, error=exc, new_datasets_confirmed=True
        ) from None


def upload_entries(
    *,
    benchmark: Benchmark,
    parsed: ParsedResults,
    note: str,
    imported: ImportedResults | None = None,
) -> list[SubmissionInput]:
    if imported is not None:
        return imported_entries(benchmark=benchmark, imported=imported, note=note)
    entries = submission_entries_from_csv(benchmark=benchmark, parsed=parsed)
    return [dataclasses.replace(entry, note=note) for entry in entries]


class _TrialOnly(Exception):
    pass


def upload_trial_problems(
    *, benchmark: Benchmark, user, entries: list[SubmissionInput]
) -> tuple[Problem, ...]:
    """What storing the entries would refuse, found by storing them and rolling back.

    The services are the one place that knows a benchmark's rules (listed datasets
    only, metrics, ranks), so the preview asks them rather than repeating the rules.
    New datasets count as confirmed here: the preview lists them and asks for the
    confirmation itself. Raises the services' PermissionDenied.
    """
    try:
        with transaction.atomic():
            submissions_create(
                benchmark=benchmark,
                submitter=user,
                entries=entries,
                source=Submission.Source.CSV,
                new_datasets_confirmed=True,
            )
            raise _TrialOnly
    except _TrialOnly:
        return ()
    except ValidationFailed as exc:
        return exc.problems


@dataclass(frozen=True)
class PreviewRow:
    line: int
    dataset: str
    algorithm: str
    fold: int | None
    metric: str | None
    value: float

    @property
    def value_text(self) -> str:
        """The value at 15 significant digits: what was typed, not the float's last bits
        (0.323, never 0.32299999999999995)."""
        return f"{self.value:.15g}"


@dataclass(frozen=True)
class AlgorithmSummary:
    name: str
    n_rows: int
    n_datasets: int
    is_new: bool


@dataclass(frozen=True)
class UploadPreview:
    format: str
    kind: str
    n_rows: int
    n_datasets: int
    n_algorithms: int
    metrics: tuple[str, ...]
    has_folds: bool
    new_datasets: tuple[str, ...]
    # The services add new datasets only when confirmed, unless the benchmark has none.
    new_datasets_need_confirmation: bool
    first_rows: tuple[PreviewRow, ...]
    algorithms: tuple[AlgorithmSummary, ...]


def upload_incomplete_notes(*, benchmark: Benchmark, parsed: ParsedResults) -> dict[str, str]:
    """Per algorithm of the file, what its empty cells will do (the service's sentence)."""
    metric_codes = parsed.metric_codes.astype(np.int64)
    n_metrics = len(parsed.metrics) + 1  # code -1: no metric column
    keys = np.unique(
        (parsed.algorithm_codes.astype(np.int64) * len(parsed.datasets) + parsed.dataset_codes)
        * n_metrics
        + metric_codes
        + 1
    )
    covered: dict[str, list[tuple[str, str | None]]] = {}
    for key in keys.tolist():
        pair, metric = divmod(key, n_metrics)
        algorithm, dataset = divmod(pair, max(len(parsed.datasets), 1))
        covered.setdefault(parsed.algorithms[algorithm], []).append(
            (parsed.datasets[dataset], parsed.metrics[metric - 1] if metric else None)
        )
    return submission_incomplete_notes(benchmark=benchmark, covered=covered)


def upload_preview(*, benchmark: Benchmark, parsed: ParsedResults) -> UploadPreview:
    known_datasets = set(dataset_names_public(benchmark=benchmark))
    known_algorithms = set(algorithm_names_public(benchmark=benchmark))
    n = min(PREVIEW_ROWS, parsed.n_records)
    first_rows = tuple(
        PreviewRow(
            line=int(parsed.lines[i]),
            dataset=parsed.datasets[int(parsed.dataset_codes[i])],
            algorithm=parsed.algorithms[int(parsed.algorithm_codes[i])],
            fold=int(parsed.folds[i]) if parsed.folds[i] >= 0 else None,
            metric=parsed.metrics[int(parsed.metric_codes[i])]
            if parsed.metric_codes[i] >= 0
            else None,
            value=float(parsed.values[i]),
        )
        for i in range(n)
    )
    n_algorithms = len(parsed.algorithms)
    rows_per_algorithm = np.bincount(parsed.algorithm_codes, minlength=n_algorithms)
    pairs = np.unique(
        parsed.algorithm_codes.astype(np.int64) * len(parsed.datasets) + parsed.dataset_codes
    )
    datasets_per_algorithm = np.bincount(
        pairs // max(len(parsed.datasets), 1), minlength=n_algorithms
    )
    used_datasets = np.unique(parsed.dataset_codes)
    new_datasets = tuple(
        name
        for name in (parsed.datasets[int(code)] for code in used_datasets)
        if name not in known_datasets
    )
    return UploadPreview(
        format=parsed.format,
        kind=parsed.kind,
        n_rows=parsed.n_records,
        n_datasets=len(used_datasets),
        n_algorithms=int(np.count_nonzero(rows_per_algorithm)),
        metrics=parsed.metrics,
        has_folds=parsed.has_folds,
        new_datasets=new_datasets,
        new_datasets_need_confirmation=bool(new_datasets and known_datasets),
        first_rows=first_rows,
        algorithms=tuple(
            AlgorithmSummary(
                name=name,
                n_rows=int(rows_per_algorithm[code]),
                n_datasets=int(datasets_per_algorithm[code]),
                is_new=name not in known_algorithms,
            )
            for code, name in enumerate(parsed.algorithms)
            if rows_per_algorithm[code]
        ),
    )


@dataclass(frozen=True)
class FileProblem:
    """One problem of the file, beside the text of its line."""

    line: int | None
    column: str | None
    message: str
    text: str


def file_problems(
    content: bytes, problems: list[RowError] | list[Problem] | tuple
) -> list[FileProblem]:
    text = content.decode("utf-8", errors="replace").removeprefix("\ufeff")
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    result = []
    for problem in problems:
        line = problem.line
        column = problem.column if isinstance(problem, RowError) else problem.field
        shown = lines[line - 1] if line is not None and 0 < line <= len(lines) else ""
        result.append(FileProblem(line, column, problem.message, shown[:300]))
    return result
