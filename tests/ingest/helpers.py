"""Fixture folders of the importers, as files and as zips."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from leaderboard.ingest.formats import files_from_path

FIXTURES = Path(__file__).parent / "fixtures"
FOLDER = {
    "mteb": "mteb",
    "lm-eval": "lm-eval",
    "hf-leaderboard": "hf-leaderboard",
    "openml": "openml",
    "helm": "helm",
    "eee": "eee",
    "pwc": "pwc",
    "lighteval": "lighteval",
    "eval-results": "eval-results",
}


def fixture_files(format: str) -> dict[str, bytes]:
    return files_from_path(FIXTURES / FOLDER[format])


def zipped(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def board_order(imported, metric: str | None, *, direction: bool | None = None) -> list[str]:
    """The algorithms by mean rank over the datasets on ``metric`` (best first), in the
    metric's direction as the files state it (else ``direction``, as ``--direction``
    gives it; else higher): the order of a board of these results."""
    import numpy as np

    from estimation.core.rankings import rank_scores

    info = imported.metric(metric) if metric is not None else None
    stated = None if info is None else info.higher_is_better
    higher = stated if stated is not None else (True if direction is None else direction)
    table = imported.parsed.to_table(metric=metric, higher_is_better=higher)
    oriented = np.asarray(table.values) * (1.0 if higher else -1.0)
    mean_ranks = np.nanmean(rank_scores(oriented), axis=0)
    return [table.algorithms[j] for j in np.argsort(mean_ranks, kind="stable")]


def tau(order: list[str], published: list[str]) -> float:
    """Kendall's tau between two orders of the same names."""
    from scipy.stats import kendalltau

    position = {name: i for i, name in enumerate(published)}
    return float(kendalltau(range(len(order)), [position[name] for name in order]).statistic)


def lighteval_imported(slug: str, *options: str):
    """The lighteval fixture (no folds, a standard error per score) imported into a new
    benchmark ``slug`` by ``manage.py import_results``, as a maintainer brings a real file in."""
    from io import StringIO

    from django.core.management import call_command

    from leaderboard.models import Benchmark

    call_command(
        "import_results",
        str(FIXTURES / "lighteval"),
        "--format=lighteval",
        f"--benchmark={slug}",
        *options,
        stdout=StringIO(),
        stderr=StringIO(),
    )
    return Benchmark.objects.get(slug=slug)


def score_superseded(benchmark, *, algorithm: str, dataset: str, metric: str, value: float):
    """A newer accepted result of one cell, without a standard error."""
    from leaderboard.models import Submission
    from leaderboard.services import ScoreInput, SubmissionInput, submissions_create

    submissions_create(
        benchmark=benchmark,
        submitter=None,
        entries=[
            SubmissionInput(algorithm=algorithm, scores=[ScoreInput(dataset, value, metric=metric)])
        ],
        source=Submission.Source.IMPORT,
    )
