"""One account cannot spend a benchmark's shared submission budget for everyone.

The review's account sent 620 invalid POSTs in 52 s: its own limit (60 an hour) refused
most of them, yet each was charged to the benchmark's shared 600 an hour, and the
benchmark's own maintainer got 429 for 59 minutes. Now a request is charged to the
shared budget only once the narrower limits let it through, maintainers are outside
it, and owners of the benchmark's algorithms share a budget of their own. Real Redis.
"""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from leaderboard.models import Algorithm
from tests.factories import make_benchmark, make_submission, make_user

pytestmark = pytest.mark.django_db


def _client(user) -> APIClient:
    api = APIClient()
    api.force_login(user)
    return api


def _submit(api: APIClient, algorithm: str, body: dict | None = None):
    payload = {"algorithm": algorithm, "scores": [{"dataset": "d1", "value": 0.5}]}
    return api.post("/api/benchmarks/toy/submissions/create/", body or payload, format="json")


def test_requests_refused_by_an_accounts_own_limit_cost_the_shared_budget_nothing(rates):
    rates(submit="3/hour", benchmark_submit="5/hour")
    make_benchmark("toy")
    flooder = _client(make_user("flooder"))
    answers = [_submit(flooder, "x", {"junk": i}).status_code for i in range(40)]
    assert answers[:3] == [400, 400, 400] and set(answers[3:]) == {429}

    # The flood spent 3 of the benchmark's 5; two more researchers still get in.
    assert _submit(_client(make_user("second")), "b").status_code == 201
    assert _submit(_client(make_user("third")), "c").status_code == 201
    # and the shared budget still holds
    assert _submit(_client(make_user("fourth")), "d").status_code == 429


def test_strangers_never_throttle_the_maintainers_or_the_owners(rates):
    benchmark = make_benchmark("toy")
    maintainer = make_user("maintainer")
    benchmark.maintainers.add(maintainer)
    owner = make_user("owner")
    make_submission(benchmark, "owned", {"d1": 0.4}, submitter=owner)
    Algorithm.objects.get(name="owned").owners.add(owner)

    rates(submit="10/hour", benchmark_submit="2/hour")
    strangers = [_client(make_user(f"stranger-{i}")) for i in range(3)]
    assert [_submit(api, f"s{i}").status_code for i, api in enumerate(strangers)] == [
        201,
        201,
        429,
    ]
    maintainer_api, owner_api = _client(maintainer), _client(owner)
    assert [_submit(maintainer_api, f"m{i}").status_code for i in range(3)] == [201] * 3
    # Owners share a budget of their own, which strangers cannot touch.
    assert [_submit(owner_api, f"o{i}").status_code for i in range(3)] == [201, 201, 429]
