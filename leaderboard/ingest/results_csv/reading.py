"""Reading a results file: the two entry points (a path, or bytes an upload sent)."""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO

from leaderboard.ingest.results_csv.cells import _BOM, _decode
from leaderboard.ingest.results_csv.long_layout import GivenRecord, RecordColumns
from leaderboard.ingest.results_csv.parser import _Parser
from leaderboard.ingest.results_csv.records import (
    FORMATS,
    INCOMPLETE,
    Format,
    Incomplete,
    ParsedResults,
    ResultsCsvError,
    RowError,
)


def parse_results_csv(
    source: str | os.PathLike[str] | IO[str] | IO[bytes],
    *,
    format: Format | None = None,
    max_rows: int | None = None,
    max_errors: int = 50,
    metric_check: Callable[[str], str | None] | None = None,
    incomplete: Incomplete = "refuse",
) -> ParsedResults:
    """Read and validate a results CSV.

    ``source`` is a path (``str`` or ``os.PathLike``) or an open file object, text or
    binary (e.g. an uploaded file); CSV *content* held in a string goes through
    :func:`parse_results_csv_text`. ``format`` is ``"long"``, ``"wide"``,
    ``"ranking"`` or ``None`` (detect from the header). ``max_rows`` caps the number of
    data rows and of results (a wide row holds several). ``metric_check(name)`` returns
    why a metric name is refused (e.g. a benchmark does not have it), or None: each such
    row is an error at its own line, and the fold checks, which would misread those rows
    as missing folds, wait until the file has none. ``incomplete`` is what to do with an
    algorithm that lacks, on a dataset, folds other algorithms have there: ``"refuse"``
    the file (an error of kind ``INCOMPLETE_FOLDS`` at its line) or ``"drop"`` that
    algorithm's results on that dataset, which then count as missing (listed in
    ``ParsedResults.dropped``). Raises :class:`ResultsCsvError` (a ``ValueError``)
    listing every problem; ``OSError`` if the path cannot be read.
    """
    if isinstance(source, (str, os.PathLike)):
        content: str | bytes = Path(source).read_bytes()
    elif hasattr(source, "read"):
        content = source.read()
    else:
        raise TypeError(
            f"source must be a path or a file object, got {type(source).__name__}; "
            "use parse_results_csv_text for CSV content"
        )
    return parse_results_csv_text(
        content,
        format=format,
        max_rows=max_rows,
        max_errors=max_errors,
        metric_check=metric_check,
        incomplete=incomplete,
    )


def parse_results_csv_text(
    content: str | bytes,
    *,
    format: Format | None = None,
    max_rows: int | None = None,
    max_errors: int = 50,
    metric_check: Callable[[str], str | None] | None = None,
    incomplete: Incomplete = "refuse",
) -> ParsedResults:
    """Like :func:`parse_results_csv`, for CSV content (``bytes`` are decoded as UTF-8)."""
    if format is not None and format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)} or None, got {format!r}")
    if incomplete not in INCOMPLETE:
        raise ValueError(f"incomplete must be one of {', '.join(INCOMPLETE)}, got {incomplete!r}")
    if max_rows is not None and (isinstance(max_rows, bool) or max_rows < 1):
        raise ValueError(f"max_rows must be a positive integer or None, got {max_rows!r}")
    if isinstance(max_errors, bool) or max_errors < 1:
        raise ValueError(f"max_errors must be a positive integer, got {max_errors!r}")
    if isinstance(content, bytes):
        data = content.removeprefix(_BOM)
        _decode(data)  # refuses text that is not UTF-8, naming the line; then let go
        # Decoded piece by piece while read: no copy of a large file's text held whole.
        stream: IO[str] = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", newline="")
    else:
        stream = io.StringIO(content.removeprefix("\ufeff"), newline="")
    return _Parser(
        format=format,
        max_rows=max_rows,
        max_errors=max_errors,
        metric_check=metric_check,
        incomplete=incomplete,
    ).parse(stream)


def parse_results_records(
    records: Iterable[GivenRecord], *, with_folds: bool, max_errors: int = 50
) -> ParsedResults:
    """Results another reader holds as values (``(dataset, algorithm, metric, fold,
    value)``, fold None for none), validated by the rules of a long results CSV with a
    metric column (names, finite values, folds, one result per record), with no CSV
    text in between. The record at index ``i`` is reported as line ``i + 2``, so that
    the caller locates a problem where it read that record.
    """
    if isinstance(max_errors, bool) or max_errors < 1:
        raise ValueError(f"max_errors must be a positive integer, got {max_errors!r}")
    parser = _Parser(format="long", max_rows=None, max_errors=max_errors)
    return parser._parse_given(records, with_folds=with_folds)


def parse_results_columns(columns: RecordColumns, *, max_errors: int = 50) -> ParsedResults:
    """:func:`parse_results_records` of records held as columns (an importer's: see
    :class:`RecordColumns`), checked by the same rules, each label once: a million
    records cost a few numpy passes, not a Python object each. The record at index ``i``
    is reported as line ``i + 2``.
    """
    if isinstance(max_errors, bool) or max_errors < 1:
        raise ValueError(f"max_errors must be a positive integer, got {max_errors!r}")
    parser = _Parser(format="long", max_rows=None, max_errors=max_errors)
    return parser._parse_columns(columns)


# At most this many rows are left out of a file read with parse_results_csv_partial;
# a file with more bad rows is refused (its layout is more likely wrong than its rows).
MAX_SKIPPED_ROWS = 10_000


def parse_results_csv_partial(
    content: str,
    *,
    format: Format | None = None,
    max_rows: int | None = None,
    metric_check: Callable[[str], str | None] | None = None,
    incomplete: Incomplete = "refuse",
) -> tuple[ParsedResults, tuple[RowError, ...]]:
    """The rows of ``content`` that are valid, and the problems of those left out.

    The file is parsed; if rows are refused, those lines are blanked (so every other
    line keeps its number) and the rest parsed again. A problem of the whole file (the
    header, a line the reader cannot split) or more than :data:`MAX_SKIPPED_ROWS` bad
    rows refuse the file as :func:`parse_results_csv_text` does.
    """

    def parse(text: str) -> ParsedResults:
        return parse_results_csv_text(
            text,
            format=format,
            max_rows=max_rows,
            max_errors=MAX_SKIPPED_ROWS,
            metric_check=metric_check,
            incomplete=incomplete,
        )

    try:
        return parse(content), ()
    except ResultsCsvError as exc:
        first = exc
    lines = {error.line for error in first.errors}
    if first.total > len(first.errors) or any(line <= 1 for line in lines):
        raise first
    text = content.splitlines(keepends=True)
    if max(lines) > len(text):
        raise first
    for line in lines:
        text[line - 1] = "\n"
    return parse("".join(text)), tuple(first.errors)
