"""Submitters racing to name the same new dataset and algorithm: no errors, no duplicates.

Real concurrency against PostgreSQL: threads, each with its own connection, released
together by a barrier, each calling the submission service as the API and web do.
Before the fix the losers of the race got an IntegrityError (a 500) from the unique
constraint on (benchmark, name).
"""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from leaderboard.models import Algorithm, Dataset, Submission
from leaderboard.services import ScoreInput, SubmissionInput, submission_create
from tests.factories import make_benchmark, make_user, stored_scores

SUBMITTERS = 8
ROUNDS = 4


def _race(benchmark, users, algorithm: str, datasets: list[str]) -> list[BaseException]:
    barrier = threading.Barrier(len(users))
    errors: list[BaseException] = []

    def submit(user) -> None:
        try:
            entry = SubmissionInput(
                algorithm=algorithm,
                scores=[ScoreInput(dataset=name, value=0.5) for name in datasets],
            )
            barrier.wait(timeout=30)
            submission_create(benchmark=benchmark, submitter=user, entry=entry)
        except BaseException as exc:  # reported below, whatever it is
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=submit, args=(user,)) for user in users]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    return errors


@pytest.mark.django_db(transaction=True)
def test_eight_submitters_name_the_same_new_dataset_and_algorithm():
    benchmark = make_benchmark("race")
    users = [make_user(f"racer-{i}") for i in range(SUBMITTERS)]
    for round_ in range(ROUNDS):
        datasets = [f"new-{round_}-b", f"new-{round_}-a", f"new-{round_}-c"]
        errors = _race(benchmark, users, f"alg-{round_}", datasets)
        assert errors == []
        assert Algorithm.objects.filter(benchmark=benchmark, name=f"alg-{round_}").count() == 1
        assert Dataset.objects.filter(benchmark=benchmark, name__in=datasets).count() == 3
        submissions = Submission.objects.filter(algorithm__name=f"alg-{round_}")
        assert submissions.count() == SUBMITTERS  # each submission stored once
        assert sorted(s.submitter.username for s in submissions) == sorted(
            u.username for u in users
        )
        assert len(stored_scores(submission__in=submissions)) == SUBMITTERS * 3
