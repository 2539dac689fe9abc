"""Tables as people save them, made a results file the parser reads.

A spreadsheet exported by pandas (``to_csv`` writes its index as a first, unnamed
column of 0, 1, 2, ...), cells written ``NaN`` for a missing result, columns named as
another tool names them (``task``, ``framework``, ``result``: mapped with
``columns``), a table with one row per model and one column per dataset
(``models_as_rows``), or an ``.xlsx`` workbook (its first sheet, read with openpyxl).

:func:`tidy_results_table` rewrites such a table as the rows the parser reads, each
output line remembering the line (or sheet row) of the input it came from, so that the
parser's problems are reported where they are in the user's file
(:func:`relocated_error`). What it leaves out (the index column, unmapped columns,
``NaN`` cells) is said in ``notes``. Pure Python: no Django.
"""

from __future__ import annotations

import array
import collections
import csv
import io
import re
import zipfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from leaderboard.ingest.results_csv.cells import _delimiter_of
from leaderboard.ingest.results_csv.records import ParsedResults, ResultsCsvError, RowError
from leaderboard.ingest.zip_bounds import (
    DAMAGED_ZIP_ERRORS,
    MAX_COMPRESSION_RATIO,
    declared_size_problems,
)

# Column roles a mapping may name (``value`` is the parser's other name for ``score``).
MAPPABLE = ("dataset", "algorithm", "score", "fold", "metric", "rank")
# How tools write a missing number: pandas (``NaN``, ``<NA>``), R (``NA``).
MISSING_CELLS = frozenset({"nan", "<na>", "na"})
_INDEX_HEADERS = frozenset({"", "unnamed: 0", "index"})
_INDEX_NOTE = "the first column (a pandas index: 0, 1, 2, ...) was left out"
_XLSX_MAGIC = b"PK\x03\x04"


@dataclass(frozen=True)
class TidyTable:
    """A results file for the parser, and where each of its lines came from."""

    text: str
    # source_lines[n - 1]: the input's line (or sheet row) of the output's line n.
    source_lines: Sequence[int]
    notes: tuple[str, ...]
    # {role: the file's own column} of a mapping, as the header spells it.
    named: Mapping[str, str] = field(default_factory=dict)


def parse_columns(text: str) -> dict[str, str]:
    """``"dataset=task,algorithm=framework,score=result"`` as {role: column}.

    Raises ``ValueError`` naming the first fault: a part that is not role=column, or
    one :func:`columns_checked` names.
    """
    pairs = []
    for part in text.split(","):
        role, sep, column = part.partition("=")
        if not sep or not column.strip():
            raise ValueError(f"columns: expected role=column, got {part.strip()!r}")
        pairs.append((role, column))
    return columns_checked(pairs)


def columns_checked(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """(role, column) pairs as {role: column}, however they were given (the command's
    text, the web form's selects). Raises ``ValueError`` naming the first fault: a role
    that is none of MAPPABLE, a role given twice, a column given to two roles."""
    mapping: dict[str, str] = {}
    for given_role, given_column in pairs:
        role, column = given_role.strip().lower(), given_column.strip()
        if role not in MAPPABLE:
            raise ValueError(
                f"columns: {role!r} is no column role; the roles are {', '.join(MAPPABLE)}"
            )
        if role in mapping:
            raise ValueError(
                f"columns: {role} is given twice ({mapping[role]!r} and {column!r}); "
                "give each role one column"
            )
        # The header is matched without case (_mapped), so "Task" and "task" are one.
        taken = next((r for r, c in mapping.items() if c.lower() == column.lower()), None)
        if taken is not None:
            raise ValueError(
                f"columns: the column {column!r} is given to both {taken} and {role}; "
                "give each role its own column"
            )
        mapping[role] = column
    return mapping


def columns_text(columns: Mapping[str, str]) -> str:
    """A mapping as :func:`parse_columns` reads it (``dataset=task,...``)."""
    return ",".join(f"{role}={column}" for role, column in columns.items())


def header_names(content: bytes, *, filename: str = "", limit: int = 200) -> tuple[str, ...]:
    """The names in the first non-empty row of a CSV, or of an ``.xlsx`` workbook's
    first sheet (a pandas index column's empty name dropped), the first ``limit``: what
    a mapping may choose from. Empty for a file that is neither."""
    try:
        if is_xlsx(content, filename):
            cells = _xlsx_first_row(content)
        else:
            text = _text(content[: 1 << 16])
            first = _header_line(text)
            cells = next(csv.reader([first], delimiter=_delimiter_of(first)), [])
    except ResultsCsvError:
        return ()
    return tuple(name for name in (cell.strip() for cell in cells) if name)[:limit]


def is_xlsx(content: bytes, filename: str) -> bool:
    return filename.lower().endswith(".xlsx") and content[:4] == _XLSX_MAGIC


def needs_tidying(
    content: bytes, *, filename: str, models_as_rows: bool = False, nan_missing: bool = False
) -> bool:
    """Whether a results file is read through :func:`results_table` rather than
    straight by the parser: a workbook, NaN cells read as missing, one row per model, or
    a header that starts with an unnamed column (pandas' index). One rule for the
    command, the web form and the API."""
    # Only whether to tidy: tidy_results_table's _has_index_column decides on the rows.
    head = content.removeprefix(b"\xef\xbb\xbf")[:64].lower()
    return (
        models_as_rows
        or nan_missing
        or is_xlsx(content, filename)
        or head.startswith((b",", b";", b"unnamed: 0", b'""'))
    )


def tidy_results_table(
    content: bytes,
    *,
    filename: str,
    columns: Mapping[str, str] | None = None,
    models_as_rows: bool = False,
    nan_missing: bool = False,
    max_rows: int | None = None,
) -> TidyTable:
    """The table of ``content`` (CSV text, or an ``.xlsx`` workbook) as a results file.

    ``nan_missing``: a ``NaN`` (``<NA>``, ``NA``) cell is a missing result, and a long
    row without a score (NaN or empty, as a failed run leaves it) is left out; without
    it such cells reach the parser, which refuses them as not finite numbers.

    Raises ``ValueError`` naming what cannot be done (a mapped column the header lacks,
    a mapping of a table read as one row per model), :class:`ResultsCsvError` for text
    that is not CSV or more than ``max_rows`` rows.
    """
    if columns and models_as_rows:
        # one row per model has no dataset, algorithm or score column to map
        raise ValueError(
            "columns cannot be mapped in a table read as one row per model (its first "
            "column is the model, every other column a dataset): choose one"
        )
    rows = _xlsx_rows(content, max_rows) if is_xlsx(content, filename) else None
    delimiter = ","
    if rows is None:
        text = _text(content)
        delimiter = _delimiter_of(_header_line(text))
        rows = _csv_rows(text, delimiter, max_rows)
    numbered = [(line, cells) for line, cells in rows if any(c.strip() for c in cells)]
    if not numbered:
        return TidyTable("", (), ())
    (header_line, header), body = numbered[0], numbered[1:]
    header = [cell.strip() for cell in header]
    notes: list[str] = []
    if _has_index_column(header, body):
        notes.append(_INDEX_NOTE)
        header = header[1:]
        body = [(line, cells[1:]) for line, cells in body]
    named: dict[str, str] = {}
    if columns:
        keep, roles = _mapped_indices(header, columns, notes)
        # A table read as one row per model has columns of its own making, not the file's.
        named = {} if models_as_rows else {r: header[i] for r, i in zip(roles, keep, strict=True)}
        header, body = roles, [(line, [_cell(cells, i) for i in keep]) for line, cells in body]
    out_rows: Iterable[tuple[int, list[str]]]
    if models_as_rows:
        out_header, out_rows = _models_as_rows(header, body, notes, nan_missing=nan_missing)
    elif nan_missing:
        out_header, out_rows = header, _missing_cells(header, body, notes)
    else:
        out_header, out_rows = header, body
    # The parser's own input, never a spreadsheet export (so not leaderboard.spreadsheet:
    # its formula defusing would change names): every cell quoted, quotes doubled.
    written = [_row(out_header, delimiter)]
    lines = [header_line]
    for line, cells in out_rows:
        written.append(_row(cells, delimiter))
        lines.append(line)
    return TidyTable("".join(written), tuple(lines), tuple(notes), named)


@dataclass(frozen=True)
class MappedCsv:
    """A CSV's mapped columns as a results file (UTF-8 bytes, which the parser decodes
    piece by piece), and where each of its lines came from."""

    content: bytes
    source_lines: Sequence[int]
    notes: tuple[str, ...]
    named: Mapping[str, str] = field(default_factory=dict)  # as TidyTable's

    @property
    def text(self) -> str:
        return self.content.decode("utf-8")


# Rows written between two encodings of the output: a few hundred kB of text at a time.
_MAPPED_BATCH = 10_000


def read_whole(content: bytes, *, filename: str, models_as_rows: bool) -> bool:
    """Whether a file is tidied whole (:func:`tidy_results_table`: a workbook, or one row
    per model) rather than streamed (:func:`streamed_results_text`)."""
    return models_as_rows or is_xlsx(content, filename)


def results_table(
    content: bytes,
    *,
    filename: str,
    columns: Mapping[str, str] | None = None,
    models_as_rows: bool = False,
    nan_missing: bool = False,
    max_rows: int | None = None,
) -> TidyTable | MappedCsv:
    """A file that :func:`needs_tidying` (or has ``columns`` to map) as the parser reads
    it, whole or streamed as :func:`read_whole` says: one reading for the command, the
    web form and the API."""
    if read_whole(content, filename=filename, models_as_rows=models_as_rows):
        return tidy_results_table(
            content,
            filename=filename,
            columns=columns,
            models_as_rows=models_as_rows,
            nan_missing=nan_missing,
            max_rows=max_rows,
        )
    return streamed_results_text(content, columns=columns, nan_missing=nan_missing)


class _NotAnIndex(Exception):
    """A first column that looked like pandas' index numbers a row otherwise."""


def streamed_results_text(
    content: bytes, *, columns: Mapping[str, str] | None = None, nan_missing: bool = False
) -> MappedCsv:
    """A CSV as :func:`tidy_results_table` reads it (a pandas index column left out,
    ``columns`` mapped, NaN cells read as missing), streamed: no row is held and the
    text is never whole in memory, so a million-row upload costs its output bytes and
    one int per line. A first column that looks like an index but is not one costs a
    second pass. One row per model and workbooks are :func:`tidy_results_table`'s.

    Raises ``ValueError`` for a mapped column the header lacks, :class:`ResultsCsvError`
    for text that is not UTF-8 CSV.
    """
    data = content.removeprefix(b"\xef\xbb\xbf")
    # Refuses text that is not UTF-8, naming its line; the text is then let go.
    delimiter = _delimiter_of(_header_line(_text(data)))
    try:
        return _streamed(data, delimiter, columns, nan_missing=nan_missing, index=True)
    except _NotAnIndex:
        pass
    except ValueError:
        # A mapped column the header lacks, said before the rows: of the header without
        # the index only if the rows do number themselves.
        rows = _numbered_rows(data, delimiter)
        next(rows, None)
        try:
            collections.deque(_index_dropped(rows), maxlen=0)
        except _NotAnIndex:
            pass
        else:
            raise
    return _streamed(data, delimiter, columns, nan_missing=nan_missing, index=False)


def _numbered_rows(data: bytes, delimiter: str) -> Iterator[tuple[int, list[str]]]:
    """The CSV's rows that are not blank, each with its line, one at a time."""
    reader = csv.reader(
        io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", newline=""), delimiter=delimiter
    )
    start = 1
    try:
        for cells in reader:
            line, start = start, reader.line_num + 1
            if "".join(cells).strip():  # as any(cell.strip() ...), without a call a cell
                yield line, cells
    except csv.Error as exc:
        raise ResultsCsvError([RowError(start, None, f"not readable CSV: {exc}")]) from None


def _streamed(
    data: bytes,
    delimiter: str,
    columns: Mapping[str, str] | None,
    *,
    nan_missing: bool,
    index: bool,
) -> MappedCsv:
    notes: list[str] = []
    rows = _numbered_rows(data, delimiter)
    first = next(rows, None)
    if first is None:
        return MappedCsv(b"", (), ())
    header_line, header = first[0], [cell.strip() for cell in first[1]]
    body: Iterable[tuple[int, list[str]]] = rows
    if index and _may_have_index(header):
        notes.append(_INDEX_NOTE)
        header, body = header[1:], _index_dropped(body)
    named: dict[str, str] = {}
    if columns:
        keep, roles = _mapped_indices(header, columns, notes)
        named = {role: header[i] for role, i in zip(roles, keep, strict=True)}
        header = roles
        body = ((line, [_cell(cells, i) for i in keep]) for line, cells in body)
    if nan_missing:
        body = _missing_cells(header, body, notes)
    chunks: list[bytes] = []
    batch = io.StringIO()
    # Quoted only where needed (the parser reads plain cells faster), except a row with
    # nothing in it, quoted whole as tidy_results_table writes every row (_row): to the
    # parser that is a row of empty cells, where ",," would be a blank line.
    writer = csv.writer(batch, delimiter=delimiter, lineterminator="\n")
    empty = csv.writer(batch, delimiter=delimiter, lineterminator="\n", quoting=csv.QUOTE_ALL)
    writer.writerow(header)
    lines = array.array("q", [header_line])
    for line, cells in body:
        (writer if "".join(cells).strip() else empty).writerow(cells)
        lines.append(line)
        if len(lines) % _MAPPED_BATCH == 0:
            chunks.append(batch.getvalue().encode("utf-8"))
            batch.seek(0)
            batch.truncate()
    chunks.append(batch.getvalue().encode("utf-8"))
    return MappedCsv(b"".join(chunks), lines, tuple(notes), named)


def _index_dropped(body: Iterable[tuple[int, list[str]]]) -> Iterator[tuple[int, list[str]]]:
    for i, (line, cells) in enumerate(body):
        if not cells or cells[0].strip() != str(i):  # _numbers_itself, inline: once a row
            raise _NotAnIndex
        yield line, cells[1:]


def _row(cells: list[str], delimiter: str) -> str:
    return delimiter.join('"' + cell.replace('"', '""') + '"' for cell in cells) + "\n"


def column_in_file(column: str | None, named: Mapping[str, str]) -> str | None:
    """A problem's column as the user's file names it: a mapped role (``score``, or the
    services' ``value`` for the score or rank) is the file's column with its role,
    ``result (the score)``; any other column is itself. The one place a mapped column
    is worded."""
    if column is None:
        return None
    role = column.lower()
    if role == "value":
        role = next((r for r in ("score", "rank") if r in named), role)
    return f"{named[role]} (the {role})" if role in named else column


def relocated_error(exc: ResultsCsvError, table: TidyTable | MappedCsv) -> ResultsCsvError:
    """The parser's refusal of ``table.text``, each problem at the user's own line and
    column (:func:`column_in_file`)."""

    def source(line: int) -> int:
        if not 1 <= line <= len(table.source_lines):
            return line
        return table.source_lines[line - 1]

    def mentioned(match: re.Match[str]) -> str:
        return f"line {source(int(match.group(1)))}"

    errors = [
        RowError(
            source(error.line),
            column_in_file(error.column, table.named),
            re.sub(r"\bline (\d+)", mentioned, error.message),
            error.kind,
        )
        for error in exc.errors
    ]
    if exc.partial is None:
        return type(exc)(errors, total=exc.total)
    return type(exc)(errors, total=exc.total, partial=relocated_parsed(exc.partial, table))


def relocated_parsed(parsed: ParsedResults, table: TidyTable | MappedCsv) -> ParsedResults:
    """What the parser read of ``table.text``, each record and left-out result at the
    user's own line (as :func:`relocated_error` does for a refusal)."""
    if not table.source_lines:
        return parsed
    source = np.asarray(table.source_lines, dtype=np.int64)
    lines = np.clip(parsed.lines.astype(np.int64), 1, len(source)) - 1
    return replace(
        parsed,
        lines=source[lines],
        dropped=relocated_error(ResultsCsvError(list(parsed.dropped)), table).errors
        if parsed.dropped
        else (),
        standard_errors={
            table.source_lines[line - 1] if 1 <= line <= len(source) else line: error
            for line, error in parsed.standard_errors.items()
        },
    )


_LINE_BREAK = re.compile("\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


def _header_line(text: str) -> str:
    """The first line with more than white space in it, lines broken where
    ``str.splitlines`` breaks them (found lazily: a large file is not split whole). Its
    delimiter is the file's (:func:`_delimiter_of`), whichever reading reads the rest."""
    start = 0
    for end in _LINE_BREAK.finditer(text):
        if (line := text[start : end.start()]).strip():
            return line
        start = end.end()
    return line if (line := text[start:]).strip() else ""


def _text(content: bytes) -> str:
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = content[: exc.start].count(b"\n") + 1
        raise ResultsCsvError(
            [RowError(line, None, "the file is not UTF-8 text: save it as CSV UTF-8")]
        ) from None


def _csv_rows(text: str, delimiter: str, max_rows: int | None) -> list[tuple[int, list[str]]]:
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    rows: list[tuple[int, list[str]]] = []
    start = 1
    try:
        for cells in reader:
            if max_rows is not None and len(rows) > max_rows:
                raise ResultsCsvError(
                    [RowError(start, None, f"more than {max_rows} rows: split the file")]
                )
            rows.append((start, cells))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise ResultsCsvError([RowError(start, None, f"not readable CSV: {exc}")]) from None
    return rows


def _xlsx_rows(content: bytes, max_rows: int | None) -> list[tuple[int, list[str]]]:
    """The first sheet's rows as text (numbers as Python writes them, so none is
    rounded); ``max_rows`` bounds the rows read, and the workbook's zip is bounded as an
    uploaded folder is (:func:`_workbook_bounded`) before openpyxl unpacks any of it."""
    book = _workbook_opened(content)
    try:
        rows = []
        for number, values in enumerate(_sheet_rows(book), start=1):
            if max_rows is not None and number > max_rows + 1:
                raise ResultsCsvError(
                    [RowError(number, None, f"more than {max_rows} rows: split the sheet")]
                )
            rows.append((number, [_cell_text(v) for v in values]))
        return rows
    finally:
        book.close()


def _xlsx_first_row(content: bytes) -> list[str]:
    """The first non-empty row of the first sheet, bounded as :func:`_xlsx_rows` is."""
    book = _workbook_opened(content)
    try:
        for values in _sheet_rows(book):
            cells = [_cell_text(v) for v in values]
            if any(c.strip() for c in cells):
                return cells
        return []
    finally:
        book.close()


def _sheet_rows(book: Any) -> Iterator[tuple]:
    """The first sheet's rows as openpyxl reads them, one at a time: it reads the sheet's
    part lazily, so a damaged part fails here, in openpyxl's many kinds of error."""
    try:
        rows = book.worksheets[0].iter_rows(values_only=True)
    except Exception as exc:
        raise _damaged_workbook(exc) from None
    while True:
        try:
            values = next(rows)
        except StopIteration:
            return
        except Exception as exc:
            raise _damaged_workbook(exc) from None
        yield values


def _workbook_opened(content: bytes) -> Any:
    """The workbook, read-only, once its zip is bounded (:func:`_workbook_bounded`); a
    damaged one is a problem of line 1."""
    from openpyxl import load_workbook

    _workbook_bounded(content)
    try:
        return load_workbook(io.BytesIO(content), read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many kinds for a damaged workbook
        raise _damaged_workbook(exc) from None


def _damaged_workbook(exc: Exception) -> ResultsCsvError:
    return ResultsCsvError(
        [RowError(1, None, f"not a readable .xlsx workbook: {type(exc).__name__}")]
    )


def _workbook_bounded(content: bytes) -> None:
    """Refuse a workbook whose zip declares more entries or unpacked bytes than an
    uploaded folder may hold, or a part that expands like a zip bomb."""
    try:
        with zipfile.ZipFile(io.BytesIO(content)) as archive:
            infos = archive.infolist()
    except DAMAGED_ZIP_ERRORS:
        return  # openpyxl says it is not a readable workbook
    problems = declared_size_problems(infos, max_ratio=MAX_COMPRESSION_RATIO)
    if problems:
        raise ResultsCsvError(
            [
                RowError(1, None, f"the .xlsx workbook {f'part {part!r} ' if part else ''}{text}")
                for part, text in problems
            ]
        )


def _cell_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _may_have_index(header: list[str]) -> bool:
    return len(header) >= 2 and header[0].lower() in _INDEX_HEADERS


def _numbers_itself(cells: list[str], i: int) -> bool:
    """Whether the ``i``-th row below the header holds ``i`` in its first cell."""
    return bool(cells) and cells[0].strip() == str(i)


def _has_index_column(header: list[str], body: list[tuple[int, list[str]]]) -> bool:
    """pandas' default index: an unnamed first column holding 0, 1, 2, ... in order."""
    return _may_have_index(header) and all(
        _numbers_itself(cells, i) for i, (_, cells) in enumerate(body)
    )


def _mapped_indices(
    header: list[str], columns: Mapping[str, str], notes: list[str]
) -> tuple[list[int], list[str]]:
    """Where each mapped column is in the header, and its role; the columns left out
    are said in ``notes``. Raises ``ValueError`` for a column the header lacks."""
    lowered = [name.lower() for name in header]
    keep = []
    for role, column in columns.items():
        if column.lower() not in lowered:
            raise ValueError(
                f"columns: the file has no column {column!r} (for {role}); its columns are "
                f"{', '.join(header[:30])}"
            )
        keep.append(lowered.index(column.lower()))
    kept = set(keep)
    left = [name or f"#{i + 1}" for i, name in enumerate(header) if i not in kept]
    if left:
        shown = ", ".join(left[:20]) + (f" and {len(left) - 20} more" if len(left) > 20 else "")
        notes.append(f"columns left out (not mapped): {shown}")
    return keep, list(columns)


def _cell(cells: list[str], i: int) -> str:
    return cells[i] if i < len(cells) else ""


def _is_missing(cell: str) -> bool:
    return cell.strip().lower() in MISSING_CELLS


def _missing_cells(
    header: list[str], body: Iterable[tuple[int, list[str]]], notes: list[str]
) -> Iterator[tuple[int, list[str]]]:
    """NaN cells: a wide file's are empty (no result); a long file's rows without a
    score (NaN, or empty as a failed run leaves it) are left out (a missing result is a
    missing row). Row by row; what was done is added to ``notes`` once the rows are out."""
    roles = [name.lower() for name in header]
    value_at = next((roles.index(r) for r in ("score", "value", "rank") if r in roles), None)
    long_at = value_at if "algorithm" in roles else None
    dropped = array.array("q")
    blanked = 0
    for line, cells in body:
        if long_at is not None:
            value = cells[long_at].strip().lower() if long_at < len(cells) else ""
            if not value or value in MISSING_CELLS:  # _is_missing, or empty: once a row
                dropped.append(line)
                continue
            yield line, cells
        else:
            missing = [i for i, c in enumerate(cells) if i > 0 and _is_missing(c)]
            if missing:
                cells = ["" if i in missing else c for i, c in enumerate(cells)]
                blanked += len(missing)
            yield line, cells
    if dropped:
        shown = ", ".join(map(str, dropped[:20])) + ("..." if len(dropped) > 20 else "")
        notes.append(f"{len(dropped)} rows without a score (empty or NaN) left out: lines {shown}")
    if blanked:
        notes.append(f"{blanked} NaN cells read as missing results")


def _models_as_rows(
    header: list[str], body: list[tuple[int, list[str]]], notes: list[str], *, nan_missing: bool
) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """One row per model, one column per dataset: as long rows, each at its model's line."""
    datasets = header[1:]
    rows = []
    missing = 0
    for line, cells in body:
        model = _cell(cells, 0)
        for j, dataset in enumerate(datasets, start=1):
            value = _cell(cells, j).strip()
            if not value:
                continue
            if nan_missing and _is_missing(value):
                missing += 1
                continue
            rows.append((line, [dataset, model, value]))
    if missing:
        notes.append(f"{missing} NaN cells read as missing results")
    return ["dataset", "algorithm", "score"], rows
