"""The content hash an idempotency key is bound to: the same content gives the same hash
whatever the way in (a CSV's columns or ScoreInput rows), any change gives another, and
a submission stored under the legacy hash still replays."""

from __future__ import annotations

import dataclasses

import pytest

from leaderboard.ingest.results_csv import parse_results_csv_text
from leaderboard.models import Submission
from leaderboard.services import (
    ScoreInput,
    SubmissionInput,
    ValidationFailed,
    submission_entries_from_csv,
    submissions_create,
)
from leaderboard.services.content_hash import content_hash, content_hash_legacy
from tests.factories import make_benchmark, make_user

pytestmark = pytest.mark.django_db

BASE = [
    SubmissionInput("a", [ScoreInput("d1", 0.5, fold=0), ScoreInput("d2", 0.25)]),
    SubmissionInput("b", [ScoreInput("d1", 0.75, metric="time", fold=1)]),
]


def changed(entry: int, score: int, **fields) -> list[SubmissionInput]:
    entries = [dataclasses.replace(e, scores=list(e.scores)) for e in BASE]
    scores = entries[entry].scores
    scores[score] = dataclasses.replace(scores[score], **fields)
    return entries


@pytest.mark.parametrize(
    "variant",
    [
        changed(0, 0, value=0.5000000000000001),  # the last bit
        changed(0, 1, value=-0.0),
        changed(0, 1, value=0.0),
        changed(0, 0, fold=None),
        changed(0, 1, fold=0),
        changed(0, 0, dataset="d2"),
        changed(0, 0, metric="time"),
        changed(1, 0, metric=None),
        changed(1, 0, metric=""),
        [BASE[0], dataclasses.replace(BASE[1], algorithm="c")],
        [dataclasses.replace(BASE[0], scores=BASE[0].scores[::-1]), BASE[1]],  # order
        [BASE[1], BASE[0]],
        [SubmissionInput("a", [*BASE[0].scores, *BASE[1].scores])],  # entry boundaries
        [SubmissionInput("a", BASE[0].scores[:1]), SubmissionInput("a", BASE[0].scores[1:])],
    ],
)
def test_any_change_of_content_changes_the_hash(variant):
    assert content_hash(variant) != content_hash(BASE)


def test_the_hash_is_the_same_for_the_same_content():
    assert content_hash(BASE) == content_hash(changed(0, 0, value=0.5, line=99))


@pytest.mark.parametrize(
    "hostile", [dict(fold=True), dict(fold=2**70), dict(value="0.5"), dict(value=10**400)]
)
def test_a_value_no_column_holds_is_hashed_as_text_not_an_error(hostile):
    variant = changed(0, 0, **hostile)
    assert content_hash(variant) == content_hash_legacy(variant) != content_hash(BASE)


def test_a_file_and_its_rows_hash_alike():
    text = "dataset,algorithm,score,fold,metric\n" + "".join(
        f"d{d},alg-{a},{0.1 * d + 0.01 * a!r},{f},{m}\n"
        for a in (2, 0)
        for d in (3, 1, 2)
        for f in range(2)
        for m in ("score", "time")
    )
    benchmark = make_benchmark()
    benchmark.metrics.create(name="time", direction="lower")
    entries = submission_entries_from_csv(
        benchmark=benchmark, parsed=parse_results_csv_text(text.encode())
    )
    rows = [dataclasses.replace(e, scores=list(e.scores)) for e in entries]
    assert content_hash(entries) == content_hash(rows)


def test_a_submission_stored_under_the_legacy_hash_still_replays():
    benchmark = make_benchmark(submission_policy="open")
    benchmark.metrics.create(name="time", direction="lower")
    user = make_user()

    def submit(entries):
        return submissions_create(
            benchmark=benchmark, submitter=user, entries=entries, idempotency_key="k"
        )

    stored = submit(BASE)
    Submission.objects.filter(pk__in=[s.pk for s in stored]).update(
        content_hash=content_hash_legacy(BASE)
    )
    assert [s.pk for s in submit(BASE)] == [s.pk for s in stored]
    with pytest.raises(ValidationFailed, match="already used for different content"):
        submit(changed(0, 0, value=0.625))
    assert Submission.objects.count() == 2
