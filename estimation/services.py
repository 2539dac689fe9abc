"""Database -> arrays -> core -> snapshot."""

from __future__ import annotations

import hashlib
import json
import logging
import time

import numpy as np
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from estimation.core.analysis import ENGINE_VERSION, AnalysisSettings, analyze
from estimation.core.table import ResultTable
from estimation.models import ResultSnapshot
from leaderboard.models import Benchmark, Metric
from leaderboard.selectors import accepted_score_rows

logger = logging.getLogger(__name__)


def result_table_build(*, benchmark: Benchmark, metric: Metric) -> ResultTable:
    """Accepted scores of one metric as a ResultTable (fold means when folds exist)."""
    cells: dict[tuple[str, str, int | None], float] = {}
    for dataset, algorithm, fold, value in accepted_score_rows(benchmark=benchmark, metric=metric):
        cells.setdefault((dataset, algorithm, fold), value)  # newest submission wins
    datasets = tuple(sorted({d for d, _, _ in cells}))
    algorithms = tuple(sorted({a for _, a, _ in cells}))
    row = {name: i for i, name in enumerate(datasets)}
    col = {name: j for j, name in enumerate(algorithms)}
    sums = np.zeros((len(datasets), len(algorithms)))
    counts = np.zeros_like(sums)
    for (dataset, algorithm, _fold), value in cells.items():
        sums[row[dataset], col[algorithm]] += value
        counts[row[dataset], col[algorithm]] += 1
    with np.errstate(invalid="ignore"):
        values = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    return ResultTable(
        datasets=datasets,
        algorithms=algorithms,
        values=values,
        higher_is_better=metric.higher_is_better,
    )


def analysis_settings_for(*, benchmark: Benchmark) -> AnalysisSettings:
    return AnalysisSettings()


def fingerprint(table: ResultTable, settings: AnalysisSettings) -> str:
    """A stable hash of everything a snapshot depends on."""
    digest = hashlib.sha256()
    header = {
        "engine": ENGINE_VERSION,
        "settings": settings.to_dict(),
        "datasets": table.datasets,
        "algorithms": table.algorithms,
        "kind": table.kind,
        "higher_is_better": table.higher_is_better,
    }
    digest.update(json.dumps(header, sort_keys=True).encode())
    digest.update(np.ascontiguousarray(table.values).tobytes())
    if table.fold_values is not None:
        digest.update(np.ascontiguousarray(table.fold_values).tobytes())
    return digest.hexdigest()


def snapshot_refresh(*, benchmark_id: int) -> list[ResultSnapshot]:
    """Recompute every metric of a benchmark whose input changed; return new snapshots."""
    benchmark = Benchmark.objects.get(pk=benchmark_id)
    settings = analysis_settings_for(benchmark=benchmark)
    created = []
    for metric in benchmark.metrics.all():
        snapshot = _snapshot_compute(benchmark=benchmark, metric=metric, settings=settings)
        if snapshot is not None:
            created.append(snapshot)
    return created


def _snapshot_compute(
    *, benchmark: Benchmark, metric: Metric, settings: AnalysisSettings
) -> ResultSnapshot | None:
    started = time.perf_counter()
    table = result_table_build(benchmark=benchmark, metric=metric)
    if table.n_datasets == 0 or table.n_algorithms == 0:
        return None
    key = fingerprint(table, settings)
    with transaction.atomic():
        # The row lock serialises version numbers between concurrent workers.
        Benchmark.objects.select_for_update().get(pk=benchmark.pk)
        existing = ResultSnapshot.objects.filter(benchmark=benchmark, metric=metric)
        if existing.filter(fingerprint=key, status=ResultSnapshot.Status.READY).exists():
            return None
        version = (existing.aggregate(v=Max("version"))["v"] or 0) + 1
        snapshot = ResultSnapshot.objects.create(
            benchmark=benchmark,
            metric=metric,
            version=version,
            fingerprint=key,
            engine_version=ENGINE_VERSION,
            stage="analysing",
        )
    loaded = time.perf_counter()
    try:
        payload = analyze(table, settings).to_dict()
    except Exception as exc:
        logger.exception("analysis of %s / %s failed", benchmark.slug, metric.name)
        snapshot.status = ResultSnapshot.Status.FAILED
        snapshot.error = f"{type(exc).__name__}: {exc}"
        snapshot.stage = ""
        snapshot.finished_at = timezone.now()
        snapshot.save(update_fields=["status", "error", "stage", "finished_at"])
        return snapshot
    finished = time.perf_counter()
    snapshot.payload = payload
    snapshot.status = ResultSnapshot.Status.READY
    snapshot.stage = ""
    snapshot.finished_at = timezone.now()
    snapshot.timings = {"load_s": loaded - started, "analyse_s": finished - loaded}
    snapshot.save(update_fields=["payload", "status", "stage", "finished_at", "timings"])
    return snapshot
