"""PostgreSQL stopped for 10 s under reads and writes; Redis stopped under page views.

Before: every API client got Django's HTML "Server Error (500)" while the database was
down, and the charts page failed on nearly every request without Redis (its
``{% cache %}`` tag raised). Now the API answers JSON 503 with Retry-After, the site a
plain "temporarily unavailable" page, clients that retry with their Idempotency-Key
store each submission once, and the same server recovers when the database is back.
Without Redis every page renders (the cache fails open).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import pytest
import requests
from django.urls import URLResolver, get_resolver, resolve

from estimation.core.contract import SECTION_NAMES
from frontend.readers.exports import FORMATS as EXPORT_FORMATS
from tests.processes import wait_until
from tests.reliability.conftest import SLUG

OUTAGE_SECONDS = 10
WRITERS = 4
READERS = 2


@dataclass(frozen=True)
class Answer:
    kind: str
    status: int  # 0: no HTTP answer at all
    content_type: str
    retry_after: str | None
    body: str


def _answer(kind: str, response: requests.Response) -> Answer:
    return Answer(
        kind,
        response.status_code,
        response.headers.get("Content-Type", ""),
        response.headers.get("Retry-After"),
        response.text[:300],
    )


def test_database_outage_answers_503_stores_once_and_recovers(stack):
    api = f"{stack.base_url}/api/benchmarks/{SLUG}"
    answers: list[Answer] = []
    stored: dict[str, int] = {}  # idempotency key -> status of the success
    fresh: set[str] = set()  # keys stored since the phase began
    stop = threading.Event()
    lock = threading.Lock()

    def record(answer: Answer) -> None:
        with lock:
            answers.append(answer)

    def writer(i: int) -> None:
        session = requests.Session()
        session.headers.update(stack.auth(f"writer-{i}"))
        n = 0
        while not stop.is_set():
            key = f"outage-{i}-{n}"
            body = {
                "algorithm": f"outage-{i}-{n}",
                "scores": [{"dataset": f"data-{d}", "value": 0.1 * n} for d in "abcdef"],
            }
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:  # retry with the same key until stored
                try:
                    response = session.post(
                        f"{api}/submissions/create/",
                        json=body,
                        headers={"Idempotency-Key": key},
                        timeout=30,
                    )
                except requests.RequestException as exc:
                    record(Answer("write", 0, "", None, repr(exc)))
                    time.sleep(0.2)
                    continue
                record(_answer("write", response))
                if response.status_code in (200, 201):
                    with lock:
                        stored[key] = response.status_code
                        fresh.add(key)
                    break
                if response.status_code != 503:
                    return  # reported by the assertions below
                time.sleep(min(float(response.headers.get("Retry-After", 1)), 0.3))
            n += 1
            time.sleep(0.1)

    def reader() -> None:
        session = requests.Session()
        while not stop.is_set():
            for path in ("/snapshots/latest/", "/submissions/?limit=5", "/"):
                try:
                    record(_answer("read", session.get(f"{api}{path}", timeout=30)))
                except requests.RequestException as exc:
                    record(Answer("read", 0, "", None, repr(exc)))
            time.sleep(0.05)

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(WRITERS)]
    threads += [threading.Thread(target=reader) for _ in range(READERS)]
    for thread in threads:
        thread.start()

    def stored_by_every_writer() -> bool:
        with lock:
            return {key.split("-")[1] for key in fresh} == {str(i) for i in range(WRITERS)}

    try:
        # Work, not wall time, bounds each phase: a loaded machine only makes it longer.
        wait_until(stored_by_every_writer, timeout=120)
        stack.postgres.stop()
        down_at = time.monotonic()
        time.sleep(1)
        page = requests.get(f"{stack.base_url}/b/{SLUG}/", timeout=30)
        home = requests.get(f"{stack.base_url}/", timeout=30)
        missing = requests.get(f"{stack.base_url}/api/no/such/endpoint/", timeout=30)
        time.sleep(max(0.0, OUTAGE_SECONDS - (time.monotonic() - down_at)))
        stack.postgres.start()
        # The same server, not restarted: reads succeed again within a few seconds.
        recovered = None
        for _ in range(100):
            response = requests.get(f"{api}/snapshots/latest/", timeout=30)
            if response.status_code == 200:
                recovered = time.monotonic()
                break
            time.sleep(0.1)
        with lock:
            fresh.clear()
        wait_until(stored_by_every_writer, timeout=120)  # writes after the recovery too
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=120)
    assert recovered is not None, "the API did not recover after the database came back"

    for response in (page, home):
        assert response.status_code == 503
        assert response.headers["Content-Type"].startswith("text/html")
        assert "Temporarily unavailable" in response.text
        assert response.headers["Retry-After"].isdigit()
    assert missing.status_code == 404 and missing.headers["Content-Type"] == "application/json"

    statuses = {a.status for a in answers}
    assert statuses <= {200, 201, 503}, [a for a in answers if a.status not in (200, 201, 503)]
    unavailable = [a for a in answers if a.status == 503]
    assert unavailable, "no request met the outage"
    assert {a.kind for a in unavailable} == {"read", "write"}
    for answer in unavailable:
        assert answer.content_type == "application/json", answer
        assert answer.retry_after is not None and answer.retry_after.isdigit(), answer
        assert '"detail"' in answer.body, answer
    for answer in answers:
        if answer.status in (200, 201):
            assert answer.content_type.startswith("application/json"), answer

    # Every submission a writer started was stored, and stored exactly once.
    attempted = {f"outage-{i}-{n}" for i in range(WRITERS) for n in range(100)}
    with stack.postgres.connect() as db:
        rows = db.execute(
            "SELECT idempotency_key, count(*) FROM leaderboard_submission "
            "WHERE idempotency_key LIKE 'outage-%%' GROUP BY idempotency_key"
        ).fetchall()
    counts = dict(rows)
    assert set(counts) <= attempted
    assert set(counts) == set(stored), set(counts) ^ set(stored)
    assert all(count == 1 for count in counts.values()), counts


# One representative address per GET route, so that every kind of page meets the outage;
# test_every_get_route_is_listed fails when a route is added without one.
EXPORTS = [f"/b/{SLUG}/v1/export.{fmt}" for fmt in EXPORT_FORMATS]
SECTIONS = [
    f"/api/benchmarks/{SLUG}/snapshots/{version}/sections/{name}/"
    for version in ("latest", "1")
    for name in SECTION_NAMES
]
PAGES = [
    "/",
    "/favicon.ico",
    f"/b/{SLUG}/",
    f"/b/{SLUG}/board/",
    f"/b/{SLUG}/failure/",
    f"/b/{SLUG}/history/",
    f"/b/{SLUG}/v1/",
    f"/b/{SLUG}/v1/board/",
    *EXPORTS,
    f"/b/{SLUG}/charts/",
    f"/b/{SLUG}/datasets/",
    f"/b/{SLUG}/datasets/data-a/",
    f"/b/{SLUG}/algorithms/alg-0/",
    f"/b/{SLUG}/scores.csv",
    f"/b/{SLUG}/compare/",
    f"/b/{SLUG}/compare/alg-0/alg-1/",
    f"/b/{SLUG}/pareto/",
    f"/b/{SLUG}/embed/",
    f"/b/{SLUG}/badge/alg-0.svg",
    "/methods/",
    "/account/login/",
    "/account/signup/",
    "/account/password/reset/",
    "/account/password/reset/sent/",
    "/account/password/reset/MQ/not-a-token/",
    "/account/email/verify/not-a-token/",
    "/account/confirm-email/",
    "/account/confirm-email/not-a-key/",
    "/account/inactive/",
    "/account/password/reset/done/",
    "/account/password/reset/key/done/",
    "/account/password/reset/key/1-not-a-key/",
    "/account/login/code/confirm/",
    "/account/3rdparty/signup/",
    "/account/3rdparty/login/cancelled/",
    "/api-auth/login/",
    "/api/",
    "/api/docs/",
    "/api/schema/",
    "/health/",
    "/metrics",
]
# Answers 503 while Redis or the database is down, by design (test_readiness_...).
PROBES = ["/health/ready/"]
MAINTAINER_PAGES = [
    "/account/",
    "/account/tokens/",
    "/account/tokens/{token}/revoke/",
    "/account/password/",
    "/account/password/change/",
    "/account/password/set/",
    "/account/email/",
    "/account/reauthenticate/",
    "/account/reauthenticate/code/",
    "/account/reauthenticate/code/confirm/",
    "/account/3rdparty/",
    "/account/submissions/",
    "/account/submissions/{submission}/withdraw/",
    f"/b/{SLUG}/submit/",
    f"/b/{SLUG}/submit/csv/",
    f"/b/{SLUG}/submit/template.csv",
    f"/b/{SLUG}/submit/csv/jobs/{{job}}/",
    "/benchmarks/new/",
    "/maintain/",
    f"/b/{SLUG}/maintain/catalogue/",
    f"/b/{SLUG}/maintain/",
    f"/b/{SLUG}/maintain/moderation/",
    f"/b/{SLUG}/maintain/snapshots/",
    "/status/",  # staff only: the maintainer is sent to the admin's log-in page
]
API = [
    "/api/benchmarks/",
    f"/api/benchmarks/{SLUG}/",
    f"/api/benchmarks/{SLUG}/metrics/",
    f"/api/benchmarks/{SLUG}/datasets/",
    f"/api/benchmarks/{SLUG}/algorithms/",
    f"/api/benchmarks/{SLUG}/submissions/",
    f"/api/benchmarks/{SLUG}/submissions/{{submission}}/",
    f"/api/benchmarks/{SLUG}/snapshots/",
    f"/api/benchmarks/{SLUG}/snapshots/latest/",
    f"/api/benchmarks/{SLUG}/snapshots/status/",
    f"/api/benchmarks/{SLUG}/snapshots/latest/export.csv",
    f"/api/benchmarks/{SLUG}/snapshots/latest/export.json",
    f"/api/benchmarks/{SLUG}/snapshots/1/",
    f"/api/benchmarks/{SLUG}/snapshots/1/export.csv",
    f"/api/benchmarks/{SLUG}/snapshots/1/export.json",
    *SECTIONS,
    "/api/contract/",
    "/api/contract/snapshot.schema.json",
]
# With the maintainer's API token.
API_AUTHENTICATED = [
    "/api/tokens/",
    f"/api/benchmarks/{SLUG}/uploads/{{job}}/",
]
# Routes with no GET page: writes (POST only) and the staff-only admin.
NOT_GET = {
    "account-logout",
    "account_logout",  # allauth's name for the same address, /account/logout/
    # allauth's page after a provider's sign-in failed answers 401 by design.
    "socialaccount_login_error",
    "contribute-upload-confirm",
    "contribute-moderation-bulk",
    "contribute-moderation-decide",
    "logout",  # rest_framework's, the site's log-out view
    "api-benchmark-create",
    "api-benchmark-update",
    "api-dataset-rename",
    "api-dataset-delete",
    "api-algorithm-rename",
    "api-algorithm-delete",
    "api-submission-create",
    "api-submission-upload",
    "api-submission-withdraw",
    "api-submission-accept",
    "api-submission-reject",
    "api-token-create",
    "api-token-revoke",
    "api-algorithm-owner-add",
    "api-algorithm-owners-transfer",
    "api-metric-rope",
    "account-email-verify-resend",
    "contribute-algorithm-owners",
    "contribute-upload-map",
}


def _route_names(patterns) -> set[str]:
    names = set()
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            if pattern.namespace == "admin":
                continue  # staff only, Django's own pages
            names |= _route_names(pattern.url_patterns)
        elif pattern.name:
            names.add(pattern.name)
    return names


def test_every_get_route_is_listed():
    listed = {
        resolve(path.format(token=1, submission=1, job=1)).url_name
        for path in PAGES + MAINTAINER_PAGES + API + API_AUTHENTICATED + PROBES
    }
    missing = _route_names(get_resolver().url_patterns) - listed - NOT_GET
    assert not missing, f"GET routes with no address in the outage test: {sorted(missing)}"


@pytest.fixture(scope="module")
def ids(stack) -> dict[str, int]:
    """The maintainer's token, a submission of theirs and an upload job of theirs."""
    stack.manage(
        "shell",
        "-c",
        "from django.contrib.auth import get_user_model\n"
        "from leaderboard.models import Benchmark\n"
        "from leaderboard.uploads import upload_job_create\n"
        f"upload_job_create(benchmark=Benchmark.objects.get(slug='{SLUG}'), "
        "submitter=get_user_model().objects.get(username='maintainer'), "
        "content=b'algorithm,dataset,value\\nalg-0,data-a,0.5\\n', format='long', "
        "note='', idempotency_key='outage-pages')",
    )
    with stack.postgres.connect() as db:
        user = db.execute("SELECT id FROM auth_user WHERE username = 'maintainer'").fetchone()[0]
        return {
            name: db.execute(sql, (user,)).fetchone()[0]
            for name, sql in {
                "token": "SELECT min(id) FROM leaderboard_apitoken WHERE user_id = %s",
                "submission": "SELECT min(id) FROM leaderboard_submission WHERE submitter_id = %s",
                "job": "SELECT min(id) FROM leaderboard_uploadjob WHERE submitter_id = %s",
            }.items()
        }


def _render_all(stack, ids) -> dict[str, int]:
    codes = {}
    anonymous = requests.Session()
    maintainer = requests.Session()
    maintainer.cookies.set("sessionid", stack.session)
    for path in PAGES + API:
        path = path.format(**ids)
        codes[path] = anonymous.get(stack.base_url + path, timeout=30).status_code
    for path in MAINTAINER_PAGES:
        path = path.format(**ids)
        codes[f"maintainer {path}"] = maintainer.get(stack.base_url + path, timeout=30).status_code
    for path in API_AUTHENTICATED:
        path = path.format(**ids)
        response = requests.get(stack.base_url + path, headers=stack.auth("maintainer"), timeout=30)
        codes[f"token {path}"] = response.status_code
    return codes


def test_every_page_renders_with_redis_down(stack, ids):
    before = _render_all(stack, ids)
    assert set(before.values()) == {200}, before
    stack.redis.stop()
    try:
        # Each request's own timeout (30 s) is the hang guard; that the cache leaves
        # Redis alone for a while after a failure is tests/api/test_reliability.py's
        # (a total in seconds here measured the machine's load).
        during = _render_all(stack, ids)
        again = _render_all(stack, ids)  # the charts fragment is rendered, not cached, again
    finally:
        stack.redis.start()
    assert during == before
    assert again == before
    after = _render_all(stack, ids)
    assert after == before


def test_readiness_says_when_redis_is_down_and_alive_stays_up(stack):
    ready = requests.get(stack.base_url + "/health/ready/", timeout=30)
    assert ready.status_code == 200, ready.text
    stack.redis.stop()
    try:
        down = requests.get(stack.base_url + "/health/ready/", timeout=30)
        alive = requests.get(stack.base_url + "/health/", timeout=30)
    finally:
        stack.redis.start()
    assert down.status_code == 503 and down.headers["Retry-After"] == "5"
    checks = down.json()["checks"]
    assert not checks["cache"]["ok"] and not checks["broker"]["ok"]
    assert checks["database"]["ok"] and checks["migrations"]["ok"]
    assert alive.status_code == 200
    wait_until(
        lambda: requests.get(stack.base_url + "/health/ready/", timeout=30).status_code == 200,
        timeout=30,
        interval=0.5,
    )
