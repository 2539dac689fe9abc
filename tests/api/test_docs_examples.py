"""The response examples of /api/docs/ have the shape of real responses.

Each operation's examples (from /api/schema/, as the docs page shows them) are compared
with that operation's real answer on the Demšar demo: every object has the same keys
(except where an example is trimmed on purpose, ``TRIMMED``), every value the same JSON
type (null goes with any), lists by their first item. An operation with examples that is
not called here says why in ``NOT_CALLED``, so that a new one cannot slip by.
"""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from estimation.services import recompute_run
from leaderboard.demo import DEMOS
from tests.api.conftest import client_for
from tests.factories import make_user

pytestmark = pytest.mark.django_db

SLUG = "demsar-2006"
# Objects of the examples that list only some of the real keys, by where they are.
TRIMMED = {
    "board": "every field of the board is in /api/contract/",
    "board.input": "every field of the board is in /api/contract/",
    "board.estimators[]": "every field of the board is in /api/contract/",
    "rows[]": "an export's row has a value for each of its columns",
}
TRIMMED_WHOLE = {"snapshot_schema": "the JSON Schema itself, cut to its head"}
NOT_CALLED = {
    "upload_job_detail": "needs a file over PODIUM_BACKGROUND_UPLOAD_BYTES and a worker; "
    "tests/api/test_background_upload.py reads the real answer",
    "submission_accept": "answers a submission, the shape compared for submission_detail",
    "submission_reject": "answers a submission, the shape compared for submission_detail",
    "submission_withdraw": "answers a submission, the shape compared for submission_detail",
    "dataset_rename": "answers {name}; needs a name only unaccepted submissions use",
    "dataset_delete": "answers {name}; needs a name only unaccepted submissions use",
    "algorithm_rename": "answers {name}; needs a name only unaccepted submissions use",
    "algorithm_delete": "answers {name}; needs a name only unaccepted submissions use",
    "api_token_revoke": "answers 204 without a body",
    "algorithm_owner_add": "answers {algorithm, owners}; needs accounts of those names; "
    "tests/security/test_algorithm_ownership.py and the authorisation matrix call it",
    "algorithm_owners_transfer": "answers {algorithm, owners}, as algorithm_owner_add",
}


def _json_type(value) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


def _mismatches(example, real, operation: str, where: str = "") -> list[str]:
    if example is None or real is None:
        return []
    if _json_type(example) != _json_type(real):
        return [
            f"{operation} {where or '.'}: {_json_type(example)} in the example, "
            f"{_json_type(real)} in the answer"
        ]
    if isinstance(example, list):
        if example and real:
            return _mismatches(example[0], real[0], operation, f"{where}[]")
        return []
    if not isinstance(example, dict):
        return []
    found = [f"{operation} {where}.{key}: not in the answer" for key in example if key not in real]
    if where not in TRIMMED and not (where == "" and operation in TRIMMED_WHOLE):
        found += [
            f"{operation} {where}.{key}: missing from the example"
            for key in real
            if key not in example
        ]
    for key in example.keys() & real.keys():
        found += _mismatches(example[key], real[key], operation, f"{where}.{key}".removeprefix("."))
    return found


def _examples(operation: dict, status: str) -> list:
    content = operation["responses"].get(status, {}).get("content", {})
    return [
        example["value"]
        for media, body in content.items()
        if "json" in media
        for example in body.get("examples", {}).values()
    ]


def test_every_response_example_has_the_shape_of_the_real_answer(client):
    benchmark = DEMOS[SLUG]()
    (snapshot,) = recompute_run(benchmark_id=benchmark.pk, owner="docs-examples")
    maintainer = make_user("maintainer")
    benchmark.maintainers.add(maintainer)
    researcher = client_for(make_user("alice"))
    schema = client.get("/api/schema/?format=json").json()
    operations = {
        operation["operationId"]: (path, method, operation)
        for path, item in schema["paths"].items()
        for method, operation in item.items()
    }

    def request_example(operation_id: str) -> dict:
        body = operations[operation_id][2]["requestBody"]["content"]
        return next(iter(next(iter(body.values()))["examples"].values()))["value"]

    # Writes first, so that the reads below have a submission and a token to show.
    answers = {
        "submission_create": researcher.post(
            f"/api/benchmarks/{SLUG}/submissions/create/",
            request_example("submission_create"),
            format="json",
        ),
        "submission_upload": researcher.post(
            f"/api/benchmarks/{SLUG}/submissions/upload/",
            {
                "file": SimpleUploadedFile(
                    "results.csv", request_example("submission_upload")["file"].encode()
                )
            },
            format="multipart",
        ),
        "api_token_create": researcher.post(
            "/api/tokens/create/", request_example("api_token_create"), format="json"
        ),
        "benchmark_create": researcher.post(
            "/api/benchmarks/create/", request_example("benchmark_create"), format="json"
        ),
    }
    submission_id = answers["submission_create"].json()["id"]
    values = {
        "slug": SLUG,
        "version": str(snapshot.version),
        "name": "nemenyi",  # the section the examples show
        "submission_id": str(submission_id),
    }
    reader = client_for(maintainer)
    for operation_id, (path, method, _) in operations.items():
        if method != "get" or operation_id in NOT_CALLED:
            continue
        url = path
        for name, value in values.items():
            url = url.replace("{" + name + "}", value)
        answers[operation_id] = (researcher if "tokens" in path else reader).get(url)
    metric = benchmark.metrics.get(is_primary=True).name
    answers["metric_rope"] = client_for(maintainer).post(
        f"/api/benchmarks/{SLUG}/metrics/{metric}/rope/",
        request_example("metric_rope"),
        format="json",
    )
    answers["benchmark_update"] = client_for(maintainer).post(
        f"/api/benchmarks/{SLUG}/update/", request_example("benchmark_update"), format="json"
    )

    problems, compared = [], set()
    for operation_id, (_, _, operation) in operations.items():
        for status in operation["responses"]:
            examples = _examples(operation, status) if status.startswith("2") else []
            if not examples or operation_id in NOT_CALLED:
                continue
            answer = answers[operation_id]
            if answer.status_code == int(status):  # else another answer of the operation
                compared.add(operation_id)
                for example in examples:
                    problems += _mismatches(example, answer.json(), operation_id)
    assert problems == [], "\n".join(problems)
    with_examples = {
        operation_id
        for operation_id, (_, _, operation) in operations.items()
        if any(
            _examples(operation, status) for status in operation["responses"] if status[0] == "2"
        )
    }
    assert with_examples - NOT_CALLED.keys() == compared
