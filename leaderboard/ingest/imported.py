"""Files in another tool's format, on their way into a benchmark.

The Django side of :mod:`leaderboard.ingest.formats`: read an upload (a file, or a
folder as a zip), keep the benchmark's metrics, turn the results into the services'
:class:`~leaderboard.services.SubmissionInput` (with each algorithm's metadata and
provenance), and say where in the files a problem the services found came from.
"""

from __future__ import annotations

import dataclasses

from leaderboard.ingest.formats import (
    IMPORT_FORMAT_LABELS,
    IMPORT_FORMATS,
    ON_ERROR,
    ImportedResults,
    files_from_bytes,
    read_imported,
)
from leaderboard.ingest.formats.common import UploadLimits, restrict_metrics
from leaderboard.models import Benchmark
from leaderboard.services import (
    MAX_URL_LENGTH,
    Problem,
    SubmissionInput,
    ValidationFailed,
    submission_entries_from_csv,
    url_problem,
)

__all__ = [
    "EMPTY_IMPORT",
    "IMPORT_FORMATS",
    "IMPORT_FORMAT_LABELS",
    "ON_ERROR",
    "imported_entries",
    "imported_read",
    "imported_relocated",
]

# An empty upload in another tool's format (an empty CSV is the CSV parser's to word).
EMPTY_IMPORT = "The submitted file is empty."


def imported_read(
    content: bytes,
    *,
    filename: str,
    format: str,
    limits: UploadLimits,
    benchmark: Benchmark | None = None,
    on_error: str = "refuse",
) -> ImportedResults:
    """Raises ResultsImportError naming the file and key of every problem, or the limit
    passed (unpacking and reading stop there: see :func:`upload_limits`). With
    ``on_error="skip"`` the results that cannot be read are listed in ``left_out``."""
    files = files_from_bytes(
        content, name=filename or "upload", max_bytes=limits.max_unpacked_bytes
    )
    imported = read_imported(files, format=format, max_results=limits.max_rows, on_error=on_error)
    if benchmark is not None:
        imported = restrict_metrics(imported, benchmark.metrics.values_list("name", flat=True))
    return imported


def imported_entries(
    *, benchmark: Benchmark, imported: ImportedResults, note: str = ""
) -> list[SubmissionInput]:
    """One submission per algorithm, with the metadata and provenance the files give."""
    entries = submission_entries_from_csv(benchmark=benchmark, parsed=imported.parsed, note=note)
    out = []
    for entry in entries:
        info = imported.algorithm(entry.algorithm)
        metadata: dict = {}
        url = ""
        version = ""
        if info is not None:
            metadata = {
                key: value
                for key, value in (
                    ("family", info.family[:100]),
                    ("parameters", info.parameters),
                    ("licence", info.licence[:100]),
                    ("revision", info.revision[:100]),
                    ("precision", info.precision),
                    ("open_weights", info.open_weights),
                )
                if value not in ("", None)  # open_weights false is said, and kept
            }
            if info.url and len(info.url) <= MAX_URL_LENGTH and url_problem(info.url) is None:
                url = info.url
            version = info.revision[:50]
        provenance = dict(imported.provenance.get(entry.algorithm, {}))
        provenance["format"] = imported.format
        out.append(
            dataclasses.replace(
                entry,
                algorithm_url=url,
                algorithm_version=version,
                algorithm_metadata=metadata,
                provenance=provenance,
            )
        )
    return out


def imported_relocated(exc: ValidationFailed, imported: ImportedResults) -> ValidationFailed:
    """The same refusal, each problem at the file and key its line came from."""
    problems = []
    for problem in exc.problems:
        where = imported.where(problem.line)
        if where is None:
            problems.append(problem)
        else:
            problems.append(Problem(problem.message, where, None))
    return type(exc)(problems) if type(exc) is ValidationFailed else ValidationFailed(problems)
