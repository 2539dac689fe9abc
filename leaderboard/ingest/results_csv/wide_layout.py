"""The wide layout: a row per dataset, a column per algorithm."""

from __future__ import annotations

import array
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field

from leaderboard.ingest.results_csv.base import _Columns, _ParserBase, _TooManyRows
from leaderboard.ingest.results_csv.cells import (
    _LONG_LAYOUT,
    _RANKING_LAYOUT,
    _WIDE_LAYOUT,
    _looks_like_a_number,
    _role_typos,
    control_character_problem,
)
from leaderboard.ingest.results_csv.records import (
    UNRECOGNISED_COLUMNS,
    ParsedResults,
    ResultsCsvError,
    RowError,
)


@dataclass
class _WideCells:
    """Per algorithm column of a wide file: whether any cell is a number, and its first
    text cell as (line, text); together they tell a long file misread as wide."""

    n_columns: int
    has_number: list[bool] = field(init=False)
    first_text: dict[int, tuple[int, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.has_number = [False] * self.n_columns


class _WideParser(_ParserBase):
    def _parse_wide(self, reader: Iterator[list[str]], names: list[str]) -> ParsedResults:
        i_dataset, algorithm_columns = self._wide_header(names)
        cols = _Columns.empty()
        datasets: dict[str, int] = {}
        dataset_lines: dict[str, int] = {}
        coded = list(enumerate(algorithm_columns))
        cells = _WideCells(n_columns=len(coded))
        for line, row in self._rows(reader, len(names), i_dataset, row_is="dataset"):
            dataset = self._wide_dataset(row[i_dataset], names[i_dataset], line, dataset_lines)
            code = -1 if dataset is None else datasets.setdefault(dataset, len(datasets))
            self._wide_cells(row, line, coded, code, cells, cols)
        errors = self.errors
        if not errors.total and not cols.lines:
            errors.add(self.header_line, None, "no results: every algorithm cell is empty")
        told = errors.total
        if errors.total and self.format is None:
            self._check_wide_layout(cells.first_text, cells.has_number, algorithm_columns)
        # A file that may not be wide at all (the layout check spoke) has no rows to trust.
        trusted = errors.total == told
        cols.folds = array.array("q", [-1]) * len(cols.lines)
        cols.metrics = cols.folds
        lines, d, a, values, folds, k = cols.arrays()
        result = ParsedResults(
            format="wide",
            kind="score",
            datasets=tuple(datasets),
            algorithms=tuple(name for _, name in algorithm_columns),
            metrics=(),
            has_folds=False,
            lines=lines,
            dataset_codes=d,
            algorithm_codes=a,
            values=values,
            folds=folds,
            metric_codes=k,
        )
        if errors.total:
            raise ResultsCsvError(errors.kept, errors.total, partial=result if trusted else None)
        return result

    def _wide_header(self, names: list[str]) -> tuple[int, list[tuple[int, str]]]:
        """The dataset column and the (index, name) of each algorithm column, or raise
        with every problem of the header."""
        line = self.header_line
        problems: list[RowError] = []
        dataset_columns = [i for i, name in enumerate(names) if name.lower() == "dataset"]
        typos = _role_typos(names, ("dataset",)) if not dataset_columns else {}
        for index in typos:
            problems.append(
                RowError(line, names[index], self._typo_problem(names[index], "dataset", "wide"))
            )
        if not dataset_columns and not typos:
            problems.append(
                RowError(
                    line, "dataset", f"missing required column; wide files have {_WIDE_LAYOUT}"
                )
            )
        elif len(dataset_columns) > 1:
            first, second = dataset_columns[:2]
            problems.append(
                RowError(
                    line, names[second], f"appears twice (columns {first + 1} and {second + 1})"
                )
            )
        skipped = set(dataset_columns) | set(typos)
        algorithm_columns, column_problems = self._algorithm_columns(names, skipped)
        problems += column_problems
        if not problems and not algorithm_columns:
            problems.append(
                RowError(line, None, f"no algorithm columns; wide files have {_WIDE_LAYOUT}")
            )
        if problems:
            raise ResultsCsvError(problems)
        return dataset_columns[0], algorithm_columns

    def _algorithm_columns(
        self, names: list[str], skipped: set[int]
    ) -> tuple[list[tuple[int, str]], list[RowError]]:
        """A wide header's algorithm columns as (index, name), and its problems."""
        line = self.header_line
        problems: list[RowError] = []
        seen: dict[str, int] = {}
        algorithm_columns: list[tuple[int, str]] = []
        for index, name in enumerate(names):
            if index in skipped:
                continue
            if not name:
                problems.append(
                    RowError(
                        line, None, f"column {index + 1} has no name (an algorithm is expected)"
                    )
                )
            elif problem := control_character_problem(name):
                problems.append(
                    RowError(line, f"#{index + 1}", f"algorithm name (header) {problem}")
                )
            elif name in seen:
                problems.append(
                    RowError(
                        line,
                        name,
                        f"duplicate algorithm column (columns {seen[name] + 1} and {index + 1})",
                    )
                )
            else:
                seen[name] = index
                algorithm_columns.append((index, name))
        return algorithm_columns, problems

    def _check_wide_layout(
        self,
        first_text: dict[int, tuple[int, str]],
        has_number: list[bool],
        algorithm_columns: list[tuple[int, str]],
    ) -> None:
        """Refuse, with one error, a detected wide file with a column of text only.

        ``dataset,model,accuracy`` is read as wide (algorithms "model" and "accuracy"),
        but a column without one number in any row holds no algorithm's scores: the rows
        are a long file's, and their errors (a text cell, a repeated dataset, on every
        row) would only bury that. A wide file with a few bad cells has numbers in every
        column and is answered cell by cell.
        """
        textual = [alg for alg in sorted(first_text) if not has_number[alg]]
        if not textual:
            return
        line, raw = first_text[textual[0]]
        raise ResultsCsvError(
            [
                RowError(
                    line,
                    algorithm_columns[textual[0]][1],
                    f"{raw!r} is not a number, nor is any cell of this column: a header of "
                    f"dataset and other names is read as a wide file ({_WIDE_LAYOUT}), each "
                    f"column an algorithm's scores; a long file names its columns "
                    f"{_LONG_LAYOUT}, a ranking file {_RANKING_LAYOUT}",
                    UNRECOGNISED_COLUMNS,
                )
            ]
        )

    def _wide_dataset(
        self, cell: str, column: str, line: int, dataset_lines: dict[str, int]
    ) -> str | None:
        """A wide row's dataset name, or None after an error (each dataset is one row)."""
        dataset = cell.strip()
        if not dataset:
            self.errors.add(line, column, "empty dataset name")
        elif problem := control_character_problem(dataset):
            self.errors.add(line, column, f"dataset name {problem}")
        elif dataset in dataset_lines:
            self.errors.add(
                line, column, f'dataset "{dataset}" already given on line {dataset_lines[dataset]}'
            )
        else:
            dataset_lines[dataset] = line
            return dataset
        return None

    def _wide_cells(
        self,
        row: list[str],
        line: int,
        coded: list[tuple[int, tuple[int, str]]],
        code: int,
        cells: _WideCells,
        cols: _Columns,
    ) -> None:
        """Read a wide row's algorithm cells into ``cols`` (its dataset's ``code``, -1
        after an error, keeps none of them)."""
        errors, number = self.errors, self._number
        # The cap counts results: a wide row holds one per algorithm column.
        limit = self.max_rows if self.max_rows is not None else sys.maxsize
        for alg, (index, name) in coded:
            raw = row[index].strip()
            if not raw:
                continue
            value = number(raw, line)
            if isinstance(value, str):
                errors.add(line, name, value)
                if alg not in cells.first_text and not _looks_like_a_number(raw):
                    cells.first_text[alg] = (line, raw)
                continue
            cells.has_number[alg] = True
            if code >= 0:
                if len(cols.lines) >= limit:
                    errors.add(line, name, f"too many results: at most {limit} scores allowed")
                    raise _TooManyRows
                cols.lines.append(line)
                cols.datasets.append(code)
                cols.algorithms.append(alg)
                cols.values.append(value)
