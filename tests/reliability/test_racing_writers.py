"""Eight clients submit at the same moment, naming the same new dataset and algorithm.

Real concurrency: eight threads, each with its own user's API token, released together
by a barrier against gunicorn (two processes, eight threads each) on a PostgreSQL of its
own. Before the fix the losers of the race got a 500 (IntegrityError on
``dataset_unique_name`` / ``algorithm_unique_name``) and their scores were not stored.
"""

from __future__ import annotations

import secrets
import threading

import requests

from tests.reliability.conftest import SLUG, WRITERS

ROUNDS = 4


def _round(stack, algorithm: str, datasets: list[str]) -> list[tuple[int, str]]:
    barrier = threading.Barrier(WRITERS)
    answers: list[tuple[int, str]] = []
    url = f"{stack.base_url}/api/benchmarks/{SLUG}/submissions/create/"

    def submit(i: int) -> None:
        body = {
            "algorithm": algorithm,
            "scores": [{"dataset": name, "value": 0.5 + i / 100} for name in datasets],
            "allow_new_datasets": True,
        }
        headers = {**stack.auth(f"writer-{i}"), "Idempotency-Key": f"{algorithm}-{i}"}
        barrier.wait(timeout=30)
        try:
            response = requests.post(url, json=body, headers=headers, timeout=60)
            answers.append((response.status_code, response.text[:300]))
        except requests.RequestException as exc:
            answers.append((0, repr(exc)))

    threads = [threading.Thread(target=submit, args=(i,)) for i in range(WRITERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    return answers


def test_eight_racing_submitters_store_once_and_one_owns_the_name(stack):
    with stack.postgres.connect() as db:
        for _round_number in range(ROUNDS):
            tag = secrets.token_hex(5)
            algorithm = f"racer-{tag}"
            datasets = [f"new-{tag}-{secrets.token_hex(4)}" for _ in range(3)]
            answers = _round(stack, algorithm, datasets)
            # A new name belongs to the first accepted submitter (an open board accepts on
            # arrival): one writer wins the race, the others are told whose it is.
            codes = sorted(code for code, _ in answers)
            assert codes == [201] + [403] * (WRITERS - 1), answers
            assert all(
                "only its owners may submit" in text for code, text in answers if code == 403
            )
            stored = db.execute(
                "SELECT s.idempotency_key, count(*) FROM leaderboard_submission s "
                "JOIN leaderboard_algorithm a ON a.id = s.algorithm_id "
                "WHERE a.name = %s GROUP BY s.idempotency_key",
                [algorithm],
            ).fetchall()
            assert len(stored) == 1 and stored[0][1] == 1, stored
            assert stored[0][0] in {f"{algorithm}-{i}" for i in range(WRITERS)}
            owners = db.execute(
                "SELECT count(*) FROM leaderboard_algorithm_owners o "
                "JOIN leaderboard_algorithm a ON a.id = o.algorithm_id WHERE a.name = %s",
                [algorithm],
            ).fetchone()
            assert owners == (1,)
            names = db.execute(
                "SELECT count(*) FROM leaderboard_algorithm WHERE name = %s", [algorithm]
            ).fetchone()
            assert names == (1,)
            rows = db.execute(
                "SELECT name FROM leaderboard_dataset WHERE name = ANY(%s)", [datasets]
            ).fetchall()
            assert sorted(name for (name,) in rows) == sorted(datasets)
            scores = db.execute(
                "SELECT sum(length(p.scores) / 8)::int FROM leaderboard_scorepack p "
                "JOIN leaderboard_submission s ON s.id = p.submission_id "
                "JOIN leaderboard_algorithm a ON a.id = s.algorithm_id WHERE a.name = %s",
                [algorithm],
            ).fetchone()
            assert scores == (len(datasets),)
