"""The web form's grid of scores: datasets down, (metric, fold) columns across, as typed.

A benchmark with several metrics gets one group of fold columns per metric, so one
submission carries all of them; a metric whose columns are left empty is not submitted.

The grid keeps every cell as the text the researcher typed, so a page re-rendered
after an error (or after adding a row or changing the number of folds) loses nothing.
Each score handed to the services carries a synthetic ``line`` that maps the
services' problems back to the cell they came from.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from django.conf import settings

from frontend.contribute.form_errors import SummaryError
from leaderboard.services import Problem, ScoreInput

ROWS_FIELD = "grid-rows"
FOLDS_FIELD = "grid-folds"
NEW_ROWS_WHEN_EMPTY = 3
# Inputs outside the grid (details form, CSRF, buttons, counters), with room to spare.
OTHER_FIELDS = 20


def max_form_fields() -> int | None:
    """Django refuses a POST with more fields than this (None: no limit)."""
    return settings.DATA_UPLOAD_MAX_NUMBER_FIELDS


@dataclass
class GridCell:
    row: int
    fold: int
    value: str
    label: str
    errors: list[str] = field(default_factory=list)
    metric: int = 0  # index into ScoreGrid.metrics
    column: int = 0  # metric * folds + fold: the position in the row, and the input's name

    @property
    def name(self) -> str:
        return f"grid-{self.row}-{self.column}"

    @property
    def error_id(self) -> str:
        return f"{self.name}-error"


@dataclass
class GridRow:
    index: int
    dataset: str
    is_new: bool
    cells: list[GridCell]
    errors: list[str] = field(default_factory=list)

    @property
    def dataset_name(self) -> str:
        return f"grid-{self.index}-dataset"

    @property
    def new_name(self) -> str:
        return f"grid-{self.index}-new"

    @property
    def error_id(self) -> str:
        return f"grid-{self.index}-error"

    @property
    def anchor(self) -> str:
        """Where a row's error summary links: its name box, or its first cell."""
        return self.dataset_name if self.is_new else self.cells[0].name

    @property
    def has_errors(self) -> bool:
        return bool(self.errors) or any(cell.errors for cell in self.cells)


@dataclass
class ScoreGrid:
    folds: int
    rows: list[GridRow]
    value_label: str = "score"
    errors: list[str] = field(default_factory=list)
    # The benchmark's metric names; with more than one, each gets its fold columns.
    metrics: list[str] = field(default_factory=list)

    @property
    def n_metrics(self) -> int:
        return max(len(self.metrics), 1)

    @property
    def n_columns(self) -> int:
        return self.n_metrics * self.folds

    # --- building ---------------------------------------------------------------------

    @classmethod
    def initial(
        cls,
        *,
        datasets: Iterable[str],
        folds: int,
        allow_new: bool,
        value_label: str,
        metrics: list[str] | None = None,
    ) -> ScoreGrid:
        grid = cls(folds=folds, rows=[], value_label=value_label, metrics=list(metrics or []))
        for name in datasets:
            grid._append(name, is_new=False, values=[])
        if not grid.rows and allow_new:
            for _ in range(NEW_ROWS_WHEN_EMPTY):
                grid.add_row()
        return grid

    @classmethod
    def from_post(
        cls,
        data: Mapping[str, str],
        *,
        known: set[str],
        value_label: str,
        metrics: list[str] | None = None,
    ) -> ScoreGrid:
        """The grid as it was on the page that was posted (its own row and fold counts)."""
        folds = _bounded_int(data.get(FOLDS_FIELD), default=1, low=1, high=1000)
        n_rows = _bounded_int(data.get(ROWS_FIELD), default=0, low=0, high=10_000)
        grid = cls(folds=folds, rows=[], value_label=value_label, metrics=list(metrics or []))
        limit = max_form_fields()
        if limit is not None:  # the counts are posted too: never read more cells than fit
            n_rows = min(n_rows, limit // (grid.n_columns + 2))
        for index in range(n_rows):
            name = data.get(f"grid-{index}-dataset", "").strip()
            is_new = f"grid-{index}-new" in data or name not in known
            values = [
                data.get(f"grid-{index}-{column}", "").strip() for column in range(grid.n_columns)
            ]
            grid._append(name, is_new=is_new, values=values)
        return grid

    def _append(self, dataset: str, *, is_new: bool, values: list[str]) -> None:
        index = len(self.rows)
        row = GridRow(index=index, dataset=dataset, is_new=is_new, cells=[])
        row.cells = self._cells(
            index, lambda column: values[column] if column < len(values) else ""
        )
        self.rows.append(row)
        self._label(row)

    def _cells(self, row: int, value_at) -> list[GridCell]:
        return [
            GridCell(
                row,
                fold,
                value_at(metric * self.folds + fold),
                "",
                metric=metric,
                column=metric * self.folds + fold,
            )
            for metric in range(self.n_metrics)
            for fold in range(self.folds)
        ]

    def _label(self, row: GridRow) -> None:
        who = row.dataset or f"new dataset row {row.index + 1}"
        for cell in row.cells:
            where = f", fold {cell.fold}" if self.folds > 1 else ""
            what = self.metrics[cell.metric] if len(self.metrics) > 1 else self.value_label
            cell.label = f"{what} of {who}{where}"

    def add_row(self) -> None:
        self._append("", is_new=True, values=[])

    def resize(self, folds: int) -> None:
        """Change the number of fold columns, keeping what was typed in the columns kept."""
        self.folds = folds
        for row in self.rows:
            kept = {(cell.metric, cell.fold): cell.value for cell in row.cells}
            row.cells = self._cells(
                row.index, lambda column, kept=kept: kept.get(divmod(column, folds), "")
            )
            self._label(row)

    # --- reading ----------------------------------------------------------------------

    @property
    def columns(self) -> list[str]:
        if len(self.metrics) > 1:
            return [
                name if self.folds == 1 else f"{name}, fold {fold}"
                for name in self.metrics
                for fold in range(self.folds)
            ]
        if self.folds == 1:
            return [self.value_label]
        return [f"fold {fold}" for fold in range(self.folds)]

    def fits(self, *, folds: int | None = None, extra_rows: int = 0) -> bool:
        limit = max_form_fields()
        if limit is None:
            return True
        folds = self.folds if folds is None else folds
        rows = len(self.rows) + extra_rows
        return rows * (folds * self.n_metrics + 2) + OTHER_FIELDS <= limit

    def scores(self) -> tuple[list[ScoreInput], dict[int, GridCell]]:
        """The typed values as score inputs, and the cell behind each input's ``line``.

        Problems the form can see on its own (not a number, a half-filled row of folds,
        a nameless or repeated dataset) are put on their cells and rows; the caller
        checks :attr:`has_errors` before submitting.
        """
        scores: list[ScoreInput] = []
        cell_of_line: dict[int, GridCell] = {}
        seen: dict[str, int] = {}
        for row in self.rows:
            filled = [cell for cell in row.cells if cell.value]
            if not filled:
                continue
            if not row.dataset:
                row.errors.append("Name this dataset, or clear its scores.")
            elif row.dataset in seen:
                row.errors.append(
                    f"Dataset “{row.dataset}” is already on row {seen[row.dataset] + 1}."
                )
            else:
                seen[row.dataset] = row.index
            for metric in range(self.n_metrics):
                given = sum(1 for cell in filled if cell.metric == metric)
                if self.folds > 1 and 0 < given < self.folds:
                    of = f" for {self.metrics[metric]}" if len(self.metrics) > 1 else ""
                    row.errors.append(
                        f"Give all {self.folds} folds of this dataset{of}, or none ({given} given)."
                    )
            for cell in filled:
                value = _number(cell.value)
                if value is None:
                    cell.errors.append(f"“{cell.value}” is not a finite number.")
                    continue
                line = len(cell_of_line) + 1
                cell_of_line[line] = cell
                scores.append(
                    ScoreInput(
                        dataset=row.dataset,
                        value=value,
                        fold=cell.fold if self.folds > 1 else None,
                        metric=self.metrics[cell.metric] if len(self.metrics) > 1 else None,
                        line=line,
                    )
                )
        if not scores and not self.has_errors:
            self.errors.append(f"Enter at least one {self.value_label}.")
        return scores, cell_of_line

    @property
    def has_errors(self) -> bool:
        return bool(self.errors) or any(row.has_errors for row in self.rows)

    def add_problems(
        self, problems: Iterable[Problem], cell_of_line: Mapping[int, GridCell]
    ) -> list[Problem]:
        """Put the services' problems on their cells or rows; return those of no cell."""
        rest = []
        for problem in problems:
            cell = cell_of_line.get(problem.line) if problem.line is not None else None
            if cell is None:
                rest.append(problem)
            elif problem.field == "dataset":
                row = self.rows[cell.row]
                if problem.message not in row.errors:
                    row.errors.append(problem.message)
            else:
                cell.errors.append(problem.message)
        return rest

    def summary(self) -> list[SummaryError]:
        items = [SummaryError(message, "#score-grid") for message in self.errors]
        for row in self.rows:
            who = row.dataset or f"new row {row.index + 1}"
            items += [SummaryError(f"{who}: {message}", f"#{row.anchor}") for message in row.errors]
            for cell in row.cells:
                items += [
                    SummaryError(f"{cell.label}: {message}", f"#{cell.name}")
                    for message in cell.errors
                ]
        return items


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _bounded_int(text: str | None, *, default: int, low: int, high: int) -> int:
    try:
        value = int(text) if text is not None else default
    except ValueError:
        value = default
    return min(max(value, low), high)
