"""The long and ranking layouts: a row per result, read cell by cell, then the checks
of the whole file (duplicates, folds, ranks)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import cast

import numpy as np

from leaderboard.ingest.results_csv.base import _Columns, _ParserBase
from leaderboard.ingest.results_csv.cells import (
    _LONG_LAYOUT,
    _RANK_TOL,
    _RANKING_LAYOUT,
    _rank_problem,
    _role_typos,
    column_name,
    control_character_problem,
    parameter_count,
)
from leaderboard.ingest.results_csv.clean_records import clean_records
from leaderboard.ingest.results_csv.records import (
    ALGORITHM_COLUMNS,
    INCOMPLETE_FOLDS,
    RANKING_HEADER,
    UNRECOGNISED_COLUMNS,
    Format,
    ParsedResults,
    ResultsCsvError,
    RowError,
    _read_only,
    flags_array,
)

# One result as an importer holds it: dataset, algorithm, metric, fold (None: no fold), value.
GivenRecord = tuple[str, str, str, int | None, float]


@dataclass(frozen=True)
class _RecordLayout:
    """Where a long or ranking file keeps each role: column indices and header names."""

    format: Format
    names: list[str]
    dataset: int
    algorithm: int
    value: int
    fold: int | None
    metric: int | None
    standard_error: int | None
    described: list[tuple[int, str]]  # (index, metadata column) of algorithm columns

    @classmethod
    def of(cls, roles: dict[str, int], names: list[str], format: Format) -> _RecordLayout:
        return cls(
            format=format,
            names=names,
            dataset=roles["dataset"],
            algorithm=roles["algorithm"],
            value=roles["rank"] if format == "ranking" else roles["score"],
            fold=roles.get("fold"),
            metric=roles.get("metric"),
            standard_error=roles.get("standard_error"),
            described=[(roles[c], c) for c in ALGORITHM_COLUMNS if c in roles],
        )

    @property
    def ranking(self) -> bool:
        return self.format == "ranking"

    @property
    def what(self) -> str:
        return "rank" if self.ranking else "score (leave the row out for a missing result)"

    @property
    def dataset_column(self) -> str:
        return self.names[self.dataset]

    @property
    def algorithm_column(self) -> str:
        return self.names[self.algorithm]

    @property
    def value_column(self) -> str:
        return self.names[self.value]

    @property
    def fold_column(self) -> str | None:
        return self.names[self.fold] if self.fold is not None else None

    @property
    def metric_column(self) -> str | None:
        return self.names[self.metric] if self.metric is not None else None


@dataclass
class _Found:
    """What one pass over a file's rows has met: the labels, coded in order of first
    appearance, each algorithm's metadata, and the first line with and without a fold
    or a metric (0 for none)."""

    datasets: dict[str, int] = field(default_factory=dict)
    algorithms: dict[str, int] = field(default_factory=dict)
    metrics: dict[str, int] = field(default_factory=dict)
    metadata: dict[str, dict[str, str | int]] = field(default_factory=dict)
    with_fold: int = 0
    without_fold: int = 0
    with_metric: int = 0
    without_metric: int = 0
    standard_errors: dict[int, float] = field(default_factory=dict)  # line -> as given


class _LongParser(_ParserBase):
    def _record_columns(self, names: list[str], format: Format) -> dict[str, int]:
        """Map role -> column index for long and ranking files; raise on a bad header."""
        allowed: tuple[str, ...]
        required: tuple[str, ...]
        if format == "long":
            allowed, required, layout = (
                (
                    "dataset",
                    "algorithm",
                    "score",
                    "value",
                    "fold",
                    "metric",
                    "standard_error",
                    *ALGORITHM_COLUMNS,
                ),
                ("dataset", "algorithm"),
                _LONG_LAYOUT,
            )
        else:
            allowed, required, layout = (
                RANKING_HEADER,
                RANKING_HEADER,
                _RANKING_LAYOUT,
            )
        line = self.header_line
        roles: dict[str, int] = {}
        problems: list[RowError] = []
        typos = _role_typos(names, allowed)
        for index, name in enumerate(names):
            role = column_name(name)
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
                    RowError(
                        line,
                        "score",
                        f"missing required column; long files have {layout}",
                        UNRECOGNISED_COLUMNS,
                    )
                )
        for role in required:
            if role not in roles and role not in typos.values():
                problems.append(
                    RowError(
                        line,
                        role,
                        f"missing required column; {format} files have {layout}",
                        UNRECOGNISED_COLUMNS,
                    )
                )
        if problems:
            raise ResultsCsvError(problems)
        return roles

    def _parse_records(
        self, reader: Iterator[list[str]], names: list[str], format: Format
    ) -> ParsedResults:
        layout = _RecordLayout.of(self._record_columns(names, format), names, format)
        found = _Found()
        if (
            self.raw_lines is not None
            and not layout.described
            and layout.standard_error is None
            and self.delimiter == ","
        ):
            cols, found.with_fold = clean_records(  # raises NotClean: then cell by cell
                self.raw_lines,
                first_line=reader.line_num + 1,  # type: ignore[attr-defined]
                width=len(names),
                dataset=layout.dataset,
                algorithm=layout.algorithm,
                value=layout.value,
                fold=layout.fold,
                metric=layout.metric,
                ranking=layout.ranking,
                max_rows=self.max_rows,
                metric_check=self.metric_check,
                found=found,
            )
            return self._records_checked(cols, found, layout)
        cols = _Columns.empty()
        add_line, add_dataset, add_algorithm = (
            cols.lines.append,
            cols.datasets.append,
            cols.algorithms.append,
        )
        add_value, add_fold, add_metric = cols.values.append, cols.folds.append, cols.metrics.append
        datasets, algorithms = found.datasets, found.algorithms
        for line, row in self._rows(reader, len(names), layout.dataset, row_is="result"):
            dataset = self._name_cell(row[layout.dataset], layout.dataset_column, line, "dataset")
            algorithm = self._name_cell(
                row[layout.algorithm], layout.algorithm_column, line, "algorithm"
            )
            value = self._value_cell(row, layout, line)
            fold = self._fold_cell(row, layout, line, found) if layout.fold is not None else -1
            metric = (
                self._metric_cell(row, layout, line, found) if layout.metric is not None else -1
            )
            spread = (
                self._standard_error_cell(row, layout, line, fold, found)
                if layout.standard_error is not None
                else True
            )
            described = True
            if layout.described and (named := row[layout.algorithm].strip()):
                given = found.metadata.setdefault(named, {})
                described = self._describe(given, row, layout.described, names, line)
            if (
                dataset is not None
                and algorithm is not None
                and value is not None
                and fold is not None
                and metric is not None
                and spread
                and described
            ):
                add_line(line)
                add_dataset(datasets.setdefault(dataset, len(datasets)))
                add_algorithm(algorithms.setdefault(algorithm, len(algorithms)))
                add_value(value)
                add_fold(fold)
                add_metric(metric)
        self._check_mixed(found, layout)
        return self._records_checked(cols, found, layout)

    def _name_cell(self, cell: str, column: str, line: int, what: str) -> str | None:
        """A row's dataset or algorithm name, stripped, or None after an error."""
        name = cell.strip()
        if not name:
            self.errors.add(line, column, f"empty {what} name")
            return None
        if problem := control_character_problem(name):
            self.errors.add(line, column, f"{what} name {problem}")
            return None
        return name

    def _value_cell(self, row: list[str], layout: _RecordLayout, line: int) -> float | None:
        """A row's score or rank, or None after an error."""
        raw = row[layout.value].strip()
        value = self._number(raw, line) if raw else f"empty {layout.what}"
        if isinstance(value, str):
            self.errors.add(line, layout.value_column, value)
            return None
        if layout.ranking and value <= 0:
            self.errors.add(
                line, layout.value_column, f"{raw!r} is not a positive number (1 = best)"
            )
            return None
        return value

    def _standard_error_cell(
        self, row: list[str], layout: _RecordLayout, line: int, fold: int | None, found: _Found
    ) -> bool:
        """Keep a row's standard error (none if the cell is empty); False after an error."""
        assert layout.standard_error is not None
        column = layout.names[layout.standard_error]
        raw = row[layout.standard_error].strip()
        if not raw:
            return True
        if fold is not None and fold >= 0:
            # Kept per dataset and metric, as the importers keep a source's spread.
            self.errors.add(line, column, "a standard error goes with a result without a fold")
            return False
        value = self._number(raw, line)
        if isinstance(value, str):
            self.errors.add(line, column, value)
            return False
        if value < 0:
            self.errors.add(line, column, f"{raw!r} is negative; a standard error is >= 0")
            return False
        found.standard_errors[line] = value + 0.0
        return True

    def _fold_cell(
        self, row: list[str], layout: _RecordLayout, line: int, found: _Found
    ) -> int | None:
        """A row's fold (-1 for none), or None after an error."""
        assert layout.fold is not None
        raw = row[layout.fold].strip()
        if not raw:
            found.without_fold = found.without_fold or line
            return -1
        found.with_fold = found.with_fold or line
        if not (raw.isascii() and raw.isdigit()):
            self.errors.add(line, layout.fold_column, f"{raw!r} is not a non-negative integer")
            return None
        if len(raw) > 9:
            self.errors.add(line, layout.fold_column, f"{raw!r} is too large for a fold number")
            return None
        return int(raw)

    def _metric_cell(
        self, row: list[str], layout: _RecordLayout, line: int, found: _Found
    ) -> int | None:
        """A row's metric code (-1 for none), or None after an error."""
        assert layout.metric is not None
        return self._metric_name(row[layout.metric], layout, line, found)

    def _metric_name(
        self, cell: str, layout: _RecordLayout, line: int, found: _Found
    ) -> int | None:
        name = cell.strip()
        if not name:
            found.without_metric = found.without_metric or line
            return -1
        refused = None
        if problem := control_character_problem(name):
            refused = f"metric name {problem}"
        elif self.metric_check:
            refused = self.metric_check(name)
        if refused:
            self.errors.add(line, layout.metric_column, refused)
            return None
        found.with_metric = found.with_metric or line
        return found.metrics.setdefault(name, len(found.metrics))

    def _parse_given(self, records: Iterable[GivenRecord], *, with_folds: bool) -> ParsedResults:
        """Results a reader already holds as values (an importer's), checked as the rows
        of a long file with a metric column are: the record at index ``i`` stands for
        line ``i + 2``."""
        names = ["dataset", "algorithm", "metric", *(["fold"] if with_folds else []), "score"]
        layout = _RecordLayout.of({name: i for i, name in enumerate(names)}, names, "long")
        found = _Found()
        cols = _Columns.empty()
        for line, (dataset, algorithm, metric, fold, value) in enumerate(records, start=2):
            codes = (
                self._name_cell(dataset, "dataset", line, "dataset"),
                self._name_cell(algorithm, "algorithm", line, "algorithm"),
                self._metric_name(metric, layout, line, found),
                self._given_fold(fold, line, found) if with_folds else -1,
            )
            if not math.isfinite(value):
                self.errors.add(line, "score", f"{value!r} is not a finite number")
            elif None not in codes:
                d, a, k, f = codes
                cols.lines.append(line)
                cols.datasets.append(found.datasets.setdefault(cast(str, d), len(found.datasets)))
                cols.algorithms.append(
                    found.algorithms.setdefault(cast(str, a), len(found.algorithms))
                )
                cols.values.append(value + 0.0)  # -0.0 stored as zero, as a file's "-0"
                cols.folds.append(cast(int, f))
                cols.metrics.append(cast(int, k))
        self._check_mixed(found, layout)
        return self._records_checked(cols, found, layout)

    def _parse_columns(self, given: RecordColumns) -> ParsedResults:
        """:meth:`_parse_given` of results held as columns: each label is checked once,
        however many records name it, and the records with none of a label's, a fold's
        or a value's problems are kept as columns, with no object per record."""
        with_folds = given.folds is not None
        names = ["dataset", "algorithm", "metric", *(["fold"] if with_folds else []), "score"]
        layout = _RecordLayout.of({name: i for i, name in enumerate(names)}, names, "long")
        found = _Found()
        n = len(given.values)
        lines = np.arange(2, n + 2, dtype=np.int64)
        d_names, d_problems = _label_checks(given.datasets, "dataset")
        a_names, a_problems = _label_checks(given.algorithms, "algorithm")
        k_names, k_problems = _label_checks(given.metrics, "metric")
        d_raw = np.asarray(given.dataset_codes)
        a_raw = np.asarray(given.algorithm_codes)
        k_raw = np.asarray(given.metric_codes)
        values = np.asarray(given.values, dtype=np.float64)
        no_metric = flags_array([not name for name in k_names])[k_raw]
        if no_metric.any():
            found.without_metric = int(lines[np.argmax(no_metric)])
        named = flags_array(
            [bool(name) and p is None for name, p in zip(k_names, k_problems, strict=True)]
        )[k_raw]
        if named.any():
            found.with_metric = int(lines[np.argmax(named)])
        if given.folds is None:
            folds = np.full(n, -1, dtype=np.int64)
        else:
            folds = np.asarray(given.folds, dtype=np.int64)
            no_fold = folds < 0
            if no_fold.any():
                found.without_fold = int(lines[np.argmax(no_fold)])
            if not no_fold.all():
                found.with_fold = int(lines[np.argmin(no_fold)])
        bad = (
            flags_array([p is not None for p in d_problems])[d_raw]
            | flags_array([p is not None for p in a_problems])[a_raw]
            | flags_array([p is not None for p in k_problems])[k_raw]
            | (folds > 999_999_999)
            | ~np.isfinite(values)
        )
        for i in np.flatnonzero(bad).tolist():  # worded as the row reader words them
            line = i + 2
            for column, problem in (
                ("dataset", d_problems[d_raw[i]]),
                ("algorithm", a_problems[a_raw[i]]),
                ("metric", k_problems[k_raw[i]]),
            ):
                if problem is not None:
                    self.errors.add(line, column, problem)
            if folds[i] > 999_999_999:
                self.errors.add(line, "fold", f"{int(folds[i])!r} is not a fold number")
            if not math.isfinite(values[i]):
                self.errors.add(line, "score", f"{float(values[i])!r} is not a finite number")
        keep = ~bad
        d, found.datasets = _first_seen(d_raw, d_names, keep)
        a, found.algorithms = _first_seen(a_raw, a_names, keep)
        k, found.metrics = _first_seen(k_raw, k_names, keep, blank_is_none=True)
        self._check_mixed(found, layout)
        if keep.all():  # as usual: no copy of what is kept whole
            columns = (lines, d, a, values + 0.0, folds, k)
        else:
            columns = (lines[keep], d, a, values[keep] + 0.0, folds[keep], k)
        for kept in columns:
            kept.setflags(write=False)
        return self._arrays_checked(columns, found, layout)

    def _given_fold(self, fold: int | None, line: int, found: _Found) -> int | None:
        if fold is None:
            found.without_fold = found.without_fold or line
            return -1
        found.with_fold = found.with_fold or line
        if not 0 <= fold <= 999_999_999:
            self.errors.add(line, "fold", f"{fold!r} is not a fold number")
            return None
        return fold

    def _check_mixed(self, found: _Found, layout: _RecordLayout) -> None:
        """A fold or a metric is given on every row or on none."""
        if found.with_fold and found.without_fold:
            self.errors.add(
                found.without_fold,
                layout.fold_column,
                f"no fold given, but other rows have one (first on line {found.with_fold}): "
                "give a fold on every row or on none",
            )
        if found.with_metric and found.without_metric:
            self.errors.add(
                found.without_metric,
                layout.metric_column,
                f"no metric given, but other rows name one (first on line "
                f"{found.with_metric}): name a metric on every row or on none",
            )

    def _records_checked(
        self, cols: _Columns, found: _Found, layout: _RecordLayout
    ) -> ParsedResults:
        """The whole file's checks (duplicates, folds, ranks), then the result."""
        return self._arrays_checked(cols.arrays(), found, layout)

    def _arrays_checked(
        self, columns: tuple[np.ndarray, ...], found: _Found, layout: _RecordLayout
    ) -> ParsedResults:
        """:meth:`_records_checked` of read-only columns (lines, dataset, algorithm,
        value, fold and metric codes)."""
        errors = self.errors
        lines, d, a, values, folds, k = columns
        labels = (tuple(found.datasets), tuple(found.algorithms), tuple(found.metrics))
        self._check_duplicates(lines, d, a, folds, k, labels)
        if not errors.total:
            keep = None
            if found.with_fold:
                keep = self._check_folds(lines, d, a, folds, k, labels, layout.fold_column)
            if keep is not None:
                lines, d, a, values, folds, k = (
                    _read_only(column[keep]) for column in (lines, d, a, values, folds, k)
                )
                if not len(lines):
                    errors.add(self.header_line, None, "no results left: every one lacks folds")
            if layout.ranking:
                self._check_ranks(lines, d, values, labels[0], layout.value_column)
        result = ParsedResults(
            format=layout.format,
            kind="rank" if layout.ranking else "score",
            datasets=labels[0],
            algorithms=labels[1],
            metrics=labels[2],
            has_folds=bool(found.with_fold),
            lines=lines,
            dataset_codes=d,
            algorithm_codes=a,
            values=values,
            folds=folds,
            metric_codes=k,
            dropped=tuple(self.dropped.kept),
            n_dropped=self.dropped.total,
            algorithm_metadata={name: given for name, given in found.metadata.items() if given},
            value_column=layout.value_column,
            standard_errors=_kept(found.standard_errors, lines),
        )
        if errors.total:
            raise ResultsCsvError(errors.kept, errors.total, partial=result)
        return result

    def _describe(self, given: dict, row: list[str], described, names, line: int) -> bool:
        """Add a row's algorithm columns to ``given``; False after an error at the line."""
        ok = True
        for index, column in described:
            raw = row[index].strip()
            if not raw:
                continue
            value: str | int = raw
            if problem := control_character_problem(raw):
                self.errors.add(line, names[index], problem)
                ok = False
                continue
            if column == "parameters":
                count = parameter_count(raw)
                if count is None:
                    self.errors.add(
                        line,
                        names[index],
                        f"{raw!r} is not a parameter count (a whole number, or e.g. 7B, 350M)",
                    )
                    ok = False
                    continue
                value = count
            if given.setdefault(column, value) != value:
                self.errors.add(
                    line,
                    names[index],
                    f"{raw!r} differs from {given[column]!r} given for this algorithm above",
                )
                ok = False
        return ok

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


@dataclass(frozen=True, eq=False)
class RecordColumns:
    """Records another reader holds as columns: label tuples (names as the reader read
    them: they are stripped and checked here) and, per record, codes into them, its fold
    (``folds`` None: no record has one; -1: this one has none) and its value."""

    datasets: Sequence[str]
    algorithms: Sequence[str]
    metrics: Sequence[str]
    dataset_codes: np.ndarray
    algorithm_codes: np.ndarray
    metric_codes: np.ndarray
    folds: np.ndarray | None
    values: np.ndarray


def _label_checks(labels: Sequence[str], what: str) -> tuple[list[str], list[str | None]]:
    """Each label stripped, and why a cell holding it would be refused (None: it would
    not); a metric's empty name is no problem, it is a record without a metric."""
    names = [label.strip() for label in labels]
    problems: list[str | None] = []
    for name in names:
        if not name:
            problems.append(None if what == "metric" else f"empty {what} name")
        elif problem := control_character_problem(name):
            problems.append(f"{what} name {problem}")
        else:
            problems.append(None)
    return names, problems


def _first_seen(
    codes: np.ndarray, names: list[str], keep: np.ndarray, *, blank_is_none: bool = False
) -> tuple[np.ndarray, dict[str, int]]:
    """The kept records' codes into their names, labels that strip alike merged and
    numbered in order of first appearance (as the row reader numbers them), with that
    numbering; with ``blank_is_none`` a blank name is no label (code -1)."""
    merged: dict[str, int] = {}
    same = np.array(
        [
            -1 if blank_is_none and not name else merged.setdefault(name, len(merged))
            for name in names
        ],
        dtype=np.int64,
    )
    kept = same[codes] if keep.all() else same[codes[keep]]
    named = kept >= 0
    first = np.full(len(merged), len(kept), dtype=np.int64)
    np.minimum.at(first, kept[named], np.flatnonzero(named))
    used = np.flatnonzero(first < len(kept))
    order = used[np.argsort(first[used], kind="stable")]
    labels = list(merged)
    numbering = {labels[i]: code for code, i in enumerate(order.tolist())}
    if len(order) == len(merged) and (order == np.arange(len(order))).all():
        return kept, numbering  # numbered as they came (an importer's codes are)
    recode = np.full(len(merged) + 1, -1, dtype=np.int64)  # the last slot: -1 stays -1
    recode[order] = np.arange(len(order))
    return recode[kept], numbering


def _kept(standard_errors: dict[int, float], lines: np.ndarray) -> dict[int, float]:
    """The standard errors of the rows that stayed (a dropped row's goes with it)."""
    if not standard_errors:
        return {}
    return {line: standard_errors[line] for line in lines.tolist() if line in standard_errors}
