"""A score's standard error as its source file gave it (lighteval's ``_stderr``) beside the
score on the dataset page, from the submission whose score the analysis uses."""

from __future__ import annotations

import pytest

from tests.ingest.helpers import lighteval_imported, score_superseded

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
    benchmark = lighteval_imported("lite")
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
    score_superseded(
        benchmark, algorithm="meta-llama/Llama-2-7b-hf", dataset=DATASET, metric="acc", value=0.5
    )
    cells = _cells(client, "lite")
    assert cells["meta-llama/Llama-2-7b-hf"] == "–"
    assert cells["tiiuae/falcon-7b"] == "± 0.0144"
