"""The results an importer collects, as columns: a code per label and a number per
value, no Python object per result (as the CSV reader's clean path holds its rows).

:class:`ResultColumns` takes results one at a time (:meth:`ResultColumns.add`, what
``Collector.add`` calls: a short list of tuples, coded a block at a time) or a file's
at once (:class:`ResultRows`, what the readers of many results fill), and codes them
with C-speed column operations. Codes are 32-bit; a standard error or folds take
memory only once some result has them. :class:`Origins` says where each record was
read (a file and a key, each held once, however many results share it).
"""

from __future__ import annotations

import array
import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from common.text import control_character_problem

BLOCK_RESULTS = 65536  # results held as tuples before they are coded (a few MB)
_CODE = "i"  # array typecode of a code: a C int, 32 bits
_CODE_DTYPE = np.dtype(np.intc)


class _Labels(dict):
    """Label -> code, a new label numbered on first look-up (in order of appearance):
    ``map(labels.__getitem__, names)`` codes a column at C speed, in one pass."""

    def __missing__(self, name: Hashable) -> int:
        code = self[name] = len(self)
        return code


def _codes(names: Sequence[Hashable], labels: _Labels) -> array.array:
    """Codes of ``names`` in ``labels``, adding new ones in order of first appearance."""
    return array.array(_CODE, map(labels.__getitem__, names))


def _same_code(name: Hashable, labels: _Labels, n: int) -> array.array:
    """``n`` codes of one name in ``labels`` (added if new)."""
    return array.array(_CODE, [labels[name]]) * n


def _read_only(column: np.ndarray) -> np.ndarray:
    column.setflags(write=False)
    return column


def _as_array(column: array.array) -> np.ndarray:
    dtype = np.float64 if column.typecode == "d" else _CODE_DTYPE
    return _read_only(np.frombuffer(column, dtype=dtype) if len(column) else np.empty(0, dtype))


class ResultRows:
    """The results of one file and algorithm as a reader of many collects them:
    parallel lists (a result is an item of each; ``folds`` maps a result's index to its
    folds, where it has them), handed to ``Collector.add_rows`` at once, with no object
    and no call per result."""

    __slots__ = ("datasets", "folds", "keys", "metrics", "standard_errors", "values")

    def __init__(self) -> None:
        self.datasets: list[str] = []
        self.metrics: list[str] = []
        self.values: list[float] = []
        self.keys: list[str] = []
        self.standard_errors: list[float | None] = []
        self.folds: dict[int, tuple[float, ...]] = {}

    def __len__(self) -> int:
        return len(self.values)

    def appenders(self) -> tuple[Callable[..., None], ...]:
        """The ``append`` of datasets, metrics, values, keys and standard errors, in that
        order: bound once, so a reader's loop makes one call per column and result."""
        return (
            self.datasets.append,
            self.metrics.append,
            self.values.append,
            self.keys.append,
            self.standard_errors.append,
        )


@dataclass(frozen=True, eq=False)
class CollectedResults:
    """Every result collected, as numpy columns (index = the order they were added).

    ``pairs`` are (algorithm, variant) labels, numbered in order of appearance;
    ``standard_errors`` is None when no result has one, else NaN where one has none;
    ``n_folds`` is None when no result has folds, else -1 for a result without them
    and how many it has, their values in ``fold_values`` (every result's in order).
    """

    datasets: tuple[str, ...]
    pairs: tuple[tuple[str, str], ...]
    metrics: tuple[str, ...]
    files: tuple[str, ...]
    keys: tuple[str, ...]
    dataset: np.ndarray
    pair: np.ndarray
    metric: np.ndarray
    file: np.ndarray
    key: np.ndarray
    values: np.ndarray
    standard_errors: np.ndarray | None
    n_folds: np.ndarray | None
    fold_values: np.ndarray

    def __len__(self) -> int:
        return len(self.values)

    def fold_starts(self) -> np.ndarray:
        """Where each result's folds begin in ``fold_values``."""
        if self.n_folds is None:
            return np.zeros(len(self), dtype=np.int64)
        counts = np.maximum(self.n_folds, 0).astype(np.int64)
        return np.cumsum(counts) - counts

    def folds_of(self, index: int, starts: np.ndarray) -> tuple[float, ...]:
        """Result ``index``'s folds (``starts``: :meth:`fold_starts`)."""
        if self.n_folds is None or self.n_folds[index] <= 0:
            return ()
        start = int(starts[index])
        return tuple(self.fold_values[start : start + int(self.n_folds[index])].tolist())

    def origin(self, index: int) -> tuple[str, str]:
        """The file and key result ``index`` was read from."""
        return self.files[self.file[index]], self.keys[self.key[index]]


class ResultColumns:
    """Results as they are added, coded a block at a time."""

    def __init__(self) -> None:
        self._pending: list[tuple] = []
        self._datasets = _Labels()
        self._algorithms = _Labels()
        self._variants = _Labels()
        self._metrics = _Labels()
        self._files = _Labels()
        self._keys = _Labels()
        self._dataset = array.array(_CODE)
        self._algorithm = array.array(_CODE)
        self._variant = array.array(_CODE)
        self._metric = array.array(_CODE)
        self._file = array.array(_CODE)
        self._key = array.array(_CODE)
        self._values = array.array("d")
        self._standard_errors: array.array | None = None  # until a result has one
        self._n_folds: array.array | None = None  # until a result has folds
        self._fold_values = array.array("d")

    def add(self, result: tuple) -> None:
        """One result: (dataset, algorithm, variant, metric, value, folds (None or a
        tuple), file, key, standard error (None or a float))."""
        self._pending.append(result)
        if len(self._pending) >= BLOCK_RESULTS:
            self._code_pending()

    def add_rows(self, file: str, algorithm: str, variant: str, rows: ResultRows) -> None:
        """The results of one file and algorithm, after those added before."""
        self._code_pending()
        n = len(rows)
        if not n:
            return
        self._dataset.extend(_codes(rows.datasets, self._datasets))
        self._algorithm.extend(_same_code(algorithm, self._algorithms, n))
        self._variant.extend(_same_code(variant, self._variants, n))
        metrics = rows.metrics
        if metrics.count(metrics[0]) == n:  # one metric in the file, as usual
            self._metric.extend(_same_code(metrics[0], self._metrics, n))
        else:
            self._metric.extend(_codes(metrics, self._metrics))
        self._file.extend(_same_code(file, self._files, n))
        self._key.extend(_codes(rows.keys, self._keys))
        folds: Sequence[tuple[float, ...] | None] = (None,) * n
        if rows.folds:
            folds = [rows.folds.get(i) for i in range(n)]
        self._add_values(rows.values, rows.standard_errors, folds)

    def _code_pending(self) -> None:
        if not self._pending:
            return
        datasets, algorithms, variants, metrics, values, folds, files, keys, errors = zip(
            *self._pending, strict=True
        )
        self._pending = []
        self._dataset.extend(_codes(datasets, self._datasets))
        self._algorithm.extend(_codes(algorithms, self._algorithms))
        self._variant.extend(_codes(variants, self._variants))
        self._metric.extend(_codes(metrics, self._metrics))
        self._file.extend(_codes(files, self._files))
        self._key.extend(_codes(keys, self._keys))
        self._add_values(values, errors, folds)

    def _add_values(
        self,
        values: Sequence[float],
        errors: Sequence[float | None],
        folds: Sequence[tuple[float, ...] | None],
    ) -> None:
        n, before = len(values), len(self._values)
        self._values.extend(array.array("d", values))
        if errors.count(None) != n and self._standard_errors is None:
            self._standard_errors = array.array("d", [math.nan]) * before
        if self._standard_errors is not None:
            self._standard_errors.extend(
                array.array("d", [math.nan]) * n
                if errors.count(None) == n
                else array.array("d", [math.nan if e is None else e for e in errors])
            )
        if folds.count(None) != n and self._n_folds is None:
            self._n_folds = array.array(_CODE, [-1]) * before
        if self._n_folds is not None:
            self._n_folds.extend(array.array(_CODE, [-1 if f is None else len(f) for f in folds]))
            for given in folds:
                if given:
                    self._fold_values.extend(array.array("d", given))

    def collected(self) -> CollectedResults:
        """Everything added so far, as read-only numpy columns (views of the buffers:
        add nothing after this)."""
        self._code_pending()
        algorithms, variants = tuple(self._algorithms), tuple(self._variants)
        pair = _as_array(self._algorithm)
        pairs = tuple((name, variants[0]) for name in algorithms) if len(variants) == 1 else ()
        if len(variants) > 1:  # each (algorithm, variant) the results name, in order
            width = len(variants)
            combined = pair.astype(np.int64) * width + _as_array(self._variant)
            used, first, inverse = np.unique(combined, return_index=True, return_inverse=True)
            order = np.argsort(first, kind="stable")
            rank = np.empty(len(used), dtype=np.int64)
            rank[order] = np.arange(len(used))
            pair = _read_only(rank[inverse.reshape(-1)])
            pairs = tuple(
                (algorithms[code // width], variants[code % width]) for code in used[order].tolist()
            )
        return CollectedResults(
            datasets=tuple(self._datasets),
            pairs=pairs,
            metrics=tuple(self._metrics),
            files=tuple(self._files),
            keys=tuple(self._keys),
            dataset=_as_array(self._dataset),
            pair=pair,
            metric=_as_array(self._metric),
            file=_as_array(self._file),
            key=_as_array(self._key),
            values=_as_array(self._values),
            standard_errors=(
                None if self._standard_errors is None else _as_array(self._standard_errors)
            ),
            n_folds=None if self._n_folds is None else _as_array(self._n_folds),
            fold_values=_as_array(self._fold_values),
        )


@dataclass(frozen=True, eq=False)
class Origins:
    """Where each record of an import was read: record ``i``'s file and key, and its
    fold (``fold`` None: no record is one fold of a result; -1: this one is not)."""

    files: tuple[str, ...]
    keys: tuple[str, ...]
    file: np.ndarray
    key: np.ndarray
    fold: np.ndarray | None

    def __len__(self) -> int:
        return len(self.file)

    def __getitem__(self, index: int) -> str:
        """``"<file>: <key>"``, with `` (fold <n>)`` for one fold of a result."""
        where = shown_where(self.files[self.file[index]], self.keys[self.key[index]])
        fold = -1 if self.fold is None else int(self.fold[index])
        return where if fold < 0 else f"{where} (fold {fold})"


def shown_where(file: str, key: str) -> str:
    """``"<file>: <key>"`` as a problem names it. A file's name and keys are the
    uploader's text: the characters a reader cannot see and a response or the database
    cannot carry (controls, invisible characters, lone surrogates) are escaped as Python
    writes them (``\\x00``, ``\\ud800``)."""
    where = ": ".join(part for part in (file, key) if part)
    if control_character_problem(where) is None:
        return where
    return "".join(c if control_character_problem(c) is None else repr(c)[1:-1] for c in where)
