"""What the three layouts' parsers share: the error list, the column buffers, the
number and row readers of a CSV file."""

from __future__ import annotations

import array
import csv
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from leaderboard.ingest.results_csv.cells import (
    _EXPECTED,
    _LONG_LAYOUT,
    _MARKS,
    _PLAIN_NUMBER,
    _RANKING_LAYOUT,
    _WIDE_LAYOUT,
    _comma_hint,
    _csv_problem,
    _isfinite,
    _plain_number,
)
from leaderboard.ingest.results_csv.records import (
    Format,
    Incomplete,
    ResultsCsvError,
    RowError,
)


class _TooManyRows(Exception):
    pass


class _Errors:
    """Collects row errors, keeping the first ``limit``."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.kept: list[RowError] = []
        self.total = 0

    def add(self, line: int, column: str | None, message: str, kind: str = "") -> None:
        self.total += 1
        if len(self.kept) < self.limit:
            self.kept.append(RowError(line, column, message, kind))

    def count_unlisted(self, n: int) -> None:
        """Count ``n`` more errors without building their messages."""
        self.total += max(0, n)

    def raise_if_any(self) -> None:
        if self.total:
            raise ResultsCsvError(self.kept, self.total)


@dataclass
class _Columns:
    """Parallel columns filled row by row, turned into numpy arrays once at the end.

    Typed ``array.array`` buffers (8 bytes a value, no Python object per row) rather
    than lists: a million-row file's columns weigh 48 MB instead of about 110 MB.
    """

    lines: array.array
    datasets: array.array
    algorithms: array.array
    values: array.array
    folds: array.array
    metrics: array.array

    @classmethod
    def empty(cls) -> _Columns:
        return cls(*(array.array("d" if i == 3 else "q") for i in range(6)))

    def arrays(self) -> tuple[np.ndarray, ...]:
        out = tuple(
            np.frombuffer(column, dtype=np.float64 if column.typecode == "d" else np.int64)
            if len(column)
            else np.empty(0, dtype=np.float64 if column.typecode == "d" else np.int64)
            for column in (
                self.lines,
                self.datasets,
                self.algorithms,
                self.values,
                self.folds,
                self.metrics,
            )
        )
        for column in out:
            column.setflags(write=False)
        return out


class _ParserBase:
    def __init__(
        self,
        *,
        format: Format | None,
        max_rows: int | None,
        max_errors: int,
        metric_check: Callable[[str], str | None] | None = None,
        incomplete: Incomplete = "refuse",
    ) -> None:
        self.format = format
        self.incomplete = incomplete
        self.dropped = _Errors(max_errors)  # what incomplete="drop" left out
        self.metric_check = metric_check
        self.max_rows = max_rows
        self.errors = _Errors(max_errors)
        self.header_line = 1
        self.misread_as_wide = False  # set by _detect: a typo made the header look wide
        self.delimiter = ","  # set by parse from the header
        self.first_mark: tuple[str, int] | None = None  # (decimal mark, line), ';' files
        # The lines after the header, for clean_records to try first (None: cell by cell).
        self.raw_lines: Iterator[str] | None = None

    def _number(self, raw: str, line: int) -> float | str:
        """A non-empty score or rank cell's value, or why it is none (see
        :meth:`_number_read`; this is its quick path, called once per cell)."""
        try:
            value = float(raw)
        except ValueError:
            return self._number_read(raw, line)
        if self.delimiter == "," and _plain_number(raw) and _isfinite(value):
            return value
        return self._number_read(raw, line)

    def _number_read(self, raw: str, line: int) -> float | str:
        """A non-empty score or rank cell's value, or why it is none.

        In a file with ``;`` between fields a decimal comma is read too (``0,5``, as
        European spreadsheets save CSV), but a file uses one decimal mark: in ``0,5``
        and ``1.234`` the point may be a thousands separator, so a mix is refused.
        """
        mark = ""
        try:
            value = float(raw)
        except ValueError:
            if self.delimiter != ";" or raw.count(",") != 1:
                return f"{raw!r} is not a number{_comma_hint(raw)}"
            try:
                value = float(raw.replace(",", "."))
            except ValueError:
                return f"{raw!r} is not a number"
            mark = ","
        else:
            if self.delimiter == ";" and "." in raw:
                mark = "."
        if not _plain_number(raw):
            return f"{raw!r} is not a number{_PLAIN_NUMBER}"
        if not _isfinite(value):
            return f"{raw!r} is not a finite number"
        if mark:
            if self.first_mark is None:
                self.first_mark = (mark, line)
            elif self.first_mark[0] != mark:
                other, first_line = self.first_mark
                return (
                    f"{raw!r} has a decimal {_MARKS[mark]}, but line {first_line} has a "
                    f"decimal {_MARKS[other]}: write every number with the same decimal mark"
                )
        return value

    def _read_header(self, reader: Iterator[list[str]]) -> list[str]:
        try:
            for row in reader:
                if "".join(row).strip():
                    self.header_line = reader.line_num  # type: ignore[attr-defined]
                    return row
        except csv.Error as exc:
            raise ResultsCsvError(
                [RowError(reader.line_num, None, _csv_problem(exc))]  # type: ignore[attr-defined]
            ) from None
        raise ResultsCsvError(
            [RowError(1, None, f"the file is empty: it needs a header row; {_EXPECTED}")]
        )

    def _rows(
        self, reader: Iterator[list[str]], width: int, key: int, *, row_is: str
    ) -> Iterator[tuple[int, list[str]]]:
        """Data rows as ``(line, fields)``; skips blank rows, checks the field count.
        ``row_is`` is what one row holds ("result", "dataset"), for a file with none."""
        limit = self.max_rows if self.max_rows is not None else sys.maxsize
        count = 0
        previous = reader.line_num  # type: ignore[attr-defined]
        row: list[str] | None
        try:
            for row in reader:
                line = previous + 1
                previous = reader.line_num  # type: ignore[attr-defined]
                if len(row) != width or not row[key]:
                    if not "".join(row).strip():
                        continue
                    if len(row) > width and not "".join(row[width:]).strip():
                        row = row[:width]
                    elif len(row) != width:
                        separator = "semicolon" if self.delimiter == ";" else "comma"
                        hint = f" (a {separator} inside a value needs quotes)"
                        hint = hint if len(row) > width else ""
                        self.errors.add(
                            line, None, f"{len(row)} fields, but the header has {width}{hint}"
                        )
                        row = None
                count += 1
                if count > limit:
                    self.errors.add(line, None, f"too many rows: at most {limit} data rows allowed")
                    raise _TooManyRows
                if row is not None:
                    yield line, row
        except csv.Error as exc:
            self.errors.add(previous + 1, None, _csv_problem(exc))
            return
        if count == 0:
            self.errors.add(
                self.header_line,
                None,
                f"the file has a header but no data rows: add one row per {row_is} below it",
            )

    def _typo_problem(self, name: str, role: str, format: Format) -> str:
        layout = {"long": _LONG_LAYOUT, "ranking": _RANKING_LAYOUT, "wide": _WIDE_LAYOUT}[format]
        message = f"unknown column; did you mean {role!r}? {format} files have {layout}"
        if self.misread_as_wide:
            message += (
                f" (if it is a wide file with an algorithm named {name!r}, choose the wide format)"
            )
        return message
