"""A score's standard error as its source file gave it (lighteval's ``_stderr``) beside the
score on the dataset page, from the submission whose score the analysis uses."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from leaderboard.models import Benchmark, Submission
from leaderboard.services import ScoreInput, SubmissionInput, submissions_create
from tests.ingest.helpers import FIXTURES

pytestmark = pytest.mark.django_db

DATASET = "arc:challenge"


def _cells(client, slug: str) -> dict[str, str]:
    html = client.get(f"/b/{slug}/datasets/{DATASET}/", {"metric": "acc"}).content.decode()
    table = html.split('data-testid="dataset-scores-table"')[1].split("</table>")[0]
    cells = {}
    for row in table.split("<tr>")[2:]:
        name = row.split("</a>")[0].rsplit(">", 1)[1]
        cells[name] = row.split('data-testid="standard-error">')[1].split("</td>")[0]
    return cells


def test_the_dataset_page_shows_the_standard_error_the_file_gave(client):
    call_command(
        "import_results",
        str(FIXTURES / "lighteval"),
        "--format=lighteval",
        "--benchmark=lite",
        stdout=StringIO(),
        stderr=StringIO(),
    )
    cells = _cells(client, "lite")
    # The fixture's arc:challenge acc_stderr: 0.0145 (Llama-2), 0.0144 (Falcon).
    assert cells["meta-llama/Llama-2-7b-hf"] == "± 0.0145"
    assert cells["tiiuae/falcon-7b"] == "± 0.0144"
    assert set(cells) == {
        "meta-llama/Llama-2-7b-hf",
        "mistralai/Mistral-7B-v0.1",
        "tiiuae/falcon-7b",
    }

    # A newer accepted result without one supersedes the cell: no standard error is shown
    # for a score it does not belong to.
    benchmark = Benchmark.objects.get(slug="lite")
    submissions_create(
        benchmark=benchmark,
        submitter=None,
        entries=[
            SubmissionInput(
                algorithm="meta-llama/Llama-2-7b-hf",
                scores=[ScoreInput(DATASET, 0.5, metric="acc")],
            )
        ],
        source=Submission.Source.IMPORT,
    )
    cells = _cells(client, "lite")
    assert cells["meta-llama/Llama-2-7b-hf"] == "–"
    assert cells["tiiuae/falcon-7b"] == "± 0.0144"
