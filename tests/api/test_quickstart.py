"""/api/docs/ opens with a quick start whose snippets run, as printed, against a live server.

The snippets are read from the rendered page (so what a user copies is what runs):
the shell ones with bash and curl, the Python ones with this interpreter without its
site-packages (the standard library only, as in any venv). The server recomputes in a
thread, as under `make dev`, and the quick start ends with the submitted algorithms in
the board. Every operation of the schema also has a request and a response example.
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys

import pytest
import requests

from estimation.core.contract import Board, from_json
from estimation.recompute.background import recompute_threads_join
from estimation.services import recompute_run
from leaderboard.demo import DEMOS
from leaderboard.models import Submission
from leaderboard.services import api_token_create
from tests.factories import make_user

SNIPPET = re.compile(
    r'<pre data-example="([\w-]+)" data-language="(\w+)"><code>(.*?)</code></pre>', re.S
)


@pytest.mark.django_db(transaction=True)
def test_the_quick_start_runs_against_a_live_server_and_ends_ranked(
    live_server, tmp_path, settings
):
    benchmark = DEMOS["demsar-2006"]()
    (served,) = recompute_run(benchmark_id=benchmark.pk, owner="quickstart-test")
    settings.RECOMPUTE_IN_THREAD = True  # from here on make dev's embedded mode: no worker
    try:
        _quick_start(live_server, tmp_path, served_before=served.version)
    finally:
        recompute_threads_join(timeout=120)


def _quick_start(live_server, tmp_path, *, served_before: int) -> None:
    _, raw = api_token_create(user=make_user("newcomer"), name="quick start")

    page = requests.get(live_server.url + "/api/docs/", timeout=30)
    assert page.status_code == 200
    assert page.text.index('id="quick-start"') < page.text.index('id="reference"')
    snippets = {key: (lang, html.unescape(code)) for key, lang, code in SNIPPET.findall(page.text)}
    assert list(snippets) == [
        "token",
        "submit-json-curl",
        "upload-csv-curl",
        "submit-python",
        "snapshot-curl",
        "snapshot-python",
    ]
    assert f'export PODIUM_URL="{live_server.url}"' in snippets["token"][1]
    for key in ("submit-json-curl", "upload-csv-curl", "submit-python"):
        assert "Idempotency-Key" in snippets[key][1]

    env = {**os.environ, "PODIUM_URL": live_server.url, "PODIUM_TOKEN": raw}

    def run(key: str) -> str:
        language, code = snippets[key]
        command = ["bash", "-euo", "pipefail", "-c", code]
        if language == "python":
            command = [sys.executable, "-I", "-S", "-c", code]  # no site-packages
        done = subprocess.run(
            command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, f"{key} failed:\n{done.stdout}\n{done.stderr}"
        return done.stdout

    created = json.loads(run("submit-json-curl"))
    assert (created["algorithm"], created["status"], created["n_scores"]) == (
        "my-classifier",
        "accepted",  # the demo is open
        14,  # every dataset, so that it is ranked
    )
    uploaded = json.loads(run("upload-csv-curl"))
    assert [s["algorithm"] for s in uploaded["submissions"]] == ["my-forest"]
    assert uploaded["n_scores"] == 14
    # The same keys and content again, from Python: answered 200 with what was stored.
    replayed = run("submit-python").splitlines()
    assert replayed[0].startswith("200 ") and replayed[1].startswith("200 ")
    assert Submission.objects.filter(submitter__username="newcomer").count() == 2

    snapshot = json.loads(run("snapshot-curl"))
    assert snapshot["status"] == "ready" and snapshot["benchmark"] == "demsar-2006"
    printed = run("snapshot-python").splitlines()
    assert printed[0].startswith("version ") and " ranked by " in printed[0]
    ranked = [line.split()[0] for line in printed[1:]]
    assert sorted(ranked) == [
        "C4.5",
        "C4.5+cf",
        "C4.5+m",
        "C4.5+m+cf",
        "my-classifier",
        "my-forest",
    ]
    latest = requests.get(
        live_server.url + "/api/benchmarks/demsar-2006/snapshots/latest/", timeout=30
    ).json()
    assert int(printed[0].split()[1]) == latest["version"] > served_before
    # In the leaderboard's order (the CLI's and the pages': Board.order), ties included.
    board = from_json(Board, latest["board"])
    assert ranked == [board.algorithms[i] for i in board.order(board.recommended)]
    assert not any("not ranked" in note for note in latest["board"]["notes"])


@pytest.mark.django_db
def test_every_operation_has_request_and_response_examples_and_no_developer_notes(client):
    schema = client.get("/api/schema/?format=json").json()
    missing, leaked = [], []
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            body = operation.get("requestBody", {}).get("content", {})
            if body and not any("examples" in media for media in body.values()):
                missing.append(f"{method} {path}: request")
            contents = [
                media
                for code, response in operation["responses"].items()
                if code.startswith("2")
                for media in response.get("content", {}).values()
            ]
            if contents and not any("examples" in media for media in contents):
                missing.append(f"{method} {path}: response")
            if "max_body_bytes" in operation.get("description", ""):
                leaked.append(f"{method} {path}")
    assert missing == []
    assert leaked == []
    docs = client.get("/api/docs/").content.decode()
    n_operations = sum(len(item) for item in schema["paths"].values())
    assert docs.count('class="example"') >= n_operations
    assert "did you mean" in docs  # the typo example of submission_create
