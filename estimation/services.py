"""Database -> arrays -> core -> snapshot, and the coalescing recompute pipeline.

Writers call :func:`recompute_request` inside their transaction: it bumps the
benchmark's requested revision and enqueues ``recompute_benchmark`` after commit. A run
(:func:`recompute_run`) takes a per-benchmark lease, computes every metric whose input
fingerprint changed, records the revision it computed, and loops once more if changes
arrived meanwhile. Duplicate tasks find nothing to do; a dead worker's lease expires.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from datetime import timedelta

import numpy as np
from django.conf import settings as django_settings
from django.db import transaction
from django.db.models import F, Max, Q
from django.utils import timezone

from estimation.background import recompute_dispatch
from estimation.core.analysis import ENGINE_VERSION, AnalysisSettings, analyze, analyze_advisor
from estimation.core.contract import SCHEMA_VERSION, NotApplicable, SnapshotPayload, to_json
from estimation.core.table import ResultTable
from estimation.models import RecomputeState, ResultSnapshot, SnapshotSection
from leaderboard.models import Benchmark, Metric
from leaderboard.selectors import accepted_score_columns

logger = logging.getLogger(__name__)

ABANDONED = "abandoned"


def result_table_build(
    *, benchmark: Benchmark, metric: Metric, bulk: bool | None = None
) -> ResultTable:
    """Accepted scores of one metric as a ResultTable (fold means when folds exist).

    A newer accepted submission of an algorithm supersedes an older one cell by cell
    (dataset, fold). Scores are read as columns (packed bytes on PostgreSQL, see
    :func:`leaderboard.selectors.accepted_score_columns`) and placed with numpy in
    O(rows): only the rows of algorithms with several accepted submissions are sorted.
    """
    columns = accepted_score_columns(benchmark=benchmark, metric=metric, bulk=bulk)
    keep = _newest_cells(columns)
    dataset, algorithm = columns.dataset[keep], columns.algorithm[keep]
    fold, value = columns.fold[keep], columns.value[keep]
    # Codes follow name order already: keep the labels that have a cell, renumbered.
    rows, dataset = _present(dataset, len(columns.dataset_names))
    cols, algorithm = _present(algorithm, len(columns.algorithm_names))
    datasets = tuple(columns.dataset_names[i] for i in rows.tolist())
    algorithms = tuple(columns.algorithm_names[j] for j in cols.tolist())
    n, m = len(datasets), len(algorithms)
    folded = fold >= 0
    values = np.full((n, m), np.nan)
    values[dataset[~folded], algorithm[~folded]] = value[~folded]
    fold_values = None
    if folded.any():
        fold_labels = fold[folded]
        if fold_labels.max() < 1_000_000:  # fold numbers are small: no sort needed
            folds, fold_index = _present(fold_labels, int(fold_labels.max()) + 1)
        else:
            folds, fold_index = np.unique(fold_labels, return_inverse=True)
        fold_values = np.full((n, len(folds), m), np.nan)
        fold_values[dataset[folded], fold_index, algorithm[folded]] = value[folded]
        has_folds = ~np.isnan(fold_values).all(axis=1)
        with np.errstate(invalid="ignore"):
            fold_means = np.nanmean(np.where(has_folds[:, None, :], fold_values, 0.0), axis=1)
        values = np.where(has_folds, fold_means, values)
    return ResultTable(
        datasets=datasets,
        algorithms=algorithms,
        values=values,
        kind="rank" if benchmark.ranking_only else "score",
        higher_is_better=metric.higher_is_better,
        fold_values=fold_values,
    )


def _present(codes: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """The codes in ``range(size)`` that occur (ascending) and each entry's new code."""
    labels = np.flatnonzero(np.bincount(codes, minlength=size))
    renumber = np.zeros(size, dtype=np.int64)
    renumber[labels] = np.arange(len(labels))
    return labels, renumber[codes]


def _newest_cells(columns) -> np.ndarray:
    """Indices of the rows that count: per (dataset, algorithm, fold), the newest one.

    One submission holds a cell at most once (a unique constraint), so only algorithms
    with several accepted submissions can repeat a cell; only their rows are sorted.
    """
    everything = np.arange(len(columns.value))
    if not len(columns.contested):
        return everything
    contested = np.isin(columns.algorithm, columns.contested)
    rows = everything[contested]
    fold = columns.fold[rows]
    fold_labels, fold_code = np.unique(fold, return_inverse=True)
    cell = (columns.dataset[rows] * len(columns.algorithm_names) + columns.algorithm[rows]) * len(
        fold_labels
    ) + fold_code
    newest_first = np.argsort(columns.priority[rows], kind="stable")
    _, first = np.unique(cell[newest_first], return_index=True)  # the first is the newest
    return np.concatenate([everything[~contested], rows[newest_first[first]]])


def analysis_settings_for(*, benchmark: Benchmark) -> AnalysisSettings:
    return AnalysisSettings(
        missing=benchmark.missing_policy,
        min_coverage=benchmark.min_coverage,
        tie_tol=benchmark.tie_tolerance,
        k=benchmark.top_k,
        alpha=benchmark.alpha,
        correction=benchmark.correction,
        bootstrap=benchmark.bootstrap_size,
        seed=benchmark.seed,
        default_estimator=benchmark.default_estimator,
        control=benchmark.control_algorithm.strip() or None,
    )


def fingerprint(table: ResultTable, settings: AnalysisSettings) -> str:
    """A stable hash of everything a snapshot depends on."""
    digest = hashlib.sha256()
    header = {
        "engine": ENGINE_VERSION,
        "schema": SCHEMA_VERSION,
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


# --- requests -------------------------------------------------------------------------


def recompute_request(*, benchmark_id: int) -> None:
    """Record that a benchmark's input changed; enqueue a recompute after commit.

    If the broker is down the change is still recorded (the caller's transaction commits
    normally); :func:`recompute_stale_enqueue` picks it up once the broker is back.
    """
    _revision_bump(benchmark_id=benchmark_id)

    def enqueue() -> None:
        try:
            recompute_dispatch(benchmark_id)
        except Exception:  # the broker client raises many unrelated types
            logger.warning(
                "could not enqueue the recompute of benchmark %s; the stale sweep will retry",
                benchmark_id,
                exc_info=True,
            )

    transaction.on_commit(enqueue)


def _revision_bump(*, benchmark_id: int) -> None:
    with transaction.atomic():
        RecomputeState.objects.get_or_create(benchmark_id=benchmark_id)
        RecomputeState.objects.filter(pk=benchmark_id).update(
            requested_revision=F("requested_revision") + 1, requested_at=timezone.now()
        )


def recompute_stale_enqueue() -> list[int]:
    """Enqueue a recompute for every benchmark whose input changed since its last run, or
    whose results an older engine computed (so a deployment of a new engine recomputes
    every benchmark without being asked)."""
    recompute_outdated_request(enqueue=False)
    now = timezone.now()
    stale = list(
        RecomputeState.objects.filter(computed_revision__lt=F("requested_revision"))
        .filter(Q(lease_owner="") | Q(lease_expires_at__lt=now))
        .values_list("benchmark_id", flat=True)
    )
    for benchmark_id in stale:
        recompute_dispatch(benchmark_id)
    return stale


# --- runs -----------------------------------------------------------------------------


def _lease_seconds() -> int:
    return getattr(django_settings, "RECOMPUTE_LEASE_SECONDS", 120)


def _lease_acquire(*, benchmark_id: int, owner: str) -> bool:
    """One conditional UPDATE: race-free between any number of workers."""
    now = timezone.now()
    RecomputeState.objects.get_or_create(benchmark_id=benchmark_id)
    taken = (
        RecomputeState.objects.filter(pk=benchmark_id)
        .filter(Q(lease_owner="") | Q(lease_owner=owner) | Q(lease_expires_at__lt=now))
        .update(lease_owner=owner, lease_expires_at=now + timedelta(seconds=_lease_seconds()))
    )
    return taken == 1


def _lease_renew(*, benchmark_id: int, owner: str) -> None:
    RecomputeState.objects.filter(pk=benchmark_id, lease_owner=owner).update(
        lease_expires_at=timezone.now() + timedelta(seconds=_lease_seconds())
    )


def _lease_release(*, benchmark_id: int, owner: str) -> None:
    RecomputeState.objects.filter(pk=benchmark_id, lease_owner=owner).update(
        lease_owner="", lease_expires_at=None
    )


def recompute_run(*, benchmark_id: int, owner: str) -> list[ResultSnapshot]:
    """Bring a benchmark's snapshots up to date; see the module docstring."""
    state = RecomputeState.objects.filter(pk=benchmark_id).first()
    if state is not None and not state.is_stale:
        return []  # a duplicate task: an earlier run already computed this revision
    if not _lease_acquire(benchmark_id=benchmark_id, owner=owner):
        return []  # another worker is running and will pick up the new revision
    created: list[ResultSnapshot] = []
    try:
        _abandon_orphaned_snapshots(benchmark_id=benchmark_id)
        while True:
            target = RecomputeState.objects.get(pk=benchmark_id).requested_revision
            created += snapshot_refresh(benchmark_id=benchmark_id, owner=owner)
            RecomputeState.objects.filter(pk=benchmark_id, computed_revision__lt=target).update(
                computed_revision=target
            )
            if RecomputeState.objects.get(pk=benchmark_id).requested_revision == target:
                break
    finally:
        _lease_release(benchmark_id=benchmark_id, owner=owner)
    # A request that arrived between our last check and the release had its own task
    # turned away by our lease: make sure someone runs it.
    if RecomputeState.objects.get(pk=benchmark_id).is_stale:
        recompute_dispatch(benchmark_id)
    return created


def _abandon_orphaned_snapshots(*, benchmark_id: int) -> None:
    """Snapshots left 'computing' by a worker that died are never served; say why."""
    ResultSnapshot.objects.filter(
        benchmark_id=benchmark_id, status=ResultSnapshot.Status.COMPUTING
    ).update(
        status=ResultSnapshot.Status.FAILED,
        error=f"{ABANDONED}: the worker computing it stopped before finishing",
        finished_at=timezone.now(),
    )


def snapshot_refresh(*, benchmark_id: int, owner: str = "") -> list[ResultSnapshot]:
    """Recompute every metric of a benchmark whose input changed; return new snapshots."""
    benchmark = Benchmark.objects.get(pk=benchmark_id)
    settings = analysis_settings_for(benchmark=benchmark)
    created = []
    for metric in benchmark.metrics.all():
        snapshot = _snapshot_compute(
            benchmark=benchmark, metric=metric, settings=settings, owner=owner
        )
        if snapshot is not None:
            created.append(snapshot)
    return created


def _snapshot_compute(
    *, benchmark: Benchmark, metric: Metric, settings: AnalysisSettings, owner: str
) -> ResultSnapshot | None:
    started = time.perf_counter()
    table = result_table_build(benchmark=benchmark, metric=metric)
    if table.n_datasets == 0 or table.n_algorithms == 0:
        return None
    key = fingerprint(table, settings)
    served: ResultSnapshot | None = None
    with transaction.atomic():
        # The row lock serialises version numbers between concurrent writers.
        Benchmark.objects.select_for_update().get(pk=benchmark.pk)
        existing = ResultSnapshot.objects.filter(benchmark=benchmark, metric=metric)
        latest_ready = existing.filter(status=ResultSnapshot.Status.READY).first()
        if latest_ready is not None and latest_ready.fingerprint == key:
            served = latest_ready  # same input as the snapshot being served: nothing to do
        else:
            failed_before = (
                existing.filter(status=ResultSnapshot.Status.FAILED, fingerprint=key)
                .exclude(error__startswith=ABANDONED)
                .exists()
            )
            if failed_before:
                return None  # the analysis is deterministic: this input fails again
            version = (existing.aggregate(v=Max("version"))["v"] or 0) + 1
            snapshot = ResultSnapshot.objects.create(
                benchmark=benchmark,
                metric=metric,
                version=version,
                fingerprint=key,
                engine_version=ENGINE_VERSION,
                stage="loading",
            )
    if served is not None:
        # A worker that stopped between serving a snapshot and storing its advisor left
        # the advisor out: the next run adds it (a no-op when it is there).
        snapshot_advisor_store(snapshot=served, table=table, settings=settings)
        return None
    loaded = time.perf_counter()

    def report(stage: str, fraction: float) -> None:
        ResultSnapshot.objects.filter(pk=snapshot.pk).update(stage=stage, progress=fraction)
        if owner:
            _lease_renew(benchmark_id=benchmark.pk, owner=owner)

    try:
        # The advisor (simulations, about 1 s at m = 20, n = 100) follows once the other
        # sections are served: readers do not wait for it.
        analysis = analyze(table, settings, progress=report, advisor=False)
        sections = section_bodies(analysis.payload)
        sections.pop(ADVISOR_SECTION)
    except Exception as exc:
        logger.exception("analysis of %s / %s failed", benchmark.slug, metric.name)
        snapshot.status = ResultSnapshot.Status.FAILED
        snapshot.error = f"{type(exc).__name__}: {exc}"
        snapshot.stage = ""
        snapshot.finished_at = timezone.now()
        snapshot.save(update_fields=["status", "error", "stage", "finished_at"])
        return snapshot
    finished = time.perf_counter()
    timings = {
        "load_s": loaded - started,
        "analyse_s": finished - loaded,
        "stages": analysis.timings,
    }
    ready = _snapshot_ready(
        snapshot=snapshot, bodies=sections, payload=analysis.payload, timings=timings
    )
    if owner:
        _lease_renew(benchmark_id=benchmark.pk, owner=owner)
    snapshot_advisor_store(snapshot=ready, table=table, settings=settings)
    return ready


ADVISOR_SECTION = "advisor"


def snapshot_advisor_store(
    *, snapshot: ResultSnapshot, table: ResultTable, settings: AnalysisSettings
) -> None:
    """Compute and store a ready snapshot's advisor section (idempotent: a stored one
    stays). A failure is stored as not applicable with its reason, and logged."""
    if SnapshotSection.objects.filter(snapshot=snapshot, name=ADVISOR_SECTION).exists():
        return
    started = time.perf_counter()
    section: object
    try:
        section = analyze_advisor(table, settings)
    except Exception as exc:
        logger.exception("the advisor of snapshot %s failed", snapshot.pk)
        section = NotApplicable(f"the advisor failed: {type(exc).__name__}: {exc}")
    body = json.dumps(to_json(section), separators=(",", ":"), allow_nan=False)
    SnapshotSection.objects.get_or_create(
        snapshot=snapshot,
        name=ADVISOR_SECTION,
        defaults={"body": body, "etag": hashlib.sha256(body.encode()).hexdigest()},
    )
    timings = dict(snapshot.timings or {})
    timings["advisor_s"] = time.perf_counter() - started
    ResultSnapshot.objects.filter(pk=snapshot.pk).update(timings=timings)


def _sections_write(*, snapshot: ResultSnapshot, bodies: dict[str, tuple[str, str]]) -> None:
    SnapshotSection.objects.bulk_create(
        SnapshotSection(snapshot=snapshot, name=name, body=body, etag=etag)
        for name, (body, etag) in bodies.items()
    )


def snapshot_ready_store(
    *, snapshot: ResultSnapshot, payload: SnapshotPayload, timings: dict | None = None
) -> ResultSnapshot:
    """Store ``payload``'s sections on ``snapshot`` and mark it ready (what a run does
    after the analysis; tests store prepared payloads with it)."""
    return _snapshot_ready(
        snapshot=snapshot, bodies=section_bodies(payload), payload=payload, timings=timings or {}
    )


def _snapshot_ready(
    *,
    snapshot: ResultSnapshot,
    bodies: dict[str, tuple[str, str]],
    payload: SnapshotPayload,
    timings: dict,
) -> ResultSnapshot:
    """The sections and the ready status in one transaction: a reader sees both or neither."""
    snapshot.status = ResultSnapshot.Status.READY
    snapshot.stage = ""
    snapshot.progress = 1.0
    snapshot.finished_at = timezone.now()
    snapshot.schema_version = payload.schema_version
    snapshot.engine_version = payload.engine_version
    snapshot.timings = timings
    with transaction.atomic():
        _sections_write(snapshot=snapshot, bodies=bodies)
        snapshot.save(
            update_fields=[
                "status",
                "stage",
                "progress",
                "finished_at",
                "timings",
                "schema_version",
                "engine_version",
            ]
        )
    return snapshot


def section_bodies(payload: SnapshotPayload) -> dict[str, tuple[str, str]]:
    """{section name: (compact JSON text, sha256)}: each section serialised once.

    Plain JSON or nothing: a NaN fails here, loudly, not in the database or a reader.
    """
    bodies = {}
    for name, section in payload.sections().items():
        body = json.dumps(to_json(section), separators=(",", ":"), allow_nan=False)
        bodies[name] = (body, hashlib.sha256(body.encode()).hexdigest())
    return bodies


def snapshot_outdated_benchmark_ids() -> list[int]:
    """Benchmarks with a metric served by an older engine or contract: its newest ready
    snapshot has another ``engine_version`` or ``schema_version`` than this code's."""
    ready = ResultSnapshot.objects.filter(status=ResultSnapshot.Status.READY)
    current = set(
        ready.filter(engine_version=ENGINE_VERSION, schema_version=SCHEMA_VERSION).values_list(
            "benchmark_id", "metric_id"
        )
    )
    older = set(
        ready.exclude(engine_version=ENGINE_VERSION, schema_version=SCHEMA_VERSION).values_list(
            "benchmark_id", "metric_id"
        )
    )
    return sorted({benchmark for benchmark, metric in older - current})


def recompute_outdated_request(*, enqueue: bool = True) -> list[int]:
    """Ask for a recompute of every benchmark served by an older engine or contract (the
    fingerprint includes both versions, so the run computes new snapshots). A benchmark
    whose input fails under the new engine is asked for once: its failed snapshot has the
    current versions' fingerprint, and a run does not retry a deterministic failure."""
    outdated = snapshot_outdated_benchmark_ids()
    for benchmark_id in outdated:
        if _outdated_already_requested(benchmark_id):
            continue
        if enqueue:
            recompute_request(benchmark_id=benchmark_id)
        else:
            _revision_bump(benchmark_id=benchmark_id)
    return outdated


def _outdated_already_requested(benchmark_id: int) -> bool:
    """A pending request or a run of the current engine that failed: nothing to add."""
    state = RecomputeState.objects.filter(pk=benchmark_id).first()
    if state is not None and state.is_stale:
        return True
    return ResultSnapshot.objects.filter(
        benchmark_id=benchmark_id,
        engine_version=ENGINE_VERSION,
        status=ResultSnapshot.Status.FAILED,
    ).exists()
