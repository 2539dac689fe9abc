"""CSV written for spreadsheets: the one place that writes CSV, with formula cells defused.

A spreadsheet evaluates a cell that starts with ``=``, ``+``, ``-`` or ``@`` (and
some also after a leading tab or carriage return) as a formula, so a name such as
``=cmd|'/c calc'!A1`` would run on the reader's machine (OWASP "CSV injection"). Text
cells that start with one of those characters get a leading apostrophe, which
spreadsheets show as text and ``pandas.read_csv`` reads back as part of the string.
The check looks past leading spaces and quotes (``  =1``, ``"=1``) and reads the
first character in its compatibility form (NFKC), so full-width ``＝``, ``＋``, ``－``,
``＠`` and the small forms count too, as do the minus sign U+2212 and ``|`` (DDE).
Numbers are written as numbers (``-0.5`` stays a number). Every CSV the project
writes goes through :func:`csv_text`; ``tests/security`` checks that no other module
opens a ``csv.writer``.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r", "\n")
# What a spreadsheet may skip before it reads a formula: whitespace of any width, quotes.
_LEADING = re.compile("[\\s\"'\uff02\uff07]*")
# The first character after those, NFKC-folded (full-width "＝" is "="), that starts a
# formula: the triggers above, the minus sign, and "|" of DDE payloads.
_FORMULA_STARTS = frozenset(FORMULA_TRIGGERS) | {"\u2212", "|"}


def formula_risk(text: str) -> bool:
    """Whether a spreadsheet could read ``text`` as a formula (see the module's notes)."""
    if text.startswith(FORMULA_TRIGGERS):
        return True
    leading = _LEADING.match(text)
    assert leading is not None  # the pattern matches the empty string
    head = text[leading.end() :][:1]
    return bool(head) and unicodedata.normalize("NFKC", head)[:1] in _FORMULA_STARTS


def spreadsheet_cell(value: Any) -> Any:
    """``value`` safe to put in a CSV cell: text that a spreadsheet would evaluate is
    prefixed with ``'``; ``None`` becomes an empty cell; numbers are left alone."""
    if value is None:
        return ""
    if isinstance(value, str) and formula_risk(value):
        return "'" + value
    return value


def spreadsheet_comment(text: str) -> str:
    """A ``#`` comment line's text with no comma-separated piece that starts a formula.

    ``pandas.read_csv(comment="#")`` skips the line, but a spreadsheet splits it at
    commas, so each piece is defused like a cell.
    """
    pieces = text.replace("\r", " ").replace("\n", " ").split(",")
    return ",".join(
        piece if not formula_risk(piece) else "'" + piece.lstrip(" ") for piece in pieces
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
