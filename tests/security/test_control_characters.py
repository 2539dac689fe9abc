"""NUL and other control characters in an uploaded file: a 400 naming line and column.

PostgreSQL text cannot hold NUL, so before the check a NUL in a dataset name reached
the database and came back as a 500. Every entry point goes through the same rules.
"""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from leaderboard.models import Dataset
from leaderboard.services import ScoreInput, SubmissionInput, ValidationFailed, submission_create
from tests.factories import make_benchmark, make_user, stored_scores

pytestmark = pytest.mark.django_db


def problems_of(body: dict) -> list[dict]:
    """The located problems of an API error body (flat or inside an "error" envelope)."""
    return body.get("problems") or body.get("error", {}).get("problems") or []


ATTACKS = [
    (b"dataset,algorithm,score\nd1,alg,0.5\nd\x002,alg,0.5\n", 3, "dataset", "U+0000"),
    (b"dataset,algorithm,score\nd1,al\x07g,0.5\n", 2, "algorithm", "U+0007"),
    (b'dataset,algorithm,score\n"d\n1",alg,0.5\n', 2, "dataset", "U+000A"),
    (b"dataset,algorithm,score,metric\nd1,alg,0.5,sc\x1bore\n", 2, "metric", "U+001B"),
    (b"dataset,alg\x00x\nd1,0.5\n", 1, "#2", "U+0000"),
    # Invisible characters: a right-to-left override and a zero-width space.
    ("dataset,algorithm,score\nd1,alg,0.5\nd2,al\u202eg,0.5\n".encode(), 3, "algorithm", "U+202E"),
    ("dataset,algorithm,score\nd1,alg,0.5\nd2,al\u200bg,0.5\n".encode(), 3, "algorithm", "U+200B"),
]


@pytest.mark.parametrize(("content", "line", "column", "char"), ATTACKS)
def test_api_upload_answers_400_with_line_and_column(content, line, column, char):
    benchmark = make_benchmark("toy")
    api = APIClient()
    api.force_login(make_user("attacker"))
    upload = SimpleUploadedFile("bad.csv", content, content_type="text/csv")
    response = api.post(
        f"/api/benchmarks/{benchmark.slug}/submissions/upload/",
        {"file": upload},
        format="multipart",
    )
    assert response.status_code == 400, response.content
    problems = problems_of(response.json())
    assert any(
        p["line"] == line and p["field"] == column and char in p["message"] for p in problems
    ), problems
    assert not stored_scores()


@pytest.mark.parametrize(("content", "line", "column", "char"), ATTACKS[:2])
def test_web_upload_shows_line_and_column(content, line, column, char):
    benchmark = make_benchmark("toy")
    web = Client()
    web.force_login(make_user("attacker"))
    upload = SimpleUploadedFile("bad.csv", content, content_type="text/csv")
    response = web.post(f"/b/{benchmark.slug}/submit/csv/", {"file": upload})
    assert response.status_code == 200
    page = response.content.decode()
    assert char in page and f"{line}" in page
    assert not stored_scores()


def test_service_refuses_control_characters_from_any_entry_point():
    benchmark = make_benchmark("toy")
    with pytest.raises(ValidationFailed) as refused:
        submission_create(
            benchmark=benchmark,
            submitter=make_user("attacker"),
            entry=SubmissionInput(
                algorithm="alg\x00", scores=[ScoreInput(dataset="d\x00", value=0.5)]
            ),
        )
    fields = {p.field for p in refused.value.problems}
    assert {"algorithm", "dataset"} <= fields
    assert not Dataset.objects.exists()
