"""What a parsed results file is: its records (columns of codes and values), and what
refusing one is (every problem with its line and column)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

import numpy as np

from estimation.core.table import ResultTable, fold_means

# Optional columns of a long file that describe its algorithms (ParsedResults.algorithm_metadata).
ALGORITHM_COLUMNS: tuple[str, ...] = ("url", "family", "parameters", "licence", "revision")
# Other spellings of a column name, read as the name itself (lower case -> column name).
COLUMN_ALIASES: Mapping[str, str] = {"license": "licence"}

Format = Literal["long", "wide", "ranking"]
FORMATS: tuple[str, ...] = ("long", "wide", "ranking")
Incomplete = Literal["refuse", "drop"]
INCOMPLETE: tuple[str, ...] = ("refuse", "drop")


# RowError.kind of a fold gap: an entry point may offer to drop what is incomplete.
INCOMPLETE_FOLDS = "incomplete-folds"
# RowError.kind of a header the parser cannot place (no dataset, algorithm or score
# column it knows): an entry point may offer to map the file's own columns.
UNRECOGNISED_COLUMNS = "unrecognised-columns"
# A ranking file's header, all of it: the parser's, the template's and the exports'.
RANKING_HEADER = ("dataset", "algorithm", "rank")


@dataclass(frozen=True)
class RowError:
    """One problem in the file: 1-based ``line`` (header = 1) and the header ``column``.

    ``kind`` is ``INCOMPLETE_FOLDS`` for an algorithm lacking folds others have (which
    ``incomplete="drop"`` would leave out), ``UNRECOGNISED_COLUMNS`` for a header whose
    columns a mapping could name, else empty.
    """

    line: int
    column: str | None
    message: str
    kind: str = ""

    def __str__(self) -> str:
        if self.column is None:
            return f"line {self.line}: {self.message}"
        return f'line {self.line}, column "{self.column}": {self.message}'


def told_once(
    problems: Iterable[tuple[str, int | None, str | None, str]], *, lines_shown: int = 5
) -> list[str]:
    """Problems as a person reads them: the same message in the same column on many
    lines is one entry naming its lines, so a file with one wrong column is one line.

    Each problem is ``(its own text, line, column, message)``; one of no line (the
    whole input) or told once is its own text, in first-seen order.
    """
    grouped: dict[tuple[str | None, str] | int, list[tuple[str, int | None]]] = {}
    for index, (text, line, column, message) in enumerate(problems):
        key = (column, message) if line is not None else index
        grouped.setdefault(key, []).append((text, line))
    told = []
    for key, same in grouped.items():
        if len(same) == 1 or isinstance(key, int):
            told.append(same[0][0])
            continue
        column, message = key
        lines = [str(line) for _, line in same[:lines_shown]]
        more = len(same) - lines_shown
        if more > 0:
            where = f"lines {', '.join(lines)} and {more} more"
        else:
            where = f"lines {', '.join(lines[:-1])} and {lines[-1]}"
        told.append(where + (f', column "{column}"' if column else "") + f": {message}")
    return told


def flags_array(flags: list[bool]) -> np.ndarray:
    """``flags`` as a boolean array (of length 0 when there are none), to index by codes."""
    return np.array(flags, dtype=bool) if flags else np.zeros(0, dtype=bool)


class ResultsCsvError(ValueError):
    """The file was rejected; ``errors`` lists the problems in line order.

    ``errors`` keeps at most ``max_errors`` entries; ``total`` counts all of them and
    ``n_more = total - len(errors)``. ``str()`` lists them, ending with "... and N more"
    when some were left out.
    """

    def __init__(
        self,
        errors: Iterable[RowError],
        total: int | None = None,
        partial: ParsedResults | None = None,
    ) -> None:
        self.errors: tuple[RowError, ...] = tuple(sorted(errors, key=lambda e: e.line))
        self.total: int = len(self.errors) if total is None else total
        # The rows that did read, so that the benchmark's rules (unknown datasets, valid
        # ranges) are checked in the same answer (services.results_file_refusal).
        self.partial = partial
        super().__init__(self._describe())

    @property
    def n_more(self) -> int:
        return self.total - len(self.errors)

    def _describe(self) -> str:
        if self.total == 1 and self.errors:
            return str(self.errors[0])
        lines = [f"{self.total} errors in the results file:"]
        problems = ((str(e), e.line, e.column, e.message) for e in self.errors)
        lines += [f"  {text}" for text in told_once(problems)]
        if self.n_more:
            lines.append(f"  ... and {self.n_more} more")
        return "\n".join(lines)

    def __reduce__(self):  # keep it picklable (Celery results, multiprocessing)
        return (type(self), (self.errors, self.total))


@dataclass(frozen=True)
class ScoreRecord:
    """One result as read from the file (``value`` is the rank for ranking files)."""

    line: int
    dataset: str
    algorithm: str
    value: float
    fold: int | None = None
    metric: str | None = None


@dataclass(frozen=True, eq=False)
class ParsedResults:
    """A validated results file.

    ``datasets``, ``algorithms`` and ``metrics`` are in first-seen order (wide files:
    row order and header order, including rows or columns without any value). The
    records are stored as parallel read-only columns (``lines``, ``dataset_codes``,
    ``algorithm_codes``, ``values``, ``folds``, ``metric_codes``; codes index the label
    tuples, ``-1`` = no fold / no metric) so that a million rows stay cheap;
    :attr:`records` builds :class:`ScoreRecord` objects on demand. ``dropped`` says
    which algorithm's results on which dataset ``incomplete="drop"`` left out (the
    first ``max_errors``; ``n_dropped`` counts them all); their labels stay listed.
    """

    format: Format
    kind: Literal["score", "rank"]
    datasets: tuple[str, ...]
    algorithms: tuple[str, ...]
    metrics: tuple[str, ...]
    has_folds: bool
    lines: np.ndarray
    dataset_codes: np.ndarray
    algorithm_codes: np.ndarray
    values: np.ndarray
    folds: np.ndarray
    metric_codes: np.ndarray
    dropped: tuple[RowError, ...] = ()
    n_dropped: int = 0
    # algorithm -> {column of ALGORITHM_COLUMNS: value} (parameters as an int)
    algorithm_metadata: Mapping[str, Mapping[str, str | int]] = field(default_factory=dict)
    # The header cell of the values as written ("score", "value", "rank"), so that a
    # later problem names the file's column; empty in a wide file (each algorithm's own).
    value_column: str = ""
    # line -> the standard error a long file gave with that line's score (optional column)
    standard_errors: Mapping[int, float] = field(default_factory=dict)

    @property
    def n_records(self) -> int:
        return len(self.lines)

    @cached_property
    def records(self) -> tuple[ScoreRecord, ...]:
        datasets, algorithms, metrics = self.datasets, self.algorithms, self.metrics
        return tuple(
            ScoreRecord(
                line,
                datasets[d],
                algorithms[a],
                value,
                None if fold < 0 else fold,
                None if k < 0 else metrics[k],
            )
            for line, d, a, value, fold, k in zip(
                self.lines.tolist(),
                self.dataset_codes.tolist(),
                self.algorithm_codes.tolist(),
                self.values.tolist(),
                self.folds.tolist(),
                self.metric_codes.tolist(),
                strict=True,
            )
        )

    def to_table(self, *, metric: str | None = None, higher_is_better: bool = True) -> ResultTable:
        """The engine's input for one metric.

        ``values`` holds the fold means (scores) or the given ranks (``kind="rank"``),
        ``NaN`` where there is no result. With folds, ``fold_values`` has shape
        ``(n, f, m)``, ``f`` the largest number of folds of a dataset, ``NaN``-padded.
        A file with several metrics needs ``metric``; then only the datasets and
        algorithms with a result for that metric are kept (in first-seen order).

        Raises ``ValueError`` naming the available metrics when ``metric`` is missing
        or unknown.
        """
        mask = self._metric_mask(metric)
        d, a = self.dataset_codes, self.algorithm_codes
        values, folds, lines = self.values, self.folds, self.lines
        datasets, algorithms = self.datasets, self.algorithms
        if mask is not None:
            d, a, values, folds, lines = d[mask], a[mask], values[mask], folds[mask], lines[mask]
            d, datasets = _compact(d, datasets)
            a, algorithms = _compact(a, algorithms)
        n, m = len(datasets), len(algorithms)
        fold_values = None
        if self.has_folds:
            fold_values = _fold_cube(d, a, values, folds, n, m)
            means = fold_means(fold_values, datasets=datasets, algorithms=algorithms)
        else:  # one value per cell
            means = np.full((n, m), np.nan)
            means[d, a] = values
        return ResultTable(
            datasets=datasets,
            algorithms=algorithms,
            values=means,
            kind=self.kind,
            higher_is_better=higher_is_better,
            fold_values=fold_values,
            standard_errors=self._cell_standard_errors(d, a, lines, folds, (n, m)),
        )

    def _cell_standard_errors(
        self, d: np.ndarray, a: np.ndarray, lines: np.ndarray, folds: np.ndarray, shape
    ) -> np.ndarray | None:
        """The standard error given with each dataset-level score (rows without a fold);
        None when the file gave none."""
        if not self.standard_errors or self.kind != "score":
            return None
        errors = np.full(shape, np.nan)
        given = np.array([self.standard_errors.get(line, np.nan) for line in lines.tolist()])
        cell = (folds < 0) & np.isfinite(given)
        errors[d[cell], a[cell]] = given[cell]
        return errors if cell.any() else None

    def _metric_mask(self, metric: str | None) -> np.ndarray | None:
        if not self.metrics:
            if metric is not None:
                raise ValueError(f"metric={metric!r} was given, but the file has no metric column")
            return None
        available = ", ".join(repr(name) for name in self.metrics)
        if metric is None:
            if len(self.metrics) == 1:
                return None
            raise ValueError(
                f"the file has {len(self.metrics)} metrics ({available}): choose one with metric="
            )
        if metric not in self.metrics:
            raise ValueError(f"unknown metric {metric!r}; the file has {available}")
        if len(self.metrics) == 1:
            return None
        return self.metric_codes == self.metrics.index(metric)


def _read_only(column: np.ndarray) -> np.ndarray:
    column.setflags(write=False)
    return column


def _compact(codes: np.ndarray, labels: tuple[str, ...]) -> tuple[np.ndarray, tuple[str, ...]]:
    """Drop unused labels, keeping first-seen order (codes were assigned in that order)."""
    used = np.unique(codes)
    remap = np.full(len(labels), -1, dtype=np.int64)
    remap[used] = np.arange(len(used))
    return remap[codes], tuple(labels[i] for i in used.tolist())


def _fold_cube(
    d: np.ndarray, a: np.ndarray, values: np.ndarray, folds: np.ndarray, n: int, m: int
) -> np.ndarray:
    """``(n, f, m)`` fold scores; a dataset's folds fill slots 0.. in ascending label order."""
    fold_codes = np.unique(folds, return_inverse=True)[1].reshape(-1)
    n_f = int(fold_codes.max()) + 1
    pairs, slot_of_row = np.unique(d * n_f + fold_codes, return_inverse=True)
    pair_dataset = pairs // n_f
    slot = np.arange(len(pairs)) - np.searchsorted(pair_dataset, pair_dataset)
    cube = np.full((n, int(slot.max()) + 1, m), np.nan)
    cube[d, slot[slot_of_row.reshape(-1)], a] = values
    return cube
