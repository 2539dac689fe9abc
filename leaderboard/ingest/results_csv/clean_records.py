"""The quick read of a clean long or ranking file: a block of rows at a time, as columns.

Most uploads are clean: one record a line, every cell as the checks want it. Such a file
is read here with C-speed column operations (``zip``, ``map``, ``dict.fromkeys``)
instead of a Python call per cell, and gives the same columns, codes and first-seen
label order as the cell-by-cell read. Anything this read is not sure of (a blank or
multi-line row, a bad field count, an empty cell, a name with a control character, a
number ``float`` takes but the checks refuse, algorithm columns, a ``;`` file, too many
rows) raises :class:`NotClean` without recording an error: the caller then reads the
file again cell by cell, which words every message.
"""

from __future__ import annotations

import array
import itertools
import math
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from common.text import control_character_problem
from leaderboard.ingest.results_csv.base import _Columns

BLOCK_ROWS = 65536  # rows held as Python strings at once (about 20 MB)


class NotClean(Exception):
    """The quick read stopped: read the file cell by cell."""


def _stripped(cells: Sequence[str]) -> list[str]:
    names = list(map(str.strip, cells))
    if "" in names:
        raise NotClean
    return names


def _codes(names: list[str], labels: dict[str, int], check: Callable[[str], bool]) -> array.array:
    """Codes of ``names`` in ``labels``, adding new ones in order of first appearance."""
    for name in dict.fromkeys(names):
        if name not in labels:
            if not check(name):
                raise NotClean
            labels[name] = len(labels)
    return array.array("q", map(labels.__getitem__, names))


def _plain_name(name: str) -> bool:
    return control_character_problem(name) is None


def _values(cells: Sequence[str], ranking: bool) -> array.array:
    raws = _stripped(cells)
    joined = "".join(raws)
    if not joined.isascii() or "_" in joined:  # what _plain_number refuses
        raise NotClean
    try:
        values = array.array("d", map(float, raws))
    except ValueError:
        raise NotClean from None
    column = np.frombuffer(values, dtype=np.float64)
    if not np.isfinite(column).all() or (ranking and (column <= 0).any()):
        raise NotClean
    return values


def _folds(cells: Sequence[str]) -> array.array:
    raws = _stripped(cells)  # an empty fold (no fold) is for the cell-by-cell read
    joined = "".join(raws)
    if not (joined.isascii() and joined.isdigit()) or max(map(len, raws)) > 9:
        raise NotClean
    return array.array("q", map(int, raws))


def _block_columns(lines: list[str], width: int) -> list[list[str]]:
    """The fields of a block of lines, by column: ``split`` where ``csv`` would find the
    same fields (no quote, no carriage return but in a line end, no NUL)."""
    text = "".join(lines)
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    if '"' in text or "\r" in text or "\x00" in text:
        raise NotClean
    # Every line holds the header's field count: then the fields of all lines, in order,
    # are column after column.
    if set(map(str.count, lines, itertools.repeat(","))) != {width - 1}:
        raise NotClean
    fields = text.removesuffix("\n").replace("\n", ",").split(",")
    if len(fields) != len(lines) * width:
        raise NotClean
    return [fields[c::width] for c in range(width)]


def clean_records(
    lines: Iterator[str],
    *,
    first_line: int,
    width: int,
    dataset: int,
    algorithm: int,
    value: int,
    fold: int | None,
    metric: int | None,
    ranking: bool,
    max_rows: int | None,
    metric_check: Callable[[str], str | None] | None,
    found,
) -> tuple[_Columns, int]:
    """Every data row as columns (and ``found``'s labels filled), with the first line of
    a fold (0 for none); raises :class:`NotClean` where the cell-by-cell read must go.

    ``lines`` are the file's lines after the header, the first of them ``first_line``.
    """
    cols = _Columns.empty()
    limit = max_rows if max_rows is not None else math.inf
    count = 0
    with_fold = 0

    def metric_ok(name: str) -> bool:
        return _plain_name(name) and not (metric_check and metric_check(name))

    while block := list(itertools.islice(lines, BLOCK_ROWS)):
        n = len(block)
        count += n
        if count > limit:
            raise NotClean
        columns = _block_columns(block, width)
        del block
        cols.lines.extend(range(first_line, first_line + n))
        cols.datasets.extend(_codes(_stripped(columns[dataset]), found.datasets, _plain_name))
        cols.algorithms.extend(_codes(_stripped(columns[algorithm]), found.algorithms, _plain_name))
        cols.values.extend(_values(columns[value], ranking))
        if fold is not None:
            cols.folds.extend(_folds(columns[fold]))
            with_fold = with_fold or first_line
        else:
            cols.folds.extend(array.array("q", [-1]) * n)
        if metric is not None:
            cols.metrics.extend(_codes(_stripped(columns[metric]), found.metrics, metric_ok))
            found.with_metric = found.with_metric or first_line
        else:
            cols.metrics.extend(array.array("q", [-1]) * n)
        first_line += n
    if count == 0:
        raise NotClean  # "a header but no data rows" is worded cell by cell
    return cols, with_fold
