"""Scores packed a row per submission and metric (``ScorePack``): the layout, the readers
that count from it, the catalogue's deletion that rewrites packs, and migration 0017
both ways (no stored score lost or changed)."""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from leaderboard.models import Dataset, ScorePack, Submission
from leaderboard.score_packs import PackRefused, scores_pack, scores_unpack
from leaderboard.selectors import (
    accepted_dataset_counts,
    benchmark_folds_by_dataset,
    datasets_public,
    submission_score_rows,
)
from leaderboard.services import (
    ScoreInput,
    SubmissionInput,
    catalogue_entry_delete,
    submissions_create,
)
from tests.factories import make_benchmark, make_user, stored_scores


def test_a_pack_reads_back_every_score_whatever_the_order_given():
    rng = np.random.default_rng(3)
    dataset = rng.integers(1, 50, size=400)
    fold = rng.integers(-1, 5, size=400)
    keep = np.unique(np.stack([dataset, fold]), axis=1, return_index=True)[1]
    dataset, fold = dataset[keep], fold[keep]
    value = rng.normal(size=len(keep)) * 1e300  # the full float64 range, bit for bit
    shuffled = rng.permutation(len(keep))
    pack = scores_pack(dataset[shuffled], fold[shuffled], value[shuffled])
    back = scores_unpack(pack.datasets, pack.counts, pack.folds, pack.scores)
    assert pack.datasets == sorted(set(dataset.tolist())) and pack.n_scores == len(keep)
    got = set(zip(back.dataset.tolist(), back.fold.tolist(), back.value.tolist(), strict=True))
    assert got == set(zip(dataset.tolist(), fold.tolist(), value.tolist(), strict=True))
    assert np.all(np.diff(back.dataset) >= 0)


@pytest.mark.parametrize(
    "fold, value, message",
    [
        ([0, 0], [1.0, 2.0], "same dataset and fold"),
        ([-1, -1], [1.0, 2.0], "same dataset and fold"),
        ([0, 1], [1.0, math.nan], "not a finite number"),
        ([0, 2**31], [1.0, 2.0], "does not fit"),
        ([0, -2], [1.0, 2.0], "does not fit"),
    ],
)
def test_a_pack_refuses_what_a_row_constraint_refused(fold, value, message):
    with pytest.raises(PackRefused, match=message):
        scores_pack(np.array([7, 7]), np.array(fold), np.array(value))


def test_an_inconsistent_stored_pack_is_an_error_not_a_wrong_table():
    pack = scores_pack(np.array([1, 2]), np.array([0, 0]), np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="inconsistent"):
        scores_unpack(pack.datasets, pack.counts, pack.folds, pack.scores[:8])


def _random_board(seed: int):
    """Accepted, pending and rejected submissions on two metrics, folds and none."""
    rng = np.random.default_rng(0 if isinstance(seed, str) else seed)
    benchmark = make_benchmark(slug=f"packs-{seed}".replace(" ", "-"), submission_policy="open")
    benchmark.metrics.create(name="time", direction="lower")
    for a in range(0 if seed == "empty" else 6):
        scores = [
            ScoreInput(f"d{d}", float(rng.normal()), fold=fold, metric=metric)
            for d in range(8)
            if rng.random() < 0.7
            for metric in (None, "time")
            for fold in (
                [None]
                if seed == "no folds" or rng.random() < 0.4
                else sorted({0, int(rng.integers(1, 4))})
            )
        ]
        if not scores:
            continue
        (submission,) = submissions_create(
            benchmark=benchmark,
            submitter=None,
            source=Submission.Source.IMPORT,
            entries=[SubmissionInput(f"alg-{a % 4}", scores)],
        )
        # (set directly: this is a test of the readers, not of moderation)
        status = {4: Submission.Status.REJECTED, 5: Submission.Status.PENDING}.get(a)
        if status:
            Submission.objects.filter(pk=submission.pk).update(status=status)
    return benchmark


@pytest.mark.django_db
@pytest.mark.parametrize("seed", [0, 1, 2, "no folds", "empty"])
def test_dataset_counts_and_folds_are_those_of_the_rows(seed):
    benchmark = _random_board(seed)
    rows = stored_scores(
        submission__benchmark=benchmark, submission__status=Submission.Status.ACCEPTED
    )
    keys = dict(benchmark.datasets.values_list("name", "pk"))
    scores, algorithms, folds = defaultdict(int), defaultdict(set), defaultdict(set)
    for row in rows:
        scores[row.dataset] += 1
        algorithms[row.dataset].add(row.algorithm)
        if row.fold is not None:
            folds[row.dataset].add(row.fold)
    counts = accepted_dataset_counts(benchmark=benchmark)
    assert {k: (c.n_scores, c.n_algorithms, c.n_folds) for k, c in counts.items()} == {
        keys[d]: (scores[d], len(algorithms[d]), len(folds[d])) for d in scores
    }
    assert benchmark_folds_by_dataset(benchmark=benchmark) == {
        d: sorted(f) for d, f in sorted(folds.items()) if f
    }
    assert set(datasets_public(benchmark.datasets.all()).values_list("name", flat=True)) == set(
        scores
    )
    for submission in benchmark.submissions.all():
        own = stored_scores(submission=submission)
        assert submission.n_scores == len(own)
        assert submission.n_datasets == len({r.dataset for r in own})
        assert submission.n_folds == len({r.fold for r in own if r.fold is not None})
        assert [(r.dataset, r.metric, r.fold, r.value) for r in own] == [
            (r.dataset, r.metric, r.fold, r.value)
            for r in submission_score_rows(submission=submission)
        ]


@pytest.mark.django_db
def test_deleting_a_dataset_rewrites_the_packs_of_rejected_submissions():
    maintainer = make_user("maintainer")
    benchmark = make_benchmark(slug="rewrite")
    benchmark.maintainers.add(maintainer)
    entries = [
        SubmissionInput("kept", [ScoreInput("d1", 0.5, fold=0), ScoreInput("d1", 0.6, fold=1)]),
        SubmissionInput(
            "typo",
            [ScoreInput("d1", 0.7), ScoreInput("d-typo", 0.1, fold=0), ScoreInput("d-typo", 0.2)],
        ),
        SubmissionInput("only-typo", [ScoreInput("d-typo", 0.3)]),
    ]
    stored = submissions_create(
        benchmark=benchmark, submitter=None, source=Submission.Source.IMPORT, entries=entries
    )
    Submission.objects.filter(benchmark=benchmark).update(status=Submission.Status.REJECTED)
    catalogue_entry_delete(benchmark=benchmark, user=maintainer, kind="dataset", name="d-typo")
    assert not Dataset.objects.filter(name="d-typo").exists()
    assert [(r.algorithm, r.dataset, r.fold, r.value) for r in stored_scores()] == [
        ("kept", "d1", 0, 0.5),
        ("kept", "d1", 1, 0.6),
        ("typo", "d1", None, 0.7),
    ]
    counts = {s.algorithm.name: (s.n_scores, s.n_datasets, s.n_folds) for s in stored}
    for submission in stored:
        submission.refresh_from_db()
    after = {s.algorithm.name: (s.n_scores, s.n_datasets, s.n_folds) for s in stored}
    assert counts["typo"] == (3, 2, 1) and after == {
        "kept": (2, 1, 2),
        "typo": (1, 1, 0),
        "only-typo": (0, 0, 0),
    }
    assert not ScorePack.objects.filter(submission=stored[2]).exists()


@pytest.mark.django_db(transaction=True)
def test_migration_0017_packs_every_row_and_unpacks_it_back():
    """Back to 0016 (a row per score), rows written there, then forward again."""
    before, after = (
        [("leaderboard", "0016_upload_job_filename")],
        [("leaderboard", "0017_score_packs")],
    )
    benchmark = make_benchmark(slug="migrated", submission_policy="open")
    benchmark.metrics.create(name="time", direction="lower")
    submissions_create(
        benchmark=benchmark,
        submitter=None,
        source=Submission.Source.IMPORT,
        entries=[
            SubmissionInput(
                "a",
                [
                    ScoreInput("d1", 0.25, fold=0),
                    ScoreInput("d1", -1e-300, fold=1),
                    ScoreInput("d2", 3.5),
                    ScoreInput("d2", 9.0, metric="time"),
                ],
            ),
            SubmissionInput("b", [ScoreInput("d3", 1.5, fold=2)]),
        ],
    )
    packed = [(r.algorithm, r.dataset, r.metric, r.fold, r.value) for r in stored_scores()]
    executor = MigrationExecutor(connection)
    try:
        executor.migrate(before)
        old = executor.loader.project_state(before).apps
        rows = old.get_model("leaderboard", "Score").objects.values_list(
            "submission__algorithm__name", "dataset__name", "metric__name", "fold", "value"
        )
        assert sorted(rows, key=repr) == sorted(packed, key=repr)
        submission = old.get_model("leaderboard", "Submission").objects.get(algorithm__name="a")
        metric = old.get_model("leaderboard", "Metric").objects.get(name="time")
        dataset = old.get_model("leaderboard", "Dataset").objects.get(name="d1")
        old.get_model("leaderboard", "Score").objects.create(
            submission=submission, dataset=dataset, metric=metric, fold=None, value=7.0
        )
        executor = MigrationExecutor(connection)
        executor.migrate(after)
    finally:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())
    rows = [(r.algorithm, r.dataset, r.metric, r.fold, r.value) for r in stored_scores()]
    assert sorted(rows, key=repr) == sorted([*packed, ("a", "d1", "time", None, 7.0)], key=repr)
    counts = {
        s.algorithm.name: (s.n_scores, s.n_datasets, s.n_folds) for s in Submission.objects.all()
    }
    assert counts == {"a": (5, 2, 2), "b": (1, 1, 1)}
