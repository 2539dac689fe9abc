"""Small builders for test data, all through the services."""

from __future__ import annotations

from dataclasses import dataclass
from io import StringIO

import numpy as np
from django.contrib.auth import get_user_model
from django.core.management import call_command

from leaderboard.models import Algorithm, Benchmark, Dataset, ScorePack, Submission
from leaderboard.score_packs import scores_unpack
from leaderboard.services import (
    ScoreColumns,
    ScoreInput,
    SubmissionInput,
    benchmark_create,
    scores_insert,
    submission_create,
)
from tests.ingest.helpers import FIXTURES


def make_user(username: str = "researcher"):
    return get_user_model().objects.create_user(username=username, password="pw-for-tests-only")


def make_benchmark(slug: str = "toy", direction: str = "higher", **fields) -> Benchmark:
    return benchmark_create(
        slug=slug, title=f"Benchmark {slug}", metrics=[("score", direction)], **fields
    )


def entry(algorithm: str, values: dict, folds: bool = False) -> SubmissionInput:
    """values: {dataset: score} or, with folds, {dataset: [score per fold]}."""
    if not folds:
        scores = [ScoreInput(dataset=d, value=v) for d, v in values.items()]
    else:
        scores = [
            ScoreInput(dataset=d, value=v, fold=f)
            for d, per_fold in values.items()
            for f, v in enumerate(per_fold)
        ]
    return SubmissionInput(algorithm=algorithm, scores=scores)


def make_submission(
    benchmark: Benchmark, algorithm: str, values: dict, folds: bool = False, submitter=None
) -> Submission:
    """A pending submission by a researcher: given, else the algorithm's owner (only an
    owner may submit under a name that has one), else a researcher made on the fly."""
    if submitter is None:
        owned = Algorithm.objects.filter(benchmark=benchmark, name=algorithm).first()
        owner = owned.owners.order_by("pk").first() if owned is not None else None
        submitter = owner or make_user(f"user-{algorithm}-{Submission.objects.count()}")
    return submission_create(
        benchmark=benchmark,
        submitter=submitter,
        entry=entry(algorithm, values, folds),
        source=Submission.Source.API,
        new_datasets_confirmed=True,
    )


def cache_clear_own() -> None:
    """Empty this test process's part of the shared Redis cache: its keys carry the
    process's prefix (config/settings/test.py), and cache.clear() would flush the other
    processes' keys too (parallel runs, and workers started by tests)."""
    from django.conf import settings
    from django.core.cache import cache

    prefix = settings.CACHES["default"]["KEY_PREFIX"]
    client = cache._cache.get_client(write=True)  # type: ignore[attr-defined]
    keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
    if keys:
        client.delete(*keys)


def import_fixture(fmt: str, benchmark: str, *options: str) -> Benchmark:
    """A benchmark imported from the files in ``tests/ingest/fixtures/<fmt>`` through the
    ``import_results`` command, as a maintainer would."""
    call_command(
        "import_results",
        str(FIXTURES / fmt),
        "--format",
        fmt,
        "--benchmark",
        benchmark,
        *options,
        stdout=StringIO(),
        stderr=StringIO(),
    )
    return Benchmark.objects.get(slug=benchmark)


def make_mteb_board() -> Benchmark:
    """Three embedding models on MTEB tasks; scores_per_experiment become folds."""
    return import_fixture("mteb", "mteb")


def make_pythia_board() -> Benchmark:
    """Three Pythia models with parameter counts, from lm-eval files (metric ``acc``)."""
    return import_fixture("lm-eval", "pythia", "--metric", "acc")


@dataclass(frozen=True)
class StoredRow:
    """One stored score as the tests read it back (fold None: no folds)."""

    submission_id: int
    algorithm: str
    dataset: str
    metric: str
    fold: int | None
    value: float


def stored_scores(**filters) -> list[StoredRow]:
    """Every stored score of the packs ``filters`` select (ScorePack lookups, e.g.
    ``submission__benchmark=benchmark``), by submission, dataset, metric and fold."""
    packs = ScorePack.objects.filter(**filters).select_related("submission__algorithm", "metric")
    names = dict(Dataset.objects.values_list("pk", "name"))
    rows = []
    for pack in packs:
        scores = scores_unpack(pack.datasets, pack.counts, pack.folds, pack.scores)
        algorithm = pack.submission.algorithm.name
        rows += [
            StoredRow(pack.submission_id, algorithm, names[d], pack.metric.name, f, v)
            for d, f, v in scores.rows()
        ]
    return sorted(
        rows, key=lambda r: (r.submission_id, r.dataset, r.metric, -1 if r.fold is None else r.fold)
    )


def store_scores(rows: list[tuple]) -> None:
    """Store (submission, dataset, metric, fold, value) rows by the write service's own
    bulk path, bypassing the entry checks (for tests of what the readers do with them)."""
    submission, dataset, metric, fold, value = zip(*rows, strict=True)
    scores_insert(
        benchmark_id=submission[0].benchmark_id,
        columns=ScoreColumns(
            submission=np.array([s.pk for s in submission]),
            dataset=np.array([d.pk for d in dataset]),
            metric=np.array([m.pk for m in metric]),
            fold=np.array([-1 if f is None else f for f in fold]),
            value=np.array(value, dtype=float),
        ),
    )


def hold_recompute_lease(benchmark_id: int, *, alive: bool = True) -> None:
    """A run holds the benchmark's lease (``alive``), or held it and died: its heartbeat
    stopped renewing it an hour ago."""
    from datetime import timedelta

    from django.utils import timezone

    from estimation.models import RecomputeState

    RecomputeState.objects.get_or_create(benchmark_id=benchmark_id)
    expires = timezone.now() + timedelta(hours=1 if alive else -1)
    RecomputeState.objects.filter(pk=benchmark_id).update(
        lease_owner="test-run", lease_expires_at=expires
    )
