"""On a dataset page, an algorithm whose score the snapshot's z-test by the files' standard
errors does not separate from the best's (Holm-corrected across the dataset's pairs) is
marked "≈ best": the page reads the engine's stored decision, the one head to head reads,
and says why where the snapshot holds no such test. A constructed board, uploaded as a
long CSV."""

from __future__ import annotations

import io
from types import SimpleNamespace

import pytest
from django.core.management import call_command

from estimation.core.contract import DatasetTests, StandardErrorTable, WithinDatasetSection
from estimation.core.pairwise_scope import MAX_PAIRWISE_ALGORITHMS
from frontend.explore.presenters import standard_errors_untested
from leaderboard.ingest.results_csv import parse_results_csv_text
from leaderboard.models import Submission
from leaderboard.services import benchmark_create, submission_entries_from_csv, submissions_create

pytestmark = pytest.mark.django_db

# d1, every standard error 0.01 but bare's (none): combined 0.0141 per pair.
#   best-close 0.01 (z 0.71, p 0.48); best-near 0.03 (z 2.12, p 0.034); best-third 0.06
#   (z 4.24); close-near z 1.41; close-third z 3.54; near-third z 2.12 (p 0.034).
# Holm over the six tested pairs puts best-near at 4 x 0.034 = 0.136: not separable. The
# uncorrected 1.96 rule (|0.03| < 1.96 x 0.0141 = 0.0277 is false) would call it a win:
# near is the case where the two rules disagree.
# d2: no standard errors; d3: best separable from near. d4 comes after the computation.
CSV = """dataset,algorithm,score,standard_error
d1,best,0.80,0.01
d1,close,0.79,0.01
d1,near,0.77,0.01
d1,third,0.74,0.01
d1,bare,0.795,
d2,best,0.6,
d2,close,0.5,
d2,near,0.55,
d2,third,0.4,
d2,bare,0.45,
d3,best,0.7,0.01
d3,close,0.69,0.01
d3,near,0.5,0.01
d3,third,0.6,0.01
d3,bare,0.4,0.01
"""
LATER = """dataset,algorithm,score,standard_error
d4,best,0.7,0.01
d4,close,0.69,0.01
d4,near,0.5,0.01
d4,third,0.6,0.01
d4,bare,0.4,0.01
"""


def _page(client, dataset: str) -> str:
    return client.get(f"/b/sep/datasets/{dataset}/").content.decode()


def _marks(html: str) -> dict[str, bool]:
    table = html.split('data-testid="dataset-scores-table"')[1].split("</table>")[0]
    marks = {}
    for row in table.split("<tr>")[2:]:
        name = row.split("</a>")[0].rsplit(">", 1)[1]
        marks[name] = 'data-testid="not-separable"' in row
    return marks


def _imported(benchmark, text: str) -> None:
    entries = submission_entries_from_csv(benchmark=benchmark, parsed=parse_results_csv_text(text))
    submissions_create(
        benchmark=benchmark,
        submitter=None,
        entries=entries,
        source=Submission.Source.IMPORT,
        new_datasets_confirmed=True,
    )


@pytest.fixture
def separable_board():
    benchmark = benchmark_create(slug="sep", title="Separable", metrics=[("score", "higher")])
    _imported(benchmark, CSV)
    return benchmark


def test_the_mark_is_the_engines_holm_corrected_decision(client, separable_board):
    call_command("recompute", "sep", stdout=io.StringIO())
    html = _page(client, "d1")
    assert _marks(html) == {
        "best": False,
        "bare": False,  # no standard error: the pair was not tested
        "close": True,
        "near": True,  # Holm: not separable (the uncorrected 1.96 rule said separable)
        "third": False,
    }
    assert 'data-testid="not-separable-note"' in html
    assert "Holm-corrected across this dataset" in html
    assert "1.96" not in html
    # The pair table below says the same of best and near.
    table = html.split('data-testid="by-errors-table"')[1].split("</table>")[0]
    row = next(
        r
        for r in table.split("<tr")[1:]
        if ">best</th><td>near<" in r or ">near</th><td>best<" in r
    )
    assert "not separable" in row
    # Head to head reads the same stored decision: best ranks above near on d1 and d3,
    # separable on d3 only.
    pair = client.get("/b/sep/compare/", {"a": "best", "b": "near"}, follow=True)
    html = pair.content.decode()
    summary = " ".join(
        html.split('data-testid="pair-by-errors-summary">')[1].split("</p>")[0].split()
    )
    assert (
        "best is better beyond the combined uncertainty on 1, near on 0, and the two are not separable on 1"
        in summary
    )
    assert "win, not separable by the standard errors" in html
    record = html.split('data-testid="pair-record-by-errors">')[1].split("</span>")[0]
    assert "on 1 of the 2 datasets tested by the files' standard errors" in record


def test_where_the_snapshot_holds_no_test_nothing_is_marked_and_the_page_says_why(
    client, separable_board
):
    before = _page(client, "d1")
    assert not any(_marks(before).values())
    assert "no results have been computed yet" in before
    call_command("recompute", "sep", stdout=io.StringIO())
    _imported(separable_board, LATER)  # not computed yet: no test of d4 stored
    d4 = _page(client, "d4")
    assert 'data-testid="standard-error"' in d4
    assert not any(_marks(d4).values())
    assert 'data-testid="not-separable-untested"' in d4
    assert "this dataset was not part of the analysis" in d4
    # No standard errors at all: no column, no mark, nothing to explain.
    d2 = _page(client, "d2")
    assert 'data-testid="not-separable' not in d2


NEWEST = """dataset,algorithm,score,standard_error
d1,newest,0.9,0.01
"""


def test_a_best_newer_than_the_snapshot_marks_nothing_and_the_page_says_why(
    client, separable_board
):
    call_command("recompute", "sep", stdout=io.StringIO())
    _imported(separable_board, NEWEST)  # the live best of d1, not computed yet
    html = _page(client, "d1")
    marks = _marks(html)
    assert next(iter(marks)) == "newest"
    assert not any(marks.values())  # no test against "newest" is stored
    assert 'data-testid="not-separable-note"' not in html
    assert 'data-testid="not-separable-untested"' in html
    assert "the newest results are not computed yet" in html


def _within(m: int, *, table: bool, note: str | None = None) -> WithinDatasetSection:
    pairs = m * (m - 1) // 2
    errors = StandardErrorTable(
        diff=(0.01,) * pairs,
        se=(0.1,) * pairs,
        z=(0.1,) * pairs,
        pvalue=(1.0,) * pairs,
        significant=(False,) * pairs,
        correction="holm",
    )
    entry = DatasetTests(
        dataset="d",
        n_folds=0,
        significance_rank=(1.0,) * m,
        tukey=None,
        standard_errors=errors if table else None,
    )
    return WithinDatasetSection(
        algorithms=tuple(f"a{i}" for i in range(m)), datasets=(entry,), note=note
    )


def test_why_a_dataset_has_no_test_by_the_standard_errors():
    board = SimpleNamespace(algorithms=("a0", "a1", "a2"))
    assert standard_errors_untested(board=board, within=_within(3, table=True), dataset="d") is None
    assert (
        standard_errors_untested(board=board, within=_within(3, table=True), dataset="d", best="a0")
        is None
    )
    assert "newest results are not computed yet" in str(
        standard_errors_untested(board=board, within=_within(3, table=True), dataset="d", best="a9")
    )
    left_out = _within(3, table=False, note="too many pairs")
    assert "leave the pairwise tables out" in str(
        standard_errors_untested(board=board, within=left_out, dataset="d")
    )
    big = SimpleNamespace(algorithms=tuple(range(MAX_PAIRWISE_ALGORITHMS + 1)))
    assert f"up to {MAX_PAIRWISE_ALGORITHMS} algorithms" in str(
        standard_errors_untested(board=big, within=_within(3, table=False), dataset="d")
    )


def test_the_stored_test_reads_the_same_in_either_order():
    within = _within(3, table=True)
    forward = within.standard_error_test("d", "a0", "a2")
    backward = within.standard_error_test("d", "a2", "a0")
    assert forward is not None and backward is not None
    assert forward.diff == 0.01 and backward.diff == -0.01
    assert forward.significant is backward.significant is False
    assert within.standard_error_test("d", "a0", "a9") is None
    assert within.standard_error_test("other", "a0", "a1") is None
    assert within.standard_error_tests("a1", "a0")["d"].diff == -0.01
