"""What every importer shares: locating problems, and turning another tool's results
into the records the CSV parser yields (reading a folder or zip: :mod:`.files`).

Pure Python (no Django): ``manage.py analyze`` runs it on a laptop. Each format module
reads ``files`` (relative path -> bytes) into a :class:`Collector`, which holds the
results as columns (:mod:`.collected`: codes and values, no object per result) and hands
them as records to :func:`leaderboard.ingest.results_csv.parse_results_columns`, the
validator a CSV upload's rows pass (names, finite numbers, duplicates, folds): every
problem is reported at the file and key it was read from.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath
from typing import Any

import numpy as np

from leaderboard.ingest.formats.collected import (
    CollectedResults,
    Origins,
    ResultColumns,
    ResultRows,
    shown_where,
)
from leaderboard.ingest.results_csv import (
    ParsedResults,
    RecordColumns,
    ResultsCsvError,
    RowError,
    control_character_problem,
    flags_array,
    parameter_count,
    parse_results_columns,
)

MAX_PROBLEMS = 100
MAX_LEFT_OUT = 1000  # listed one by one; beyond, counted
# What a reader does with a result it cannot take: leave it out and list it ("skip"), or
# refuse the whole upload naming every problem ("refuse").
ON_ERROR: tuple[str, ...] = ("skip", "refuse")


@dataclass(frozen=True)
class UploadLimits:
    """The most one upload may hold where it is read: results (each fold one, as a row of
    a results CSV) and, for a zip of another tool's files, bytes unpacked
    (``leaderboard.uploads.upload_limits`` decides them)."""

    max_rows: int
    max_unpacked_bytes: int


@dataclass(frozen=True)
class ImportRowError(RowError):
    """A problem located by file and key (``column`` holds ``"<file>: <key>"``; no line)."""

    def __str__(self) -> str:
        return f"{self.column}: {self.message}" if self.column else self.message


def import_problem(file: str, key: str, message: str) -> ImportRowError:
    """A problem at ``key`` of ``file``; with neither, a problem of the whole input."""
    return ImportRowError(0, shown_where(file, key), sendable(message))


def sendable(message: str) -> str:
    """``message`` with what no response or database text can carry, lone surrogates
    and NUL, escaped as Python writes them (``\\ud800``): a message may quote a file."""
    return _UNSENDABLE.sub(lambda found: repr(found.group())[1:-1], message)


_UNSENDABLE = re.compile("[\x00\ud800-\udfff]")


class ResultsImportError(ResultsCsvError):
    """Files in another tool's format were refused; ``errors`` name the file and key."""

    def _describe(self) -> str:
        if self.total == 1 and self.errors:
            return str(self.errors[0])
        lines = [f"{self.total} errors in the imported files:"]
        lines += [f"  {error}" for error in self.errors]
        if self.n_more:
            lines.append(f"  ... and {self.n_more} more")
        return "\n".join(lines)


@dataclass(frozen=True)
class MetricInfo:
    """A metric as the file describes it; ``None`` where the file does not say."""

    name: str
    higher_is_better: bool | None = None
    min_value: float | None = None
    max_value: float | None = None
    unit: str = ""


@dataclass(frozen=True)
class AlgorithmInfo:
    """An algorithm's metadata as the file gives it (blank / ``None`` where it does not)."""

    name: str
    family: str = ""
    parameters: int | None = None
    licence: str = ""
    url: str = ""
    revision: str = ""
    precision: str = ""  # as model_precision() writes it: "bfloat16", "8bit"
    open_weights: bool | None = None


@dataclass(frozen=True, eq=False)
class ImportedResults:
    """Results read from another tool's files.

    ``parsed`` is what the CSV parser yields for the same results (long layout, with a
    metric column, and folds where the files have them); its line ``n`` came from
    ``origins[n - 2]`` (an :class:`Origins`: a file and a key per line, each held
    once). ``provenance`` holds, per algorithm, what the files say about how the
    numbers were made (model revision, harness version, dataset revisions).
    ``notes`` summarise; ``left_out`` lists each result (or file) that was not imported,
    at its file and key, with the reason.
    """

    format: str
    parsed: ParsedResults
    origins: Origins
    metrics: tuple[MetricInfo, ...]
    algorithms: tuple[AlgorithmInfo, ...]
    provenance: Mapping[str, Mapping[str, Any]]
    notes: tuple[str, ...] = ()
    left_out: tuple[ImportRowError, ...] = ()
    n_left_out: int = 0
    # The source's own aggregates of these results (e.g. HELM's "Mean win rate"), each
    # algorithm's value: the order the source publishes, never imported as a dataset.
    published: Mapping[str, Mapping[str, float]] = field(default_factory=dict)

    def where(self, line: int | None) -> str | None:
        """The file and key a line of ``parsed`` came from."""
        if line is None:
            return None
        if 2 <= line < len(self.origins) + 2:
            return self.origins[line - 2]
        return None

    def metric(self, name: str) -> MetricInfo | None:
        return next((m for m in self.metrics if m.name == name), None)

    def algorithm(self, name: str) -> AlgorithmInfo | None:
        return next((a for a in self.algorithms if a.name == name), None)


# --- reading values -----------------------------------------------------------------------

# Longer integers may be beyond a float (float() of one raises OverflowError, as do
# math.isfinite and the readers' checks: a 500 before); Python refuses to read ones past
# 4,300 digits (a ValueError json.loads does not turn into a JSONDecodeError). Read as a
# float, a longer one is infinity when it is past a float's range.
_MAX_INT_DIGITS = 308


def _int_or_inf(text: str) -> int | float:
    return int(text) if len(text) <= _MAX_INT_DIGITS else float(text)


def json_loads(text: str) -> Any:
    """``json.loads``, an integer too long for a float read as infinity, so the key that
    holds it is refused as not finite (by :meth:`Collector.number`) rather than crashing."""
    return json.loads(text, parse_int=_int_or_inf)


_MISSING = object()


class Collector:
    """Results, metadata and problems gathered while reading the files of one format.

    ``max_results`` bounds the results (each fold one, as a row of a results CSV) an
    upload may hold: reading stops at the first result past it, so a file of millions
    costs no more than the bound (None: no bound, for a researcher's own files).
    """

    def __init__(
        self, format: str, *, max_results: int | None = None, on_error: str = "refuse"
    ) -> None:
        if max_results is not None and (isinstance(max_results, bool) or max_results < 1):
            raise ValueError(f"max_results must be a positive integer or None, got {max_results!r}")
        if on_error not in ON_ERROR:
            raise ValueError(f"on_error must be one of {', '.join(ON_ERROR)}, got {on_error!r}")
        self.format = format
        self.on_error = on_error
        # Left out by the format's own rules (an aggregate row, a placeholder), whatever
        # on_error says: listed, never refused.
        self.left_out: list[ImportRowError] = []
        self.n_unlisted = 0  # left out beyond those listed (MAX_LEFT_OUT are worded)
        self.max_results = max_results
        self.n_results = 0
        self._most = sys.maxsize if max_results is None else max_results
        self._results = ResultColumns()
        self._said: dict[tuple, MetricInfo] = {}  # see metric_stated
        self.problems: list[ImportRowError] = []
        self.metrics: dict[str, MetricInfo] = {}
        self.algorithms: dict[str, AlgorithmInfo] = {}
        self.provenance: dict[str, dict[str, Any]] = {}
        self.notes: list[str] = []
        # The source's own aggregates (name -> algorithm -> value): its published order.
        self.published: dict[str, dict[str, float]] = {}

    def problem(self, file: str, key: str, message: str) -> None:
        self.problems.append(import_problem(file, key, message))

    def leave_out(self, file: str, key: str, reason: str) -> None:
        """A result the format's rules leave out (listed with ``reason``, not a problem)."""
        self.left_out.append(import_problem(file, key, reason))

    def json(self, file: str, data: bytes) -> Any:
        """The file's JSON, or ``_MISSING`` after recording why it cannot be read."""
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            self.problem(file, "", f"is not UTF-8 text (byte {exc.start})")
            return _MISSING
        try:
            return json_loads(text)
        except RecursionError:
            self.problem(file, "", "is nested too deeply")
            return _MISSING
        except json.JSONDecodeError as exc:
            hint = (
                " (the file ends before its brackets close: truncated?)" if _unclosed(text) else ""
            )
            self.problem(
                file,
                "",
                f"is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}{hint}",
            )
            return _MISSING

    def get(self, file: str, obj: Any, key: str, *, path: str, kind: type | tuple = object) -> Any:
        """``obj[key]``, or ``_MISSING`` after recording a missing key or a wrong type."""
        full = f"{path}.{key}" if path else key
        if not isinstance(obj, dict):
            self.problem(file, path or "(document)", f"expected an object, got {_kind(obj)}")
            return _MISSING
        if key not in obj:
            self.problem(file, full, "missing key")
            return _MISSING
        value = obj[key]
        wrong_bool = isinstance(value, bool) and kind is not object and bool not in _as_tuple(kind)
        if not isinstance(value, kind) or wrong_bool:
            self.problem(file, full, f"expected {_kind_name(kind)}, got {_kind(value)}")
            return _MISSING
        return value

    def number(self, file: str, value: Any, *, key: str) -> float | None:
        if type(value) is float and math.isfinite(value):  # most values: nothing to say
            return value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.problem(file, key, f"expected a number, got {_kind(value)}")
            return None
        try:
            number = float(value)
        except OverflowError:  # an integer past a float's range
            number = math.inf
        if not math.isfinite(number):
            shown = repr(value) if len(repr(value)) <= 40 else "an integer past a float's range"
            self.problem(file, key, f"expected a finite number, got {shown}")
            return None
        return number

    def metric_settled(
        self,
        name: str,
        higher_is_better: bool | None = None,
        min_value: float | None = None,
        max_value: float | None = None,
    ) -> bool:
        """Whether :meth:`metric_stated` of this would change nothing (a file states the
        same of each result): a reader then need not word where it is stated."""
        info = self._said.get((name, higher_is_better, min_value, max_value))
        return info is not None and self.metrics.get(name) is info

    def metric_stated(
        self,
        name: str,
        higher_is_better: bool | None = None,
        min_value: float | None = None,
        max_value: float | None = None,
        *,
        file: str,
        key: str,
    ) -> None:
        """:meth:`metric` of what a file says of a metric with a result: a file says
        the same of every result, so each saying is made a :class:`MetricInfo` once."""
        said = (name, higher_is_better, min_value, max_value)
        info = self._said.get(said)
        if info is None:
            info = self._said[said] = MetricInfo(name, higher_is_better, min_value, max_value)
        if self.metrics.get(name) is not info:
            self.metric(info, file=file, key=key)

    def metric(self, info: MetricInfo, *, file: str, key: str) -> None:
        known = self.metrics.get(info.name)
        if known is None:
            self.metrics[info.name] = info
            return
        if known == info:  # a file says it of every result: nothing to merge
            return
        if (
            known.higher_is_better is not None
            and info.higher_is_better is not None
            and known.higher_is_better != info.higher_is_better
        ):
            self.problem(
                file,
                key,
                f"metric {info.name!r} is higher-is-better in one file and lower-is-better "
                "in another",
            )
        else:  # what one file leaves unsaid, another may say
            self.metrics[info.name] = MetricInfo(
                info.name,
                higher_is_better=_first(known.higher_is_better, info.higher_is_better),
                min_value=_first(known.min_value, info.min_value),
                max_value=_first(known.max_value, info.max_value),
                unit=known.unit or info.unit,
            )

    def algorithm(self, info: AlgorithmInfo, provenance: Mapping[str, Any] | None = None) -> None:
        """Record a model and what the file says of it; its metadata texts neutralised
        (:func:`metadata_text`), since a file's words reach the reader's table."""
        info = replace(
            info,
            family=metadata_text(info.family),
            licence=metadata_text(info.licence),
            revision=metadata_text(info.revision),
            parameters=parameter_count(info.parameters),
            precision=model_precision(info.precision),
            open_weights=open_weights_flag(info.open_weights),
        )
        self.algorithms.setdefault(info.name, info)
        if provenance:
            self.provenance.setdefault(info.name, {}).update(
                {k: v for k, v in provenance.items() if v not in (None, "", [], {})}
            )

    def add(
        self,
        *,
        dataset: str,
        algorithm: str,
        metric: str,
        value: float,
        folds: Iterable[float] | None = None,
        file: str,
        key: str,
        standard_error: float | None = None,
        variant: str = "",
    ) -> None:
        """One result, read at ``key`` of ``file``: ``value`` over all folds, and the
        folds' values when the file has them; ``standard_error`` the file's of ``value``
        ("x ± s", an uncertainty field), if any; ``variant`` what tells two runs of one
        model apart when the file names both alike (a precision such as "bfloat16"),
        which names the algorithm only when they collide."""
        if folds is None:
            self.n_results += 1
        else:
            folds = tuple(folds)
            self.n_results += len(folds) or 1
        if self.n_results > self._most:
            raise self._too_many(file, key)
        if metric not in self.metrics:
            self.metrics[metric] = MetricInfo(metric)
        self._results.add(
            (dataset, algorithm, variant, metric, value, folds, file, key, standard_error)
        )

    def add_rows(self, *, file: str, algorithm: str, rows: ResultRows, variant: str = "") -> None:
        """The results of ``algorithm`` read from ``file``, as :meth:`add` takes each: a
        reader of many results collects a file's in :class:`ResultRows` and hands them
        over at once, without a call per result. The cap is counted per result (each
        fold one) and the first result past it is named."""
        n = len(rows)
        if not n:
            return
        counted = n + sum(max(len(folds) - 1, 0) for folds in rows.folds.values())
        if self.n_results + counted > self._most:
            for index in range(n):
                self.n_results += len(rows.folds.get(index, ())) or 1
                if self.n_results > self._most:
                    raise self._too_many(file, rows.keys[index])
        self.n_results += counted
        metrics = rows.metrics
        for metric in (metrics[0],) if metrics.count(metrics[0]) == n else dict.fromkeys(metrics):
            if metric not in self.metrics:
                self.metrics[metric] = MetricInfo(metric)
        self._results.add_rows(file, algorithm, variant, rows)

    def _too_many(self, file: str, key: str) -> ResultsImportError:
        return ResultsImportError(
            [
                import_problem(
                    file,
                    key,
                    f"too many results: at most {self.max_results} per upload (each "
                    "fold counts as one); split the files into several uploads",
                )
            ]
        )

    def _refuse_or_list(self, problems: list[ImportRowError], total: int) -> None:
        """Refuse (``on_error="refuse"``) naming every problem so far, or list them;
        ``total`` counts them all, ``problems`` are the first of them."""
        if not total:
            return
        if self.on_error == "refuse":
            found = self.problems + problems
            raise ResultsImportError(found[:MAX_PROBLEMS], total=len(self.problems) + total)
        self.left_out.extend(problems)
        self.n_unlisted += total - len(problems)

    def _checked(self, results: CollectedResults, algorithms: _Named) -> np.ndarray:
        """Which results the CSV parser will take: names it accepts, values in the range
        the files state, one result per dataset, algorithm and metric (the first kept).
        Each name is checked once, however many results name it; the rest are column
        operations, and only the problems listed are worded."""
        labels = (results.datasets, algorithms.labels, results.metrics)
        codes = (results.dataset, algorithms.codes, results.metric)
        named = [
            [_name_problem(what, name) for name in names]
            for what, names in zip(("dataset", "algorithm", "metric"), labels, strict=True)
        ]
        name_bad = np.zeros(len(results), dtype=bool)
        for said, code in zip(named, codes, strict=True):
            name_bad |= flags_array([p is not None for p in said])[code]
        range_bad = ~name_bad & self._out_of_range(results)
        good = ~(name_bad | range_bad)
        first = _first_of_each(
            [_stripped_codes(names, code) for names, code in zip(labels, codes, strict=True)],
            good,
        )
        repeat = good & (first != np.arange(len(results)))
        bad = np.flatnonzero(~good | repeat)
        problems: list[ImportRowError] = []
        starts = results.fold_starts() if range_bad.any() else None
        for index in bad[:MAX_LEFT_OUT].tolist():
            d, a, m = (int(code[index]) for code in codes)
            problem = named[0][d] or named[1][a] or named[2][m]
            if problem is None and starts is not None and range_bad[index]:
                problem = self._range_problem(
                    results.metrics[m],
                    float(results.values[index]),
                    results.folds_of(index, starts),
                )
            if problem is None:
                record = tuple(names[c].strip() for names, c in zip(labels, (d, a, m), strict=True))
                earlier = ": ".join(p for p in results.origin(int(first[index])) if p)
                problem = (
                    f"a second result of {record[1]!r} on {record[0]!r} ({record[2]}); "
                    f"the first, at {earlier}, is kept"
                )
            problems.append(import_problem(*results.origin(index), problem))
        self._refuse_or_list(problems, len(bad))
        return good & ~repeat

    def _out_of_range(self, results: CollectedResults) -> np.ndarray:
        """Which results (a value or any of its folds) are outside the range the files
        state for their metric."""
        infos = [self.metrics[name] for name in results.metrics]
        stated = flags_array([i.min_value is not None or i.max_value is not None for i in infos])
        if not stated.any():
            return np.zeros(len(results), dtype=bool)
        low = np.array([-np.inf if i.min_value is None else i.min_value for i in infos])
        high = np.array([np.inf if i.max_value is None else i.max_value for i in infos])

        def outside(values: np.ndarray, metric: np.ndarray) -> np.ndarray:
            return stated[metric] & ~((values >= low[metric]) & (values <= high[metric]))

        bad = outside(results.values, results.metric)
        if results.n_folds is not None and len(results.fold_values):
            counts = np.maximum(results.n_folds, 0)
            owner = np.repeat(np.arange(len(results)), counts)
            fold_bad = outside(results.fold_values, results.metric[owner])
            bad |= np.bincount(owner[fold_bad], minlength=len(results)) > 0
        return bad

    def _range_problem(self, metric: str, value: float, folds: tuple[float, ...]) -> str | None:
        info = self.metrics[metric]
        for each in (value, *folds):
            if problem := _range_problem(info, each):
                return problem
        return None

    def _variants_named(self, results: CollectedResults) -> _Named:
        """Runs of one model told apart only by their variant (two precisions) become
        algorithms of their own, ``model (variant)``, with the model's metadata: each
        (model, variant) the results name, and the algorithm it is."""
        variants: dict[str, set[str]] = {}
        for name, variant in results.pairs:
            variants.setdefault(name, set()).add(variant)
        split = [name for name, seen in variants.items() if len(seen) > 1]
        for name in split:
            info = self.algorithms.get(name, AlgorithmInfo(name))
            for variant in sorted(variants[name] - {""}):
                named = f"{name} ({variant})"
                self.algorithms.setdefault(
                    named, replace(info, name=named, precision=model_precision(variant))
                )
                self.provenance.setdefault(named, dict(self.provenance.get(name, {})))
        split_names = set(split)
        labels: dict[str, int] = {}
        of_pair = [
            labels.setdefault(
                f"{name} ({variant})" if name in split_names and variant else name, len(labels)
            )
            for name, variant in results.pairs
        ]
        if len(labels) == len(of_pair):  # an algorithm per (model, variant): the codes
            return _Named(tuple(labels), results.pair)
        return _Named(tuple(labels), np.array(of_pair, dtype=np.int64)[results.pair])

    def _standard_errors(
        self, results: CollectedResults, algorithms: _Named, kept: np.ndarray
    ) -> None:
        """Each result's standard error, kept in its algorithm's provenance."""
        if results.standard_errors is None:
            return
        given = np.flatnonzero(kept & ~np.isnan(results.standard_errors))
        for index in given.tolist():
            algorithm = algorithms.labels[algorithms.codes[index]]
            errors = self.provenance.setdefault(algorithm, {}).setdefault("standard_errors", {})
            dataset = results.datasets[results.dataset[index]]
            metric = results.metrics[results.metric[index]]
            errors[f"{dataset} | {metric}"] = float(results.standard_errors[index])

    def finish(self) -> ImportedResults:
        if self.problems and self.on_error == "refuse":
            raise ResultsImportError(self.problems[:MAX_PROBLEMS], total=len(self.problems))
        self.left_out.extend(self.problems)
        self.problems = []
        results = self._results.collected()
        algorithms = self._variants_named(results)
        kept = self._checked(results, algorithms)
        if not kept.any():
            found = self.left_out or [
                import_problem("", "", f"no {self.format} results found in the files")
            ]
            if len(found) == 1 and found[0].column == "":
                raise ResultsImportError(found)
            raise ResultsImportError(
                [
                    import_problem("", "", f"no {self.format} result could be imported"),
                    *found[: MAX_PROBLEMS - 1],
                ],
                total=len(found) + self.n_unlisted + 1,
            )
        self._standard_errors(results, algorithms, kept)
        records, origins = _records(results, algorithms, kept)
        try:
            # The validator of a results CSV's records (record i is "line" i + 2).
            parsed = parse_results_columns(records, max_errors=MAX_PROBLEMS)
        except ResultsCsvError as exc:
            raise ResultsImportError(
                [_relocated(error, origins) for error in exc.errors], total=exc.total
            ) from None
        used = set(parsed.metrics)
        return ImportedResults(
            format=self.format,
            parsed=parsed,
            origins=origins,
            metrics=tuple(m for m in self.metrics.values() if m.name in used),
            algorithms=tuple(
                self.algorithms.get(name, AlgorithmInfo(name)) for name in parsed.algorithms
            ),
            provenance={k: stored_json(v) for k, v in self.provenance.items()},
            notes=tuple(self.notes),
            left_out=tuple(self.left_out[:MAX_LEFT_OUT]),
            n_left_out=len(self.left_out) + self.n_unlisted,
            published={k: dict(v) for k, v in self.published.items()},
        )


@dataclass(frozen=True, eq=False)
class _Named:
    """The algorithms results are imported as: labels, and each result's code."""

    labels: tuple[str, ...]
    codes: np.ndarray


def _stripped_codes(names: Sequence[str], codes: np.ndarray) -> tuple[np.ndarray, int]:
    """``codes`` into ``names`` as codes of the names stripped (names that differ only by
    surrounding whitespace are one), and how many those are."""
    same: dict[str, int] = {}
    stripped = np.array([same.setdefault(n.strip(), len(same)) for n in names], dtype=np.int64)
    if len(same) == len(names):  # no two alike: the codes as they are
        return codes, len(names)
    return stripped[codes], len(same)


def _first_of_each(keys: list[tuple[np.ndarray, int]], among: np.ndarray) -> np.ndarray:
    """For each row ``among`` the rows, the first such row with the same keys (itself
    when it is the first); -1 for the others. Each key is (codes, how many codes)."""
    first = np.full(len(among), -1, dtype=np.int64)
    rows = np.flatnonzero(among)
    if not len(rows):
        return first
    combined = np.zeros(len(rows), dtype=np.int64)
    size = 1
    for codes, n_codes in keys:
        if size * max(n_codes, 1) >= 2**62:  # renumber before the product passes int64
            combined = np.unique(combined, return_inverse=True)[1].reshape(-1)
            size = len(rows)
        combined = combined * max(n_codes, 1) + codes[rows]
        size *= max(n_codes, 1)
    _, first_row, group = np.unique(combined, return_index=True, return_inverse=True)
    first[rows] = rows[first_row[group.reshape(-1)]]
    return first


def _records(
    results: CollectedResults, algorithms: _Named, kept: np.ndarray
) -> tuple[RecordColumns, Origins]:
    """The kept results as the validator's records (a fold each, where any result has
    folds) and where each was read."""
    n_folds = _harmonised_folds(results, kept)
    entries = np.flatnonzero(kept)
    with_folds = n_folds is not None and bool((n_folds[entries] > 0).any())
    if not with_folds:
        take = _taken(entries, len(results))
        records = RecordColumns(
            datasets=results.datasets,
            algorithms=algorithms.labels,
            metrics=results.metrics,
            dataset_codes=take(results.dataset),
            algorithm_codes=take(algorithms.codes),
            metric_codes=take(results.metric),
            folds=None,
            values=take(results.values),
        )
        origins = Origins(results.files, results.keys, take(results.file), take(results.key), None)
        return records, origins
    assert n_folds is not None
    counts = n_folds[entries]
    repeats = np.maximum(counts, 1)
    starts = np.cumsum(repeats) - repeats
    within = np.arange(int(repeats.sum())) - np.repeat(starts, repeats)
    has_folds = np.repeat(counts > 0, repeats)
    entries = np.repeat(entries, repeats)
    at = np.where(has_folds, results.fold_starts()[entries] + within, 0)
    records = RecordColumns(
        datasets=results.datasets,
        algorithms=algorithms.labels,
        metrics=results.metrics,
        dataset_codes=results.dataset[entries],
        algorithm_codes=algorithms.codes[entries],
        metric_codes=results.metric[entries],
        folds=within,
        values=np.where(has_folds, results.fold_values[at], results.values[entries]),
    )
    origins = Origins(
        files=results.files,
        keys=results.keys,
        file=_read_only(results.file[entries]),
        key=_read_only(results.key[entries]),
        fold=_read_only(np.where(has_folds, within, -1).astype(np.int32)),
    )
    return records, origins


def _taken(entries: np.ndarray, n: int) -> Callable[[np.ndarray], np.ndarray]:
    """Take ``entries`` of a column: the column itself when they are all of it."""
    if len(entries) == n:
        return lambda column: column
    return lambda column: _read_only(column[entries])


def _harmonised_folds(results: CollectedResults, kept: np.ndarray) -> np.ndarray | None:
    """Each result's fold count, kept on a dataset and metric only where every kept
    result has the same number of them; elsewhere -1 (each result is its overall value,
    one per algorithm). None when no result has folds."""
    n_folds = results.n_folds
    rows = np.flatnonzero(kept)
    if n_folds is None or not (n_folds[rows] >= 0).any():
        return n_folds
    group = np.unique(
        results.dataset[rows].astype(np.int64) * max(len(results.metrics), 1)
        + results.metric[rows],
        return_inverse=True,
    )[1].reshape(-1)
    counts = n_folds[rows].astype(np.int64)
    width = int(counts.max()) + 2
    pairs = np.unique(group * width + counts + 1)
    distinct = np.bincount(pairs // width, minlength=int(group.max()) + 1)
    empty = np.bincount(group[counts == 0], minlength=len(distinct)) > 0
    mixed = (distinct > 1) | empty
    harmonised = n_folds.copy()
    harmonised[rows[mixed[group]]] = -1
    return harmonised


def _name_problem(what: str, name: str) -> str | None:
    """Why a dataset, algorithm or metric name cannot be imported, or None."""
    if not name.strip():
        return f"the {what} has no name"
    if problem := control_character_problem(name):
        return f"the {what} name {name[:60]!r} {problem}"
    return None


def _unclosed(text: str) -> bool:
    """Whether a string or bracket is still open at the end of ``text`` (a cut-off file)."""
    depth, in_string, escaped = 0, False, False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
    return in_string or depth > 0


def _first(*values):
    return next((v for v in values if v is not None), None)


def _range_problem(info: MetricInfo, value: float) -> str | None:
    low, high = info.min_value, info.max_value
    if (low is None or value >= low) and (high is None or value <= high):
        return None
    shown = f"[{'-inf' if low is None else f'{low:g}'}, {'inf' if high is None else f'{high:g}'}]"
    return f"{value:g} is outside the valid range of metric {info.name!r}, {shown}, the files state"


_LINE_MENTION = re.compile(r"\bline (\d+)")


def _relocated(error: RowError, origins: Origins) -> ImportRowError:
    def origin(line: int) -> str:
        return origins[line - 2] if 2 <= line < len(origins) + 2 else f"line {line}"

    message = _LINE_MENTION.sub(lambda m: origin(int(m.group(1))), error.message)
    return ImportRowError(0, origin(error.line), sendable(message), error.kind)


def _as_tuple(kind: type | tuple) -> tuple:
    return kind if isinstance(kind, tuple) else (kind,)


def _kind_name(kind: type | tuple) -> str:
    names = {
        dict: "an object",
        list: "a list",
        str: "a string",
        int: "an integer",
        float: "a number",
    }
    return " or ".join(names.get(k, k.__name__) for k in _as_tuple(kind))


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"the text {value[:40]!r}"
    return repr(value)


# --- what a file says about its models -------------------------------------------------

# The longest metadata text kept (the services' ALGORITHM_METADATA allows 100).
MAX_METADATA_LENGTH = 100
# A Hugging Face Hub organisation (the part of a model id before "/").
_HUB_ORGANISATION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}")


def metadata_text(value: Any) -> str:
    """A file's metadata text as a reader sees it: one line, no control or invisible
    characters (dropped, never refused: metadata does not decide an import), at most
    ``MAX_METADATA_LENGTH`` characters; "" for what is not text."""
    if not isinstance(value, str):
        return ""
    text = " ".join(
        "".join(c if _shown(c) else " " for c in value[: MAX_METADATA_LENGTH * 4]).split()
    )
    return text[:MAX_METADATA_LENGTH].rstrip()


# Deeper than any provenance a tool writes; what a file nests deeper is not kept.
MAX_STORED_DEPTH = 20


def stored_json(value: Any, depth: int = 0) -> Any:
    """What a file says (provenance, as read) as a JSON column of PostgreSQL stores it:
    non-finite numbers as null (jsonb has no NaN), NUL and lone surrogates escaped as a
    problem's message escapes them (:func:`sendable`; jsonb refuses both), YAML's other
    types (dates, binary, sets) as their text, what is nested past ``MAX_STORED_DEPTH``
    levels as null. Kept, never refused (provenance does not decide an import), and
    never a failed save."""
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, str):
        return sendable(value)
    if depth >= MAX_STORED_DEPTH:
        return None
    if isinstance(value, Mapping):
        return {
            sendable(k if isinstance(k, str) else str(k)): stored_json(v, depth + 1)
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [stored_json(v, depth + 1) for v in value]
    return sendable(str(value))


# How files write a model's numeric precision -> the one name the reader's table shows.
_PRECISIONS = {
    "bfloat16": "bfloat16",
    "bf16": "bfloat16",
    "float16": "float16",
    "fp16": "float16",
    "half": "float16",
    "float32": "float32",
    "fp32": "float32",
    "float": "float32",
    "8bit": "8bit",
    "int8": "8bit",
    "4bit": "4bit",
    "int4": "4bit",
}
MAX_PRECISION_LENGTH = 30  # the services' ALGORITHM_METADATA allows 30
# What tools write where they know no precision ("auto": the loader chose it).
_NO_PRECISION = frozenset({"", "auto", "unknown", "none", "null", "default"})


def model_precision(value: Any) -> str:
    """A model's precision as the reader's filter offers it: ``torch.bfloat16`` and
    ``bf16`` are ``bfloat16``, ``int8`` and ``8-bit`` are ``8bit``; a precision of
    another name is kept as written (as :func:`metadata_text`, at most
    ``MAX_PRECISION_LENGTH`` characters); "" for what is not text or names none
    (``auto``)."""
    text = metadata_text(value).removeprefix("torch.")
    key = text.lower().replace("-", "").replace("_", "").replace(" ", "")
    if key in _NO_PRECISION:
        return ""
    return _PRECISIONS.get(key, text[:MAX_PRECISION_LENGTH].rstrip())


_YES = frozenset({"yes", "true", "open", "1"})
_NO = frozenset({"no", "false", "closed", "0"})


def open_weights_flag(value: Any) -> bool | None:
    """Whether a file says a model's weights are published: true or false, or "yes" /
    "no" as text (any case); None where it says neither."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        text = value.strip().lower()
        return True if text in _YES else False if text in _NO else None
    return None


def _shown(character: str) -> bool:
    return control_character_problem(character) is None


def model_organisation(model_id: str) -> str:
    """The organisation of a model id as the Hub and HELM write them (``meta-llama`` of
    ``meta-llama/Llama-2-7b-hf``): who published the model, its family on a board, as
    Every Eval Ever's ``developer`` is; "" when the id names none."""
    owner, slash, _ = model_id.strip().partition("/")
    return owner if slash and _HUB_ORGANISATION.fullmatch(owner) else ""


def missing(value: Any) -> bool:
    return value is _MISSING


def stem(path: str) -> str:
    return PurePosixPath(path).stem


def restrict_metrics(imported: ImportedResults, names: Iterable[str]) -> ImportedResults:
    """Only the results of the metrics ``names`` (a benchmark's); the others are listed in
    the notes. Refused when none of the file's metrics is among them."""
    wanted = set(names)
    parsed = imported.parsed
    keep = [i for i, name in enumerate(parsed.metrics) if name in wanted]
    if len(keep) == len(parsed.metrics):
        return imported
    if not keep:
        raise ResultsImportError(
            [
                import_problem(
                    "",
                    "",
                    f"none of the files' metrics ({', '.join(map(repr, parsed.metrics))}) is "
                    f"one of this benchmark's ({', '.join(map(repr, sorted(wanted)))})",
                )
            ]
        )
    left_out = [name for name in parsed.metrics if name not in wanted]
    mask = np.isin(parsed.metric_codes, keep)
    recode = np.full(len(parsed.metrics), -1, dtype=np.int64)
    recode[keep] = np.arange(len(keep))
    columns = {
        name: _read_only(np.asarray(getattr(parsed, name))[mask])
        for name in ("lines", "dataset_codes", "algorithm_codes", "values", "folds")
    }
    narrowed = replace(
        parsed,
        metrics=tuple(parsed.metrics[i] for i in keep),
        metric_codes=_read_only(recode[np.asarray(parsed.metric_codes)[mask]]),
        **columns,
    )
    # Datasets and algorithms without a kept result go too (no empty submissions).
    narrowed = _compacted(narrowed)
    return replace(
        imported,
        parsed=narrowed,
        metrics=tuple(m for m in imported.metrics if m.name in wanted),
        algorithms=tuple(a for a in imported.algorithms if a.name in narrowed.algorithms),
        notes=(
            *imported.notes,
            f"left out the metrics this benchmark lacks: {', '.join(left_out)}",
        ),
    )


def _compacted(parsed: ParsedResults) -> ParsedResults:
    out = {}
    for codes_name, labels_name in (
        ("dataset_codes", "datasets"),
        ("algorithm_codes", "algorithms"),
    ):
        codes = np.asarray(getattr(parsed, codes_name))
        labels = getattr(parsed, labels_name)
        used = np.unique(codes)
        recode = np.full(len(labels), -1, dtype=np.int64)
        recode[used] = np.arange(len(used))
        out[codes_name] = _read_only(recode[codes])
        out[labels_name] = tuple(labels[i] for i in used.tolist())
    return replace(parsed, **out)


def _read_only(column):
    column = column.copy()
    column.setflags(write=False)
    return column
