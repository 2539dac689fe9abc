"""Demo benchmarks built from published tables shipped in leaderboard/demo_data/."""

from __future__ import annotations

import csv
from pathlib import Path

from django.db import transaction

from leaderboard.models import Benchmark, Submission
from leaderboard.services import ScoreInput, SubmissionInput, benchmark_create, submissions_create

DEMO_DATA = Path(__file__).resolve().parent / "demo_data"

DEMSAR_DESCRIPTION = (
    "AUC of four variants of C4.5 on 14 UCI datasets: Demšar (2006), Table 6. "
    "The textbook example of Friedman and Nemenyi tests across datasets."
)
DEMSAR_CITATION = (
    "J. Demšar. Statistical Comparisons of Classifiers over Multiple Data Sets. "
    "Journal of Machine Learning Research 7:1-30, 2006."
)


@transaction.atomic
def demo_load() -> list[Benchmark]:
    """Create the demo benchmarks that do not exist yet; return those created."""
    created = []
    if not Benchmark.objects.filter(slug="demsar-2006").exists():
        created.append(_load_demsar())
    return created


def _load_demsar() -> Benchmark:
    benchmark = benchmark_create(
        slug="demsar-2006",
        title="Demšar 2006: C4.5 variants (AUC)",
        description=DEMSAR_DESCRIPTION,
        citation=DEMSAR_CITATION,
        licence="JMLR, free access",
        metrics=[("AUC", "higher")],
    )
    with open(DEMO_DATA / "demsar2006_table6_auc.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    algorithms = [name for name in rows[0] if name != "dataset"]
    entries = [
        SubmissionInput(
            algorithm=algorithm,
            scores=[
                ScoreInput(dataset=row["dataset"], value=float(row[algorithm])) for row in rows
            ],
        )
        for algorithm in algorithms
    ]
    submissions_create(
        benchmark=benchmark, submitter=None, entries=entries, source=Submission.Source.IMPORT
    )
    return benchmark
