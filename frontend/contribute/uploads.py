"""A results file between its preview and its confirmation.

The preview asks the upload service for a trial (``submissions_upload(trial=True)``:
read, and tried against the services' rules); the file then waits in the session
(compressed, one pending file per session) until the researcher confirms. Its token is
also its idempotency key, so a double-clicked "confirm" stores the file once. What the
preview shows of the read file (first rows, algorithms, empty cells) is built here.
"""

from __future__ import annotations

import base64
import uuid
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import numpy as np
from django.conf import settings

from leaderboard.ingest.formats import unpacked_size
from leaderboard.ingest.results_csv import ParsedResults, RowError
from leaderboard.models import Benchmark
from leaderboard.selectors import algorithm_names_public, dataset_names_public
from leaderboard.services import Problem, submission_incomplete_notes
from leaderboard.services.uploads import UploadInput

SESSION_KEY = "podium-pending-upload"
PREVIEW_ROWS = 20
MAX_ERRORS = 100


def max_errors() -> int:
    """How many of a file's problems the pages list (read when asked: tests lower it)."""
    return MAX_ERRORS


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
    incomplete: str = "refuse"
    on_error: str = "refuse"
    # A CSV's own column names by role, chosen in the mapping step ({}: none).
    columns: Mapping[str, str] = field(default_factory=dict)
    nan_missing: bool = False  # the mapping step's choices, as UploadInput has them
    models_as_rows: bool = False

    @property
    def idempotency_key(self) -> str:
        return f"web-csv-{self.token}"

    def as_input(self, *, new_datasets_confirmed: bool) -> UploadInput:
        """The file and the researcher's choices, as the upload service takes them."""
        return UploadInput(
            content=self.content,
            filename=self.filename,
            format=self.format or None,
            note=self.note,
            on_error=self.on_error,
            incomplete=self.incomplete,
            columns=dict(self.columns) or None,
            nan_missing=self.nan_missing,
            models_as_rows=self.models_as_rows,
            new_datasets_confirmed=new_datasets_confirmed,
            idempotency_key=self.idempotency_key,
        )

    def _session_value(self) -> dict:
        return {
            "token": self.token,
            "benchmark_id": self.benchmark_id,
            "filename": self.filename,
            "format": self.format,
            "note": self.note,
            "content": base64.b64encode(zlib.compress(self.content, 6)).decode("ascii")
            if self.content
            else "",
            "stored_ids": list(self.stored_ids),
            "job_id": self.job_id,
            "incomplete": self.incomplete,
            "on_error": self.on_error,
            "columns": dict(self.columns),
            "nan_missing": self.nan_missing,
            "models_as_rows": self.models_as_rows,
        }


def pending_upload_save(
    session,
    *,
    benchmark: Benchmark,
    filename: str,
    fmt: str,
    note: str,
    content: bytes,
    incomplete: str = "refuse",
    on_error: str = "refuse",
    columns: Mapping[str, str] | None = None,
    nan_missing: bool = False,
    models_as_rows: bool = False,
) -> PendingUpload:
    upload = PendingUpload(
        token=uuid.uuid4().hex,
        benchmark_id=benchmark.pk,
        filename=filename,
        format=fmt,
        note=note,
        content=content,
        incomplete=incomplete,
        on_error=on_error,
        columns=dict(columns or {}),
        nan_missing=nan_missing,
        models_as_rows=models_as_rows,
    )
    session[SESSION_KEY] = upload._session_value()
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
        incomplete=stored.get("incomplete", "refuse"),
        on_error=stored.get("on_error", "refuse"),
        columns=stored.get("columns") or {},
        nan_missing=bool(stored.get("nan_missing")),
        models_as_rows=bool(stored.get("models_as_rows")),
    )


def pending_upload_mark_stored(
    session, *, upload: PendingUpload, ids: list[int], job_id: int | None = None
) -> None:
    """Forget the file but remember what it became (submissions, or the background job
    that stores it), for a repeated confirm."""
    session[SESSION_KEY] = replace(
        upload, content=b"", stored_ids=tuple(ids), job_id=job_id
    )._session_value()


def too_large_to_preview(content: bytes) -> str:
    """Why a zip of another tool's files that unpacks past the request's bound is not
    previewed here, and where to send it."""
    return (
        f"The files unpack to {unpacked_size(content)} bytes; the web form reads at most "
        f"{settings.PODIUM_BACKGROUND_UPLOAD_BYTES} bytes of another tool's files while "
        "you wait. Upload them through the API (submissions/upload/), which processes "
        "larger files in the background, or split them."
    )


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
