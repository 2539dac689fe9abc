"""The parser of the three layouts (long, wide, ranking): header, rows, then the checks
of the whole file (duplicates, folds, ranks), with every problem located."""

from __future__ import annotations

import array
import csv
import itertools
import math
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO

import numpy as np

from leaderboard.ingest.results_csv.cells import (
    _BLANK,
    _EXPECTED,
    _LONG_LAYOUT,
    _MARKS,
    _PLAIN_NUMBER,
    _RANK_TOL,
    _RANKING_LAYOUT,
    _ROLE_NAMES,
    _WIDE_LAYOUT,
    _comma_hint,
    _csv_problem,
    _delimiter_of,
    _isfinite,
    _layout_of,
    _looks_like_a_number,
    _plain_number,
    _rank_problem,
    _role_typos,
    control_character_problem,
)
from leaderboard.ingest.results_csv.records import (
    INCOMPLETE_FOLDS,
    Format,
    Incomplete,
    ParsedResults,
    ResultsCsvError,
    RowError,
    _read_only,
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


class _Parser:
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

    # -- reading ----------------------------------------------------------------------

    def parse(self, stream: IO[str]) -> ParsedResults:
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
        self, reader: Iterator[list[str]], width: int, key: int
    ) -> Iterator[tuple[int, list[str]]]:
        """Data rows as ``(line, fields)``; skips blank rows, checks the field count."""
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
            self.errors.add(self.header_line, None, "the file has a header but no data rows")

    # -- header -----------------------------------------------------------------------

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
        if {"dataset", "algorithm"} <= lowered:
            message = (
                f"dataset and algorithm columns but no score (or value) or rank column; {_EXPECTED}"
            )
        elif len(names) == 1 and "\t" in names[0]:
            message = (
                "the fields of the header are separated by tabs: save the file as CSV, "
                f"with commas or semicolons between fields; {_EXPECTED}"
            )
        else:
            message = f"unrecognised header {','.join(names)!r}; {_EXPECTED}"
        raise ResultsCsvError([RowError(self.header_line, None, message)])

    def _record_columns(self, names: list[str], format: Format) -> dict[str, int]:
        """Map role -> column index for long and ranking files; raise on a bad header."""
        allowed: tuple[str, ...]
        required: tuple[str, ...]
        if format == "long":
            allowed, required, layout = (
                ("dataset", "algorithm", "score", "value", "fold", "metric"),
                ("dataset", "algorithm"),
                _LONG_LAYOUT,
            )
        else:
            allowed, required, layout = (
                ("dataset", "algorithm", "rank"),
                ("dataset", "algorithm", "rank"),
                _RANKING_LAYOUT,
            )
        line = self.header_line
        roles: dict[str, int] = {}
        problems: list[RowError] = []
        typos = _role_typos(names, allowed)
        for index, name in enumerate(names):
            role = name.lower()
            label = name or f"#{index + 1}"
            if index in typos:
                problems.append(
                    RowError(line, label, self._typo_problem(name, typos[index], format))
                )
            elif role not in allowed:
                problems.append(
                    RowError(line, label, f"unexpected column; {format} files have {layout}")
                )
            elif role in roles:
                problems.append(
                    RowError(
                        line, name, f"appears twice (columns {roles[role] + 1} and {index + 1})"
                    )
                )
            else:
                roles[role] = index
        if format == "long":
            if "score" in roles and "value" in roles:
                problems.append(
                    RowError(
                        line, names[roles["value"]], 'both "score" and "value" columns: keep one'
                    )
                )
            elif "value" in roles:
                roles["score"] = roles.pop("value")
            elif "score" not in roles and not {"score", "value"} & set(typos.values()):
                problems.append(
                    RowError(line, "score", f"missing required column; long files have {layout}")
                )
        for role in required:
            if role not in roles and role not in typos.values():
                problems.append(
                    RowError(line, role, f"missing required column; {format} files have {layout}")
                )
        if problems:
            raise ResultsCsvError(problems)
        return roles

    def _typo_problem(self, name: str, role: str, format: Format) -> str:
        layout = {"long": _LONG_LAYOUT, "ranking": _RANKING_LAYOUT, "wide": _WIDE_LAYOUT}[format]
        message = f"unknown column; did you mean {role!r}? {format} files have {layout}"
        if self.misread_as_wide:
            message += (
                f" (if it is a wide file with an algorithm named {name!r}, choose the wide format)"
            )
        return message

    # -- long and ranking -------------------------------------------------------------

    def _parse_records(
        self, reader: Iterator[list[str]], names: list[str], format: Format
    ) -> ParsedResults:
        roles = self._record_columns(names, format)
        errors = self.errors
        i_dataset, i_algorithm = roles["dataset"], roles["algorithm"]
        i_value = roles["rank"] if format == "ranking" else roles["score"]
        i_fold, i_metric = roles.get("fold"), roles.get("metric")
        c_dataset, c_algorithm, c_value = names[i_dataset], names[i_algorithm], names[i_value]
        c_fold = names[i_fold] if i_fold is not None else None
        c_metric = names[i_metric] if i_metric is not None else None
        ranking = format == "ranking"
        what = "rank" if ranking else "score (leave the row out for a missing result)"
        datasets: dict[str, int] = {}
        algorithms: dict[str, int] = {}
        metrics: dict[str, int] = {}
        cols = _Columns.empty()
        with_fold = without_fold = with_metric = without_metric = 0  # first line of each
        number = self._number
        add_line, add_dataset, add_algorithm = (
            cols.lines.append,
            cols.datasets.append,
            cols.algorithms.append,
        )
        add_value, add_fold, add_metric = cols.values.append, cols.folds.append, cols.metrics.append

        for line, row in self._rows(reader, len(names), i_dataset):
            ok = True
            dataset = row[i_dataset].strip()
            if not dataset:
                errors.add(line, c_dataset, "empty dataset name")
                ok = False
            elif problem := control_character_problem(dataset):
                errors.add(line, c_dataset, f"dataset name {problem}")
                ok = False
            algorithm = row[i_algorithm].strip()
            if not algorithm:
                errors.add(line, c_algorithm, "empty algorithm name")
                ok = False
            elif problem := control_character_problem(algorithm):
                errors.add(line, c_algorithm, f"algorithm name {problem}")
                ok = False
            raw = row[i_value].strip()
            value = number(raw, line) if raw else f"empty {what}"
            if isinstance(value, str):
                errors.add(line, c_value, value)
                ok = False
                value = math.nan
            elif ranking and value <= 0:
                errors.add(line, c_value, f"{raw!r} is not a positive number (1 = best)")
                ok = False
            fold = -1
            if i_fold is not None:
                raw_fold = row[i_fold].strip()
                if not raw_fold:
                    without_fold = without_fold or line
                elif raw_fold.isascii() and raw_fold.isdigit():
                    with_fold = with_fold or line
                    if len(raw_fold) > 9:
                        errors.add(line, c_fold, f"{raw_fold!r} is too large for a fold number")
                        ok = False
                    else:
                        fold = int(raw_fold)
                else:
                    errors.add(line, c_fold, f"{raw_fold!r} is not a non-negative integer")
                    with_fold = with_fold or line
                    ok = False
            metric = -1
            if i_metric is not None:
                name = row[i_metric].strip()
                refused = None
                if name and (problem := control_character_problem(name)):
                    refused = f"metric name {problem}"
                elif name and self.metric_check:
                    refused = self.metric_check(name)
                if refused:
                    errors.add(line, c_metric, refused)
                    ok = False
                elif name:
                    metric = metrics.setdefault(name, len(metrics))
                    with_metric = with_metric or line
                else:
                    without_metric = without_metric or line
            if ok:
                add_line(line)
                add_dataset(datasets.setdefault(dataset, len(datasets)))
                add_algorithm(algorithms.setdefault(algorithm, len(algorithms)))
                add_value(value)
                add_fold(fold)
                add_metric(metric)

        if with_fold and without_fold:
            errors.add(
                without_fold,
                c_fold,
                f"no fold given, but other rows have one (first on line {with_fold}): "
                "give a fold on every row or on none",
            )
        if with_metric and without_metric:
            errors.add(
                without_metric,
                c_metric,
                f"no metric given, but other rows name one (first on line {with_metric}): "
                "name a metric on every row or on none",
            )
        arrays = cols.arrays()
        lines, d, a, values, folds, k = arrays
        labels = (tuple(datasets), tuple(algorithms), tuple(metrics))
        self._check_duplicates(lines, d, a, folds, k, labels)
        if not errors.total:
            keep = self._check_folds(lines, d, a, folds, k, labels, c_fold) if with_fold else None
            if keep is not None:
                lines, d, a, values, folds, k = (
                    _read_only(column[keep]) for column in (lines, d, a, values, folds, k)
                )
                if not len(lines):
                    errors.add(self.header_line, None, "no results left: every one lacks folds")
            if ranking:
                self._check_ranks(lines, d, values, labels[0], c_value)
        errors.raise_if_any()
        return ParsedResults(
            format=format,
            kind="rank" if ranking else "score",
            datasets=labels[0],
            algorithms=labels[1],
            metrics=labels[2],
            has_folds=bool(with_fold),
            lines=lines,
            dataset_codes=d,
            algorithm_codes=a,
            values=values,
            folds=folds,
            metric_codes=k,
            dropped=tuple(self.dropped.kept),
            n_dropped=self.dropped.total,
        )

    def _check_duplicates(self, lines, d, a, folds, k, labels) -> None:
        if len(lines) < 2:
            return
        order = np.lexsort((folds, a, d, k))  # stable: the first of a run is the earliest line
        keys = [array[order] for array in (k, d, a, folds)]
        same = np.ones(len(order) - 1, dtype=bool)
        for key in keys:
            same &= key[1:] == key[:-1]
        repeats = np.flatnonzero(same) + 1
        if not len(repeats):
            return
        starts = np.where(np.r_[True, ~same], np.arange(len(order)), 0)
        run_start = np.maximum.accumulate(starts)
        datasets, algorithms, metrics = labels
        for index in repeats[: self.errors.limit].tolist():
            row = order[index]
            first = lines[order[run_start[index]]]
            what = f'dataset "{datasets[d[row]]}", algorithm "{algorithms[a[row]]}"'
            if folds[row] >= 0:
                what += f", fold {folds[row]}"
            if k[row] >= 0:
                what += f', metric "{metrics[k[row]]}"'
            self.errors.add(
                int(lines[row]), None, f"duplicate result for {what}: first given on line {first}"
            )
        self.errors.count_unlisted(len(repeats) - self.errors.limit)

    def _check_folds(self, lines, d, a, folds, k, labels, column) -> np.ndarray | None:
        """Within a dataset (and metric) every algorithm must have the same folds.

        With ``incomplete="drop"``, returns which rows to keep: all but those of an
        algorithm on a dataset (and metric) where it lacks a fold that another has.
        """
        datasets, algorithms, metrics = labels
        n_d, n_a = len(datasets), len(algorithms)
        # Number only the (metric, dataset) groups that occur: counters sized by the
        # product of the label counts would grow with the square of the rows.
        group_keys, group = np.unique((k + 1) * n_d + d, return_inverse=True)
        group = group.reshape(-1)
        n_groups = len(group_keys)
        fold_codes = np.unique(folds, return_inverse=True)[1].reshape(-1)
        n_f = int(fold_codes.max()) + 1
        rows_per_group = np.bincount(group, minlength=n_groups)
        algs_per_group = np.bincount(np.unique(group * n_a + a) // n_a, minlength=n_groups)
        folds_per_group = np.bincount(
            np.unique(group * n_f + fold_codes) // n_f, minlength=n_groups
        )
        bad_groups = np.flatnonzero(rows_per_group != algs_per_group * folds_per_group)
        if not len(bad_groups):
            return None
        in_bad = np.isin(group, bad_groups)
        per_group: dict[int, dict[int, tuple[int, set[int]]]] = {}
        for g, alg, fold, line in zip(
            group[in_bad].tolist(),
            a[in_bad].tolist(),
            folds[in_bad].tolist(),
            lines[in_bad].tolist(),
            strict=True,
        ):
            per_group.setdefault(g, {}).setdefault(alg, (line, set()))[1].add(fold)
        drop = self.incomplete == "drop"
        lacking_pairs: list[int] = []  # group * n_a + algorithm, to drop
        for g, by_algorithm in per_group.items():
            every = set().union(*(seen for _, seen in by_algorithm.values()))
            metric_code, dataset_code = divmod(int(group_keys[g]), n_d)
            where = f'dataset "{datasets[dataset_code]}"'
            if metric_code:
                where += f' (metric "{metrics[metric_code - 1]}")'
            for alg, (first_line, seen) in by_algorithm.items():
                lacking = sorted(every - seen)
                if not lacking:
                    continue
                shown = f"fold{'s' if len(lacking) > 1 else ''} " + ", ".join(
                    map(str, lacking[:10])
                )
                shown += ", ..." if len(lacking) > 10 else ""
                gap = f'algorithm "{algorithms[alg]}" on {where} lacks {shown}'
                if drop:
                    lacking_pairs.append(g * n_a + alg)
                    self.dropped.add(first_line, column, f"{gap}: its results there are left out")
                else:
                    self.errors.add(
                        first_line,
                        column,
                        f"{gap}, which other algorithms have there: every algorithm of a "
                        "dataset needs the same folds; add the missing rows, or leave out "
                        "this algorithm's rows for this dataset",
                        kind=INCOMPLETE_FOLDS,
                    )
        if not drop:
            return None
        return ~np.isin(group * n_a + a, lacking_pairs)

    def _check_ranks(self, lines, d, ranks, datasets, column) -> None:
        """On each dataset the sorted ranks fill positions 1..k, ties as mean positions."""
        order = np.lexsort((lines, ranks, d))
        bounds = np.flatnonzero(np.diff(d[order])) + 1
        for members in np.split(order, bounds):
            values = ranks[members].tolist()
            member_lines = lines[members].tolist()
            position, start = 1, 0
            while start < len(values):
                end = start + 1
                while end < len(values) and values[end] - values[start] <= _RANK_TOL:
                    end += 1
                size = end - start
                expected = position + (size - 1) / 2
                if abs(values[start] - expected) > _RANK_TOL:
                    name = datasets[int(d[members[0]])]
                    self.errors.add(
                        member_lines[start],
                        column,
                        _rank_problem(name, values[start], size, position, member_lines[start:end]),
                    )
                    break
                position += size
                start = end

    # -- wide -------------------------------------------------------------------------

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
                )
            ]
        )

    def _parse_wide(self, reader: Iterator[list[str]], names: list[str]) -> ParsedResults:
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
        seen: dict[str, int] = {}
        algorithm_columns: list[tuple[int, str]] = []
        for index, name in enumerate(names):
            if index in dataset_columns or index in typos:
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
        if not problems and not algorithm_columns:
            problems.append(
                RowError(line, None, f"no algorithm columns; wide files have {_WIDE_LAYOUT}")
            )
        if problems:
            raise ResultsCsvError(problems)

        errors = self.errors
        i_dataset = dataset_columns[0]
        c_dataset = names[i_dataset]
        datasets: dict[str, int] = {}
        dataset_lines: dict[str, int] = {}
        cols = _Columns.empty()
        coded = list(enumerate(algorithm_columns))
        number = self._number
        # The cap counts results: a wide row holds one per algorithm column.
        limit = self.max_rows if self.max_rows is not None else sys.maxsize
        # Per algorithm column: whether any cell is a number, and its first text cell.
        has_number = [False] * len(coded)
        first_text: dict[int, tuple[int, str]] = {}
        for line, row in self._rows(reader, len(names), i_dataset):
            dataset = row[i_dataset].strip()
            code = -1
            if not dataset:
                errors.add(line, c_dataset, "empty dataset name")
            elif problem := control_character_problem(dataset):
                errors.add(line, c_dataset, f"dataset name {problem}")
            elif dataset in dataset_lines:
                errors.add(
                    line,
                    c_dataset,
                    f'dataset "{dataset}" already given on line {dataset_lines[dataset]}',
                )
            else:
                dataset_lines[dataset] = line
                code = datasets.setdefault(dataset, len(datasets))
            for alg, (index, name) in coded:
                raw = row[index].strip()
                if not raw:
                    continue
                value = number(raw, line)
                if isinstance(value, str):
                    errors.add(line, name, value)
                    if alg not in first_text and not _looks_like_a_number(raw):
                        first_text[alg] = (line, raw)
                    continue
                has_number[alg] = True
                if code >= 0:
                    if len(cols.lines) >= limit:
                        errors.add(line, name, f"too many results: at most {limit} scores allowed")
                        raise _TooManyRows
                    cols.lines.append(line)
                    cols.datasets.append(code)
                    cols.algorithms.append(alg)
                    cols.values.append(value)
        if not errors.total and not cols.lines:
            errors.add(self.header_line, None, "no results: every algorithm cell is empty")
        if errors.total and self.format is None:
            self._check_wide_layout(first_text, has_number, algorithm_columns)
        errors.raise_if_any()
        cols.folds = array.array("q", [-1]) * len(cols.lines)
        cols.metrics = cols.folds
        lines, d, a, values, folds, k = cols.arrays()
        return ParsedResults(
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
