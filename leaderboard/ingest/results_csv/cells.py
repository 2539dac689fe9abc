"""The text of one file and one cell: decoding, delimiters, numbers written plainly, and
which column a header names (names without control or invisible characters: common/text.py)."""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable

# The rule itself is shared plumbing; the parsers here name it from this module.
from common.text import control_character_problem as control_character_problem
from leaderboard.ingest.results_csv.records import (
    COLUMN_ALIASES,
    Format,
    ResultsCsvError,
    RowError,
)
from leaderboard.typo_guard import NameIndex

_LONG_LAYOUT = "dataset,algorithm,score[,fold][,metric]"
_RANKING_LAYOUT = "dataset,algorithm,rank"
_WIDE_LAYOUT = "dataset,<algorithm 1>,<algorithm 2>,..."
_EXPECTED = f"expected {_LONG_LAYOUT} (long), {_RANKING_LAYOUT} (ranking) or {_WIDE_LAYOUT} (wide)"
_RANK_TOL = 1e-9
_BOM = b"\xef\xbb\xbf"


# --- implementation -----------------------------------------------------------------


def _decode(data: bytes) -> str:
    data = data.removeprefix(_BOM)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ResultsCsvError(
            [RowError(line, None, "the file is not valid UTF-8 text: save it as UTF-8 CSV")]
        ) from None


def _csv_problem(exc: csv.Error) -> str:
    message = f"malformed CSV: {exc}"
    if "expected after" in str(exc):
        message += (
            " (a quoted field must end with the quote: nothing, not even a space, may follow it)"
        )
    elif "end of data" in str(exc):
        message += " (a quote opened here is never closed)"
    return message


_PLAIN_NUMBER = " (write numbers in ASCII digits with a '.' decimal point, e.g. 0.5 or 1e-3)"


def _plain_number(raw: str) -> bool:
    """Whether a text ``float`` accepted is written as people and pandas write numbers:
    ``float`` also takes ``1_0`` and non-ASCII digits (full-width ``１``, Arabic-Indic
    ``١``), which a reader of the file would not see as the number stored."""
    return raw.isascii() and "_" not in raw


def plain_number(text: str) -> float | None:
    """``text`` as a finite number written plainly (see :func:`_plain_number`), or None.

    No pattern: ``float`` reads the text in one pass however long it is, where a regex
    of optional parts (digits, an optional point, digits; spaces, an optional ``%``,
    spaces) backtracks quadratically over a long run of digits or spaces that ends in
    something else.
    """
    try:
        value = float(text)
    except ValueError:
        return None
    if not (_plain_number(text) and _isfinite(value)):
        return None
    return value


def _comma_hint(raw: str) -> str:
    if "," not in raw:
        return ""
    return (
        " (a decimal comma is read only in files with ';' between fields: write "
        f"{raw.replace(',', '.')}, or save the file with semicolons)"
    )


_MARKS = {",": "comma", ".": "point"}
_isfinite = math.isfinite  # a module global: one lookup less per cell
# A row of nothing but these is blank (no field holds anything) whatever the delimiter.
_BLANK = ' \t\r\n,;"'


def _delimiter_of(header: str) -> str:
    """``;`` when it splits the header line into more fields than ``,`` does, else ``,``.

    The header decides, because every layout's header is known text: European
    spreadsheets save ``dataset;algorithm;score``, a comma-separated header may hold a
    ``;`` inside a name and still splits at least as well on commas.
    """

    def width(delimiter: str) -> int:
        try:
            return len(next(csv.reader([header], delimiter=delimiter), []))
        except csv.Error:  # a quote opened in the header: the reader will name it
            return 0

    return ";" if width(";") > width(",") else ","


# Every column name of the long and ranking layouts (wide files have "dataset" only).
_ROLE_NAMES = ("dataset", "algorithm", "score", "value", "fold", "metric", "rank")


def _layout_of(names: list[str]) -> Format | None:
    """The layout a header's exact column names declare, or None."""
    lowered = {name.lower() for name in names}
    if {"dataset", "algorithm"} <= lowered:
        if "rank" in lowered:
            return "ranking"
        if lowered & {"score", "value"}:
            return "long"
        return None
    if "dataset" in lowered and len(names) >= 2:
        return "wide"
    return None


def column_name(header_cell: str) -> str:
    """The column a header cell names: its lower case, another spelling read as the name
    (``COLUMN_ALIASES``: ``license`` is ``licence``)."""
    lowered = header_cell.lower()
    return COLUMN_ALIASES.get(lowered, lowered)


def _role_typos(names: list[str], roles: Iterable[str]) -> dict[int, str]:
    """Header cells that are no column name but one typo from one of ``roles`` the header
    lacks (``typo_guard``'s rule: case, punctuation, one edit), as index -> that name.

    Hashing only (``NameIndex``): linear in the header, however many columns it has.
    """
    present = {column_name(name) for name in names}
    index = NameIndex.of(role for role in roles if role not in present)
    typos: dict[int, str] = {}
    if not index.names:
        return typos
    for i, name in enumerate(names):
        if name.lower() in _ROLE_NAMES or name.lower() in COLUMN_ALIASES:
            continue
        role = index.suggest(name.lower())
        if role is not None and role not in typos.values():
            typos[i] = role
    return typos


def _looks_like_a_number(raw: str) -> bool:
    try:
        float(raw.replace(",", ".", 1))
    except ValueError:
        return False
    return True


def _rank_problem(dataset: str, rank: float, size: int, position: int, lines: list[int]) -> str:
    expected = position + (size - 1) / 2
    rule = (
        "ranks fill positions 1, 2, ... in order; tied algorithms share the mean of their positions"
    )
    if size > 1:
        return (
            f'dataset "{dataset}": {size} algorithms share rank {rank:g} '
            f"(lines {', '.join(map(str, lines))}); a tie for positions {position}..{position + size - 1} "
            f"is written as rank {expected:g} for each ({rule})"
        )
    after = "as the best listed rank" if position == 1 else f"after positions 1..{position - 1}"
    return f'dataset "{dataset}": rank {rank:g} {after}, expected {position} ({rule})'


_PARAMETER_SCALE = {"": 1, "k": 10**3, "m": 10**6, "b": 10**9, "t": 10**12}


def parameter_count(value: object, *, scale: int = 1) -> int | None:
    """A parameter count as files write it: an integer, ``"7000000000"``, ``"7B"``,
    ``"1.5b"``, ``"350M"`` (``scale`` multiplies a bare number: 10**9 for a field in
    billions); None for anything else, a count below 1 or beyond 2**63."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float):
        number = value * scale
    elif isinstance(value, int):  # one past 2**63 may be past a float too (float() raises)
        number = float(value) * scale if abs(value) < 2**63 else math.inf
    elif isinstance(value, str) and len(value) <= 24:
        text = value.strip().replace(",", "").replace("_", "")
        unit = text[-1:].lower() if text[-1:].isalpha() else ""
        if unit not in _PARAMETER_SCALE:
            return None
        digits = text[: len(text) - len(unit)].strip()
        whole, point, fraction = digits.partition(".")
        if not _ascii_digits(whole) or (point and not _ascii_digits(fraction)):
            return None
        number = float(digits) * (_PARAMETER_SCALE[unit] if unit else scale)
    else:
        return None
    if not math.isfinite(number) or not 1 <= number < 2**63:
        return None
    return round(number)


def _ascii_digits(text: str) -> bool:
    return text.isascii() and text.isdigit()
