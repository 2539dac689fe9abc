"""CSV written for spreadsheets: the one place that writes CSV, with formula cells defused.

A spreadsheet evaluates a cell that starts with ``=``, ``+``, ``-`` or ``@`` (and
some also after a leading tab or carriage return) as a formula, so a name such as
``=cmd|'/c calc'!A1`` would run on the reader's machine (OWASP "CSV injection"). Text
cells that start with one of those characters get a leading apostrophe, which
spreadsheets show as text and ``pandas.read_csv`` reads back as part of the string.
Numbers are written as numbers (``-0.5`` stays a number). Every CSV the project
writes goes through :func:`csv_text`; ``tests/security`` checks that no other module
opens a ``csv.writer``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r", "\n")


def spreadsheet_cell(value: Any) -> Any:
    """``value`` safe to put in a CSV cell: text that a spreadsheet would evaluate is
    prefixed with ``'``; ``None`` becomes an empty cell; numbers are left alone."""
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(FORMULA_TRIGGERS):
        return "'" + value
    return value


def spreadsheet_comment(text: str) -> str:
    """A ``#`` comment line's text with no comma-separated piece that starts a formula.

    ``pandas.read_csv(comment="#")`` skips the line, but a spreadsheet splits it at
    commas, so each piece is defused like a cell.
    """
    pieces = text.replace("\r", " ").replace("\n", " ").split(",")
    return ",".join(
        piece if not piece.lstrip(" ").startswith(FORMULA_TRIGGERS) else "'" + piece.lstrip(" ")
        for piece in pieces
    )


def csv_text(columns: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> str:
    """A header and one line per row (``\\n`` line ends), every cell defused."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([spreadsheet_cell(name) for name in columns])
    for row in rows:
        writer.writerow([spreadsheet_cell(row.get(name)) for name in columns])
    return out.getvalue()


def csv_stream(
    columns: Sequence[str], rows: Iterable[Mapping[str, Any]], *, chunk_rows: int = 1000
) -> Iterator[str]:
    """:func:`csv_text` in pieces of ``chunk_rows`` lines, for a streamed response: the
    header once, every cell defused the same way."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([spreadsheet_cell(name) for name in columns])
    count = 0
    for row in rows:
        writer.writerow([spreadsheet_cell(row.get(name)) for name in columns])
        count += 1
        if count >= chunk_rows:
            yield out.getvalue()
            out.seek(0)
            out.truncate()
            count = 0
    yield out.getvalue()
