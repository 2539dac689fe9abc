"""Hostile values in another tool's files are a 400 naming the file and
key, never a 500 with a traceback.

A 5,000-digit integer (Python refuses to read integers past 4,300 digits, and
``json.loads`` passes that on as a plain ValueError), OpenML per-fold values nested past
the recursion limit in a CSV cell, and a CSV field past ``csv``'s size limit each
crashed the importers; a key holding a lone surrogate (``"\\ud800"`` in JSON), named in
the problem as it was, crashed the response's encoding.
"""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from leaderboard.models import Submission
from leaderboard.services import benchmark_create
from tests.factories import make_user, stored_scores

pytestmark = pytest.mark.django_db

HUGE = "9" * 5000
DEEP = "[" * 5000 + "]" * 5000
HEADER = "run_id,task_id,flow_name,data_name,function,value,values\n"
RECORD = (
    '[{"run_id":1,"task_id":1,"flow_name":"f","data_name":"d",'
    '"function":"predictive_accuracy","value":null,"values":%s}]'
)
CASES = {
    "hf-leaderboard integer": (
        "hf-leaderboard",
        "r.json",
        '{"config":{"model_name":"m"},"results":{"t":{"acc":' + HUGE + "}}}",
        "r.json: results.t.acc",
    ),
    "openml integer": ("openml", "e.json", RECORD % f"[[{HUGE}]]", "e.json: [0].values[0][0]"),
    "eee integer": (
        "eee",
        "e.json",
        '{"model_info":{"id":"m"},"evaluation_results":[{"evaluation_name":"d",'
        '"metric_config":{},"score_details":{"score":' + HUGE + "}}]}",
        "e.json: evaluation_results[0].score_details.score",
    ),
    "hf-leaderboard key with a lone surrogate": (
        "hf-leaderboard",
        "r.json",
        '{"config":{"model_name":"m"},"results":{"t\\ud800":{"acc":0.5}}}',
        "r.json: results.t\\ud800.acc",
    ),
    "openml nested values in a CSV cell": (
        "openml",
        "e.csv",
        HEADER + f'1,1,f,d,predictive_accuracy,,"{DEEP}"\n',
        "e.csv: line 2.values",
    ),
    "openml oversized CSV field": (
        "openml",
        "e.csv",
        HEADER + f'1,1,f,d,predictive_accuracy,,"{"x" * 200_000}"\n',
        "e.csv: line 2",
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_a_hostile_value_is_a_400_naming_the_file_and_key(case):
    fmt, name, text, where = CASES[case]
    benchmark_create(slug="b", title="b", metrics=[("acc", "higher")])
    api = APIClient(raise_request_exception=False)
    api.force_login(make_user("attacker"))
    response = api.post(
        "/api/benchmarks/b/submissions/upload/",
        {"file": SimpleUploadedFile(name, text.encode()), "format": fmt},
        format="multipart",
    )
    assert response.status_code == 400, response.content[:300]
    fields = [p["field"] for p in response.json()["problems"]]
    assert where in fields, fields
    assert not stored_scores()


def test_provenance_postgresql_cannot_hold_is_stored_as_json_it_can():
    """NaN, NUL and lone surrogates in what a file says of its model (its ``model_dtype``
    here) reached the submissions' JSON column as they were: PostgreSQL refused the save."""
    benchmark_create(slug="b", title="b", metrics=[("acc", "higher")])
    api = APIClient(raise_request_exception=False)
    api.force_login(make_user("uploader"))
    text = (
        '{"config":{"model_name":"m","model_dtype":{"nan":NaN,"text":"x\\u0000\\ud800"}},'
        '"results":{"t":{"acc":0.5}}}'
    )
    response = api.post(
        "/api/benchmarks/b/submissions/upload/",
        {"file": SimpleUploadedFile("r.json", text.encode()), "format": "hf-leaderboard"},
        format="multipart",
    )
    assert response.status_code == 201, response.content[:300]
    stored = Submission.objects.get().provenance["model_dtype"]
    assert stored == {"nan": None, "text": "x\\x00\\ud800"}  # escaped, as problems are
