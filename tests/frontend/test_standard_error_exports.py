"""The standard error a source file gave with a score goes out in the scores export and
comes back in when that export is uploaded: the long CSV's optional ``standard_error``
column, kept in the submission's provenance as the importers keep it."""

from __future__ import annotations

import csv
import io

import pytest

from leaderboard.ingest.results_csv import parse_results_csv_text
from leaderboard.models import Submission
from leaderboard.services import (
    benchmark_create,
    submission_entries_from_csv,
    submissions_create,
)
from tests.ingest.helpers import lighteval_imported, score_superseded

pytestmark = pytest.mark.django_db


def _text(client, slug: str) -> str:
    return b"".join(client.get(f"/b/{slug}/scores.csv").streaming_content).decode()


def _export(client, slug: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(_text(client, slug))))


def _spreads(rows: list[dict[str, str]]) -> dict[tuple[str, str, str], str]:
    return {(r["dataset"], r["algorithm"], r["metric"]): r["standard_error"] for r in rows}


def test_the_scores_export_carries_the_standard_errors_and_reads_back_with_them(client):
    lite = lighteval_imported("lite")
    # A newer accepted result without one supersedes a cell: its row's cell is empty.
    score_superseded(
        lite, algorithm="tiiuae/falcon-7b", dataset="arc:challenge", metric="acc", value=0.5
    )
    rows = _export(client, "lite")
    assert list(rows[0]) == ["dataset", "algorithm", "fold", "metric", "score", "standard_error"]
    spreads = _spreads(rows)
    # The fixture's arc:challenge acc_stderr (as the dataset page shows it, ± 0.0145).
    assert float(spreads["arc:challenge", "meta-llama/Llama-2-7b-hf", "acc"]) == pytest.approx(
        0.0145, abs=5e-5
    )
    assert spreads["arc:challenge", "tiiuae/falcon-7b", "acc"] == ""
    assert spreads["arc:challenge", "tiiuae/falcon-7b", "acc_norm"] != ""

    # The export, uploaded to a benchmark with the same metrics, keeps them all.
    copy = benchmark_create(
        slug="copy",
        title="Copy",
        metrics=[(m.name, m.direction) for m in lite.metrics.all()],
    )
    parsed = parse_results_csv_text(_text(client, "lite"))
    entries = submission_entries_from_csv(benchmark=copy, parsed=parsed)
    submissions_create(
        benchmark=copy,
        submitter=None,
        entries=entries,
        source=Submission.Source.IMPORT,
        new_datasets_confirmed=True,
    )
    llama = Submission.objects.get(benchmark=copy, algorithm__name="meta-llama/Llama-2-7b-hf")
    assert llama.provenance["standard_errors"]["arc:challenge | acc"] == pytest.approx(
        0.0145, abs=5e-5
    )
    assert _spreads(_export(client, "copy")) == spreads
