"""The parser of the three layouts (long, wide, ranking): the header decides the
layout, then that layout's reader (long_layout, wide_layout) reads the rows."""

from __future__ import annotations

import csv
import itertools
from typing import IO

from leaderboard.ingest.results_csv.base import _TooManyRows
from leaderboard.ingest.results_csv.cells import (
    _BLANK,
    _EXPECTED,
    _ROLE_NAMES,
    _delimiter_of,
    _layout_of,
    _role_typos,
)
from leaderboard.ingest.results_csv.clean_records import NotClean
from leaderboard.ingest.results_csv.long_layout import _LongParser
from leaderboard.ingest.results_csv.records import (
    UNRECOGNISED_COLUMNS,
    Format,
    ParsedResults,
    ResultsCsvError,
    RowError,
)
from leaderboard.ingest.results_csv.wide_layout import _WideParser


class _Parser(_LongParser, _WideParser):
    """A results file's reader: :meth:`parse` reads the header, then the rows."""

    def parse(self, stream: IO[str]) -> ParsedResults:
        """The file read quickly if it is clean, else (or if it cannot be re-read) cell
        by cell, which finds and words every problem."""
        if not stream.seekable():
            return self._parse(stream, quick=False)
        try:
            return self._parse(stream, quick=True)
        except NotClean:
            stream.seek(0)
            return self._parse(stream, quick=False)

    def _parse(self, stream: IO[str], *, quick: bool) -> ParsedResults:
        lines = iter(stream)
        blank = 0
        header_text = ""
        for text in lines:
            if text.strip(_BLANK):
                header_text = text
                break
            blank += 1
        self.delimiter = _delimiter_of(header_text)
        # Blank lines before the header are fed back as empty lines, never kept: line
        # numbers stay those an editor shows, and a file of blank lines costs no memory.
        reader = csv.reader(
            itertools.chain(itertools.repeat("\n", blank), [header_text], lines),
            delimiter=self.delimiter,
            skipinitialspace=True,
            strict=True,
        )
        header = self._read_header(reader)
        # The reader has taken the header's lines and no more: the rest is ``lines``.
        self.raw_lines = lines if quick else None
        names = [cell.strip() for cell in header]
        format = self.format or self._detect(names)
        try:
            if format == "wide":
                result = self._parse_wide(reader, names)
            else:
                result = self._parse_records(reader, names, format)
        except _TooManyRows:
            raise ResultsCsvError(self.errors.kept, self.errors.total) from None
        return result

    def _detect(self, names: list[str]) -> Format:
        """The layout the header declares, decided once, before any row is read.

        A header cell one typo away from a column name (``algoritm``) is read as the name
        it was meant to be, if that changes the layout: without it, ``dataset,algoritm,
        score`` would be a wide file whose every row fails ("'RandomForest' is not a
        number"). The column checks of that layout then name the typo once.
        """
        layout = _layout_of(names)
        # More cells than there are column names is no long or ranking header, typo or
        # not: a wide header with thousands of algorithms is then not searched at all.
        if len(names) <= len(_ROLE_NAMES):
            typos = _role_typos(names, _ROLE_NAMES)
        else:
            typos = _role_typos(names, ("dataset",)) if layout is None else {}
        if typos:
            meant = _layout_of([typos.get(i, name) for i, name in enumerate(names)])
            if meant is not None and meant != layout:
                self.misread_as_wide = layout == "wide"
                return meant
        if layout is not None:
            return layout
        lowered = {name.lower() for name in names}
        kind = UNRECOGNISED_COLUMNS
        if {"dataset", "algorithm"} <= lowered:
            message = (
                f"dataset and algorithm columns but no score (or value) or rank column; {_EXPECTED}"
            )
        elif len(names) == 1 and "\t" in names[0]:
            message = (
                "the fields of the header are separated by tabs: save the file as CSV, "
                f"with commas or semicolons between fields; {_EXPECTED}"
            )
            kind = ""  # one cell: no column to map
        else:
            message = f"unrecognised header {','.join(names)!r}; {_EXPECTED}"
        raise ResultsCsvError([RowError(self.header_line, None, message, kind)])
