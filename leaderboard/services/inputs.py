"""What a submission is made of before it is stored: scores by dataset (one at a time, or
a columnar block of many), per algorithm."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class ScoreInput:
    dataset: str
    value: float
    metric: str | None = None
    fold: int | None = None
    line: int | None = None
    # A file's column holding the value ("score", "rank", a wide file's algorithm), which
    # a problem with the value names; None: the API's "value".
    value_column: str | None = None


@dataclass(frozen=True, eq=False)
class ScoreBlock(Sequence[ScoreInput]):
    """One algorithm's scores from a parsed results file, as columns.

    A million-row file would otherwise become a million :class:`ScoreInput` objects
    (the peak memory of an upload): the services check and store a block with numpy
    and write it to the binary COPY straight from these arrays. It is still a sequence
    of ``ScoreInput`` (built one at a time on access), so every reader of
    ``SubmissionInput.scores`` works unchanged. Codes index ``datasets``/``metrics``;
    ``-1`` is no metric (the primary one) or no fold.
    """

    datasets: tuple[str, ...]
    metrics: tuple[str, ...]
    dataset_codes: np.ndarray
    metric_codes: np.ndarray
    folds: np.ndarray
    values: np.ndarray
    lines: np.ndarray
    value_column: str | None = None  # the file's column of the values (ScoreInput's)

    def __len__(self) -> int:
        return len(self.values)

    def _score(self, d: int, k: int, fold: int, value: float, line: int) -> ScoreInput:
        return ScoreInput(
            dataset=self.datasets[d],
            value=value,
            metric=self.metrics[k] if k >= 0 else None,
            fold=fold if fold >= 0 else None,
            line=line,
            value_column=self.value_column,
        )

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        i = range(len(self))[index]
        return self._score(
            int(self.dataset_codes[i]),
            int(self.metric_codes[i]),
            int(self.folds[i]),
            float(self.values[i]),
            int(self.lines[i]),
        )

    def __iter__(self):
        for d, k, fold, value, line in zip(
            self.dataset_codes.tolist(),
            self.metric_codes.tolist(),
            self.folds.tolist(),
            self.values.tolist(),
            self.lines.tolist(),
            strict=True,
        ):
            yield self._score(d, k, fold, value, line)

    def used_datasets(self) -> list[str]:
        """The dataset names of this block, in order of first appearance."""
        codes, first = np.unique(self.dataset_codes, return_index=True)
        return [self.datasets[c] for c in codes[np.argsort(first, kind="stable")].tolist()]


@dataclass(frozen=True)
class SubmissionInput:
    algorithm: str
    scores: Sequence[ScoreInput]
    algorithm_url: str = ""
    algorithm_version: str = ""
    note: str = ""
    extra: dict = field(default_factory=dict)
    algorithm_metadata: dict = field(default_factory=dict)  # ALGORITHM_METADATA keys
    provenance: dict = field(default_factory=dict)
