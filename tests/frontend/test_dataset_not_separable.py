"""On a dataset page, an algorithm whose score is within the combined standard errors of
the best's (|diff| < 1.96 * sqrt(se_best^2 + se^2), both given by the files) is marked
not separable from the best; a constructed board, uploaded as a long CSV."""

from __future__ import annotations

import pytest

from frontend.explore.presenters import not_separable
from leaderboard.ingest.results_csv import parse_results_csv_text
from leaderboard.models import Submission
from leaderboard.services import benchmark_create, submission_entries_from_csv, submissions_create

pytestmark = pytest.mark.django_db

# d1: best 0.80 ± 0.01. Limits 1.96 * sqrt(0.01^2 + se^2): close 0.0277, wide 0.0438,
# sure 0.0219 (its 0.03 is beyond), far 0.0277 (its 0.10 is beyond); bare has no error.
CSV = """dataset,algorithm,score,standard_error
d1,best,0.80,0.01
d1,close,0.79,0.01
d1,wide,0.78,0.02
d1,sure,0.77,0.005
d1,far,0.70,0.01
d1,bare,0.795,
d2,best,0.5,
d2,close,0.6,
"""


def _marks(client) -> dict[str, bool]:
    html = client.get("/b/sep/datasets/d1/").content.decode()
    table = html.split('data-testid="dataset-scores-table"')[1].split("</table>")[0]
    marks = {}
    for row in table.split("<tr>")[2:]:
        name = row.split("</a>")[0].rsplit(">", 1)[1]
        marks[name] = 'data-testid="not-separable"' in row
    return marks


def test_scores_within_the_best_ones_standard_errors_are_marked_not_separable(client):
    benchmark = benchmark_create(slug="sep", title="Separable", metrics=[("score", "higher")])
    entries = submission_entries_from_csv(benchmark=benchmark, parsed=parse_results_csv_text(CSV))
    submissions_create(
        benchmark=benchmark,
        submitter=None,
        entries=entries,
        source=Submission.Source.IMPORT,
        new_datasets_confirmed=True,
    )
    assert _marks(client) == {
        "best": False,
        "bare": False,  # no standard error: nothing to compare with
        "close": True,
        "wide": True,
        "sure": False,
        "far": False,
    }
    page = client.get("/b/sep/datasets/d1/").content.decode()
    assert 'data-testid="not-separable-note"' in page
    assert "not separable from the best by the file's standard errors" in page
    # Where the best gave no standard error, nothing is marked, nor explained.
    d2 = client.get("/b/sep/datasets/d2/").content.decode()
    assert 'data-testid="not-separable' not in d2


def test_the_rule_is_strict_and_symmetric():
    limit = 1.96 * (0.03**2 + 0.04**2) ** 0.5  # 0.098
    assert not_separable(limit - 1e-9, 0.03, 0.04) and not_separable(-(limit - 1e-9), 0.04, 0.03)
    assert not not_separable(limit + 1e-9, 0.03, 0.04)
    assert not not_separable(0.0, 0.0, 0.0)  # no uncertainty: only a tie, and not "<"
