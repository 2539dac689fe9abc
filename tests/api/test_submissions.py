import json
from unittest.mock import ANY

import pytest

from leaderboard.models import Benchmark, Submission
from leaderboard.services import submission_accept
from tests.api.conftest import client_for
from tests.factories import make_benchmark, make_submission, stored_scores

pytestmark = pytest.mark.django_db

CREATE = "/api/benchmarks/toy/submissions/create/"


def refused(n: int) -> str:
    return f"The input was refused; nothing was written. {n} problem{'s' if n != 1 else ''} found."


def post_json(api, path, body, **headers):
    """Raw JSON, so that NaN can be sent as the JSON token some clients write."""
    return api.post(
        path,
        body if isinstance(body, str) else json.dumps(body),
        content_type="application/json",
        **headers,
    )


def test_create_with_json_scores(researcher, benchmark):
    response = post_json(
        client_for(researcher),
        CREATE,
        {
            "algorithm": "alg-a",
            "algorithm_url": "https://example.org/alg-a",
            "note": "first try",
            "scores": [
                {"dataset": "d1", "value": 0.5},
                {"dataset": "d2", "value": 1, "fold": 0},
                {"dataset": "d2", "value": 0.75, "fold": 1, "metric": "score"},
            ],
        },
    )
    assert response.status_code == 201, response.json()
    submission = Submission.objects.get()
    assert response.json() == {
        "id": submission.pk,
        "benchmark": "toy",
        "algorithm": "alg-a",
        "status": "pending",
        "source": "api",
        "note": "first try",
        "submitter": "researcher",
        "created_at": ANY,
        "decided_at": None,
        "decided_by": None,
        "decision_note": "",
        "n_scores": 3,
        "incomplete_note": None,
    }
    assert sorted((r.dataset, r.fold, r.value) for r in stored_scores(submission=submission)) == [
        ("d1", None, 0.5),
        ("d2", 0, 1.0),
        ("d2", 1, 0.75),
    ]
    # Pending: the link is the submission's, public only once accepted.
    assert submission.algorithm_url == "https://example.org/alg-a"
    assert submission.algorithm.url == ""


def test_open_benchmark_accepts_on_arrival(researcher):
    make_benchmark("toy", submission_policy=Benchmark.SubmissionPolicy.OPEN)
    response = post_json(
        client_for(researcher), CREATE, {"algorithm": "a", "scores": [{"dataset": "d", "value": 1}]}
    )
    assert response.status_code == 201
    assert response.json()["status"] == "accepted"


def test_submitting_needs_a_login_and_an_open_door(client, researcher, maintainer):
    make_benchmark("toy", submission_policy=Benchmark.SubmissionPolicy.CLOSED).maintainers.add(
        maintainer
    )
    body = {"algorithm": "a", "scores": [{"dataset": "d", "value": 1}]}
    response = post_json(client, CREATE, body)
    assert response.status_code == 401
    response = post_json(client_for(researcher), CREATE, body)
    assert response.status_code == 403
    assert response.json() == {"detail": "benchmark 'toy' is closed to submissions"}
    assert not Submission.objects.exists()
    assert post_json(client_for(maintainer), CREATE, body).status_code == 201


def test_private_benchmark_takes_no_submissions_from_strangers(stranger, private_benchmark):
    response = post_json(
        client_for(stranger),
        "/api/benchmarks/secret/submissions/create/",
        {"algorithm": "a", "scores": [{"dataset": "d", "value": 1}]},
    )
    assert response.status_code == 404
    assert not Submission.objects.exists()


def test_bad_scores_are_all_reported_with_their_position_and_nothing_is_written(researcher):
    make_benchmark("toy", allow_new_datasets=False).datasets.create(name="known", declared=True)
    raw = (
        '{"algorithm": "alg", "scores": ['
        '{"dataset": "known", "value": NaN},'
        '{"dataset": "known", "value": "0.5", "fold": 1},'
        '{"dataset": "unknown", "value": 0.1},'
        '{"dataset": "known", "value": 0.2, "fold": 2},'
        '{"dataset": "known", "value": 0.3, "fold": 2},'
        '{"dataset": "known", "value": Infinity, "fold": 3}'
        "]}"
    )
    response = post_json(client_for(researcher), CREATE, raw)
    assert response.status_code == 400
    assert response.json() == {
        "detail": refused(5),
        "problems": [
            {
                "line": None,
                "field": "value",
                "message": "scores[1]: score must be a finite number, got nan",
            },
            {
                "line": None,
                "field": "value",
                "message": "scores[2]: score must be a finite number, got '0.5'",
            },
            {
                "line": None,
                "field": "dataset",
                "message": "scores[3]: unknown dataset 'unknown'; this benchmark only takes listed datasets",
            },
            {
                "line": None,
                "field": "dataset",
                "message": "scores[5]: duplicate score for dataset 'known', fold 2",
            },
            {
                "line": None,
                "field": "value",
                "message": "scores[6]: score must be a finite number, got inf",
            },
        ],
        "problems_total": 5,
    }
    assert not Submission.objects.exists() and not stored_scores()


def test_malformed_input_is_located(researcher, benchmark):
    response = post_json(
        client_for(researcher),
        CREATE,
        {"scores": [{"dataset": "d", "value": True}, {"value": 1, "fold": "x"}]},
    )
    assert response.status_code == 400
    assert response.json() == {
        "detail": "The input was refused; nothing was written.",
        "problems": [
            {"line": None, "field": "algorithm", "message": "This field is required."},
            {
                "line": None,
                "field": "scores[1].value",
                "message": "A number is required, got a boolean.",
            },
            {"line": None, "field": "scores[2].dataset", "message": "This field is required."},
            {"line": None, "field": "scores[2].fold", "message": "A valid integer is required."},
        ],
        "problems_total": 4,
    }
    assert not Submission.objects.exists()


def test_the_problem_list_is_capped(researcher, settings):
    settings.PODIUM_API_MAX_PROBLEMS = 3
    make_benchmark("toy")
    scores = [{"dataset": f"d{i}", "value": "bad"} for i in range(10)]
    response = post_json(client_for(researcher), CREATE, {"algorithm": "a", "scores": scores})
    assert response.status_code == 400
    body = response.json()
    assert len(body["problems"]) == 3 and body["problems_total"] == 10


def test_same_idempotency_key_twice_stores_one_submission(researcher, benchmark):
    api = client_for(researcher)
    body = {"algorithm": "a", "scores": [{"dataset": "d", "value": 1}]}
    first = post_json(api, CREATE, body, HTTP_IDEMPOTENCY_KEY="run-42")
    again = post_json(api, CREATE, body, HTTP_IDEMPOTENCY_KEY="run-42")
    assert (first.status_code, again.status_code) == (201, 200)
    assert first.json() == again.json()
    assert Submission.objects.count() == 1 and len(stored_scores()) == 1

    other = {"algorithm": "a", "scores": [{"dataset": "d", "value": 2}]}
    response = post_json(api, CREATE, other, HTTP_IDEMPOTENCY_KEY="run-42")
    assert response.status_code == 400
    assert response.json()["problems"] == [
        {
            "line": None,
            "field": "idempotency_key",
            "message": "idempotency key 'run-42' was already used for different content",
        }
    ]
    assert Submission.objects.count() == 1


def test_an_unusable_idempotency_key_is_refused(researcher, benchmark):
    body = {"algorithm": "a", "scores": [{"dataset": "d", "value": 1}]}
    response = post_json(client_for(researcher), CREATE, body, HTTP_IDEMPOTENCY_KEY="k" * 81)
    assert response.status_code == 400
    assert response.json()["problems"] == [
        {
            "line": None,
            "field": "Idempotency-Key",
            "message": "at most 80 printable ASCII characters, without '#'",
        }
    ]
    assert not Submission.objects.exists()


@pytest.fixture
def three_submissions(benchmark, researcher, stranger):
    """researcher: one pending, one accepted; stranger: one pending."""
    pending = make_submission(benchmark, "mine-pending", {"d": 1.0}, submitter=researcher)
    accepted = make_submission(benchmark, "mine-accepted", {"d": 2.0}, submitter=researcher)
    submission_accept(submission=accepted)
    other = make_submission(benchmark, "other-pending", {"d": 3.0}, submitter=stranger)
    return pending, accepted, other


def algorithms(response) -> list[str]:
    assert response.status_code == 200, response.json()
    return [s["algorithm"] for s in response.json()["results"]]


def test_who_sees_which_submissions(client, maintainer, researcher, three_submissions):
    path = "/api/benchmarks/toy/submissions/"
    assert algorithms(client_for(maintainer).get(path)) == [
        "other-pending",
        "mine-accepted",
        "mine-pending",
    ]
    assert algorithms(client_for(researcher).get(path)) == ["mine-accepted", "mine-pending"]
    assert algorithms(client.get(path)) == ["mine-accepted"]
    assert algorithms(client_for(maintainer).get(f"{path}?status=pending")) == [
        "other-pending",
        "mine-pending",
    ]
    assert algorithms(client_for(maintainer).get(f"{path}?algorithm=mine-pending")) == [
        "mine-pending"
    ]
    response = client.get(f"{path}?status=lost")
    assert response.status_code == 400
    assert response.json()["problems"] == [
        {"line": None, "field": "status", "message": '"lost" is not a valid choice.'}
    ]


def test_submission_detail_with_scores(client, researcher, three_submissions):
    pending, accepted, other = three_submissions
    response = client.get(f"/api/benchmarks/toy/submissions/{accepted.pk}/")
    assert response.status_code == 200
    assert response.json()["scores"] == [
        {"dataset": "d", "metric": "score", "fold": None, "value": 2.0}
    ]
    assert (
        client_for(researcher).get(f"/api/benchmarks/toy/submissions/{pending.pk}/").status_code
        == 200
    )
    for api in (client, client_for(researcher)):
        response = api.get(f"/api/benchmarks/toy/submissions/{other.pk}/")
        assert response.status_code == 404
        assert response.json() == {"detail": f"No submission {other.pk} in 'toy'."}


def test_submitter_withdraws(researcher, three_submissions):
    pending, _, _ = three_submissions
    response = client_for(researcher).post(
        f"/api/benchmarks/toy/submissions/{pending.pk}/withdraw/"
    )
    assert response.status_code == 200
    assert response.json()["status"] == "withdrawn"
    pending.refresh_from_db()
    assert pending.status == Submission.Status.WITHDRAWN


def test_others_cannot_withdraw(client, stranger, three_submissions):
    _, accepted, _ = three_submissions
    path = f"/api/benchmarks/toy/submissions/{accepted.pk}/withdraw/"
    assert client.post(path).status_code == 401
    response = client_for(stranger).post(path)
    assert response.status_code == 403
    assert response.json() == {"detail": "only maintainers of 'toy' may do this"}
    accepted.refresh_from_db()
    assert accepted.status == Submission.Status.ACCEPTED


def test_maintainer_accepts_and_rejects_with_a_note(maintainer, three_submissions):
    pending, _, other = three_submissions
    api = client_for(maintainer)
    response = api.post(
        f"/api/benchmarks/toy/submissions/{pending.pk}/accept/", {"note": "fine"}, format="json"
    )
    assert response.status_code == 200
    body = response.json()
    assert (body["status"], body["decided_by"], body["decision_note"]) == (
        "accepted",
        "maintainer",
        "fine",
    )
    response = api.post(
        f"/api/benchmarks/toy/submissions/{other.pk}/reject/", {"note": "no folds"}, format="json"
    )
    assert response.status_code == 200
    assert (response.json()["status"], response.json()["decision_note"]) == ("rejected", "no folds")
    other.refresh_from_db()
    assert (other.status, other.decision_note, other.decided_by) == (
        "rejected",
        "no folds",
        maintainer,
    )


def test_moderation_by_anyone_else_changes_nothing(client, researcher, stranger, three_submissions):
    pending, accepted, other = three_submissions
    attempts = [
        (client, pending, "accept", 401),
        (client_for(researcher), pending, "accept", 403),  # one's own: visible, not allowed
        (client_for(researcher), accepted, "reject", 403),
        (client_for(researcher), other, "accept", 404),  # someone else's pending: invisible
        (client_for(stranger), accepted, "reject", 403),
    ]
    for api, submission, action, expected in attempts:
        response = api.post(
            f"/api/benchmarks/toy/submissions/{submission.pk}/{action}/",
            {"note": "x"},
            format="json",
        )
        assert response.status_code == expected, (submission.algorithm.name, action)
    statuses = dict(Submission.objects.values_list("algorithm__name", "status"))
    assert statuses == {
        "mine-pending": "pending",
        "mine-accepted": "accepted",
        "other-pending": "pending",
    }
    assert not Submission.objects.exclude(decision_note="").exists()


# (status before, action) -> status after, or the 409's detail ({n}: the submission's id)
TRANSITIONS = {
    ("pending", "accept"): "accepted",
    ("pending", "reject"): "rejected",
    ("pending", "withdraw"): "withdrawn",
    ("accepted", "accept"): "submission {n} is already accepted; nothing changed",
    ("accepted", "reject"): "rejected",
    ("accepted", "withdraw"): "withdrawn",
    ("rejected", "accept"): "submission {n} is rejected and cannot be accepted: only a "
    "pending submission can be accepted; its scores can be submitted again",
    ("rejected", "reject"): "submission {n} is already rejected; nothing changed",
    ("rejected", "withdraw"): "withdrawn",
    ("withdrawn", "accept"): "submission {n} is withdrawn and cannot be accepted: it was "
    "taken back; its scores can be submitted again",
    ("withdrawn", "reject"): "submission {n} is withdrawn and cannot be rejected: it was "
    "taken back; its scores can be submitted again",
    ("withdrawn", "withdraw"): "submission {n} is already withdrawn; nothing changed",
}


@pytest.mark.parametrize(("before", "action"), list(TRANSITIONS))
def test_every_state_change_is_done_once_or_refused_with_409(
    maintainer, researcher, three_submissions, before, action
):
    pending, _, _ = three_submissions
    Submission.objects.filter(pk=pending.pk).update(status=before)
    path = f"/api/benchmarks/toy/submissions/{pending.pk}/{action}/"
    response = client_for(maintainer).post(path, {}, format="json")
    expected = TRANSITIONS[(before, action)]
    if " " not in expected:
        assert response.status_code == 200, response.json()
        assert response.json()["status"] == expected
        return
    assert response.status_code == 409
    assert response.json() == {"detail": expected.format(n=pending.pk)}
    pending.refresh_from_db()
    assert pending.status == before  # nothing written


def test_withdrawing_twice_is_409_for_the_submitter_too(researcher, three_submissions):
    pending, _, _ = three_submissions
    path = f"/api/benchmarks/toy/submissions/{pending.pk}/withdraw/"
    assert client_for(researcher).post(path).status_code == 200
    response = client_for(researcher).post(path)
    assert response.status_code == 409
    assert response.json() == {
        "detail": f"submission {pending.pk} is already withdrawn; nothing changed"
    }
