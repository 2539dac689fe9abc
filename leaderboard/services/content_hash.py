"""What a submission's content hash covers: the algorithms and their scores, in order.

An idempotency key replays only the content it was first used for. The hash reads the
scores as columns: names once each (in first-seen order) and each score's dataset and
metric position, fold and value as fixed-width bytes, so a million-score file costs
numpy passes, not a million float reprs (0.4 s of a 2.3 s upload). Submissions stored
before this hash (2026-12-03) hold :func:`content_hash_legacy`'s, which a replay also
accepts.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from leaderboard.services.inputs import ScoreBlock, ScoreInput, SubmissionInput

_VERSION = b"podium content 2"
_PRIMARY = "\x00"  # the metric of a score that names none (control characters are refused)


def content_hash(entries: Sequence[SubmissionInput]) -> str:
    digest = hashlib.sha256(_VERSION)
    for entry in entries:
        columns = (
            _block_columns(entry.scores)
            if isinstance(entry.scores, ScoreBlock)
            else _row_columns(entry.scores)
        )
        if columns is None:  # a value or fold no column holds: refused later anyway
            return content_hash_legacy(entries)
        for part in (_text([entry.algorithm]), *columns):
            digest.update(len(part).to_bytes(8, "little"))
            digest.update(part)
    return digest.hexdigest()


def _text(names) -> bytes:
    return "\x1f".join(names).encode("utf-8", "surrogatepass")


def _first_seen(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct codes in first-seen order, and each code's position among them."""
    distinct, first = np.unique(codes, return_index=True)
    order = np.argsort(first, kind="stable")
    position = np.empty(len(distinct), dtype=np.int64)
    position[order] = np.arange(len(distinct))
    return distinct[order], position[np.searchsorted(distinct, codes)]


def _block_columns(block: ScoreBlock) -> tuple[bytes, ...]:
    datasets, dataset_at = _first_seen(block.dataset_codes)
    metric_names = [_PRIMARY, *block.metrics]  # code -1: the primary metric
    metrics, metric_at = _first_seen(block.metric_codes + 1)
    return (
        _text(block.datasets[d] for d in datasets.tolist()),
        dataset_at.astype("<i8").tobytes(),
        _text(metric_names[k] for k in metrics.tolist()),
        metric_at.astype("<i8").tobytes(),
        np.asarray(block.folds, dtype="<i8").tobytes(),
        np.asarray(block.values, dtype="<f8").tobytes(),
    )


def _row_columns(scores: Sequence[ScoreInput]) -> tuple[bytes, ...] | None:
    """The same columns as a block's from ScoreInput rows (the API's and the form's)."""
    datasets: dict = {}
    metrics: dict = {}
    try:
        dataset_at = [datasets.setdefault(s.dataset, len(datasets)) for s in scores]
        metric_at = [
            metrics.setdefault(_PRIMARY if s.metric is None else s.metric, len(metrics))
            for s in scores
        ]
        folds = np.array([-1 if s.fold is None else s.fold for s in scores], dtype="<i8")
        values = np.array([s.value for s in scores], dtype="<f8")
        names = (_text(datasets), _text(metrics))
    except (TypeError, ValueError, OverflowError, AttributeError):
        return None
    if any(
        type(s.fold) not in (int, type(None)) or type(s.value) not in (float, int) for s in scores
    ):
        return None  # True, 1.0 as a fold, "0.5" as a value: not what a block holds
    return (
        names[0],
        np.array(dataset_at, dtype="<i8").tobytes(),
        names[1],
        np.array(metric_at, dtype="<i8").tobytes(),
        folds.tobytes(),
        values.tobytes(),
    )


def content_hash_legacy(entries: Sequence[SubmissionInput]) -> str:
    """The hash stored before 2026-12-03: a text line per score (``repr`` of the value)."""
    digest = hashlib.sha256()
    for entry in entries:
        digest.update(entry.algorithm.encode())
        for score in entry.scores:
            digest.update(
                f"{score.dataset}\x1f{score.metric}\x1f{score.fold}\x1f{score.value!r}".encode()
            )
    return digest.hexdigest()
