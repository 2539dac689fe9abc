"""A parsed file's scores as columns (ScoreBlock) behave exactly as ScoreInput lists.

The column path exists for memory (no object per row of a million-row file); every
answer the services give must be the one the row path gives: the content hash, the
problems (text, line, order), the stored rows.
"""

from __future__ import annotations

import dataclasses
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from leaderboard.ingest.results_csv import parse_results_csv_text
from leaderboard.models import Benchmark, Metric
from leaderboard.services import (
    ScoreBlock,
    ScoreInput,
    SubmissionInput,
    ValidationFailed,
    entries,
    submission_entries_from_csv,
    submissions_create,
)
from leaderboard.services.content_hash import content_hash, content_hash_legacy
from tests.factories import make_benchmark, make_user, stored_scores

pytestmark = pytest.mark.django_db


def as_rows(entries: list[SubmissionInput]) -> list[SubmissionInput]:
    """The same entries with each ScoreBlock turned into a list of ScoreInput."""
    return [dataclasses.replace(e, scores=list(e.scores)) for e in entries]


def parse(benchmark, text: str):
    parsed = parse_results_csv_text(text.encode())
    entries = submission_entries_from_csv(benchmark=benchmark, parsed=parsed)
    assert all(isinstance(e.scores, ScoreBlock) for e in entries)
    return entries


LONG = "dataset,algorithm,score,fold\n" + "".join(
    f"d{d},alg-{a},{0.1 * d + 0.01 * a + 0.001 * f!r},{f}\n"
    for a in (2, 0, 1)
    for d in range(4)
    for f in range(3)
)


def test_blocks_keep_file_order_and_rows():
    benchmark = make_benchmark()
    entries = parse(benchmark, LONG)
    assert [e.algorithm for e in entries] == ["alg-2", "alg-0", "alg-1"]
    first = entries[0].scores
    assert len(first) == 12
    assert first[0].dataset == "d0" and first[0].fold == 0 and first[0].line == 2
    assert first[-1].line == 13 and first[-1].fold == 2
    assert [s.line for s in first[1:3]] == [3, 4]
    assert list(first)[5] == first[5]


def test_content_hash_is_the_row_paths():
    benchmark = make_benchmark()
    entries = parse(benchmark, LONG)
    assert content_hash(entries) == content_hash(as_rows(entries))
    assert content_hash_legacy(entries) == content_hash_legacy(as_rows(entries))


def test_stored_rows_are_the_row_paths():
    user = make_user()
    stored = []
    for slug, convert in (("blocks", lambda e: e), ("rows", as_rows)):
        benchmark = make_benchmark(slug=slug, submission_policy="open")
        submissions_create(
            benchmark=benchmark, submitter=user, entries=convert(parse(benchmark, LONG))
        )
        stored.append(
            sorted(
                (r.algorithm, r.dataset, r.metric, r.fold, r.value)
                for r in stored_scores(submission__benchmark=benchmark)
            )
        )
    assert stored[0] == stored[1] and len(stored[0]) == 36


@pytest.mark.parametrize(
    "text, fields",
    [
        # a duplicate (same dataset and fold twice for one algorithm)
        ("dataset,algorithm,score,fold\nd1,a,0.5,0\nd1,a,0.6,0\nd2,a,0.1,0\n", None),
        # ranks in a score benchmark are refused before; here: a listed-only benchmark
        ("dataset,algorithm,score\nknown,a,0.5\nnew-one,a,0.6\n", {"allow_new_datasets": False}),
        # a rank below 1 in a ranking-only benchmark
        ("dataset,algorithm,rank\nd1,a,0.5\nd1,b,2\n", {"ranking_only": True}),
        # an unknown metric column value
        ("dataset,algorithm,score,metric\nd1,a,0.5,accuracy\nd1,b,0.6,score\n", None),
    ],
)
def test_problems_are_the_row_paths(text, fields):
    user = make_user()
    answers = []
    for slug, convert in (("blocks", lambda e: e), ("rows", as_rows)):
        benchmark = make_benchmark(slug=slug, submission_policy="open", **(fields or {}))
        benchmark.datasets.create(name="known", declared=True)
        try:
            parsed = parse_results_csv_text(text.encode())
        except ValueError as exc:  # the parser already refuses it: nothing to compare
            answers.append(str(exc))
            continue
        entries = submission_entries_from_csv(benchmark=benchmark, parsed=parsed)
        with pytest.raises(ValidationFailed) as caught:
            submissions_create(benchmark=benchmark, submitter=user, entries=convert(entries))
        answers.append([str(p) for p in caught.value.problems])
    assert answers[0] == answers[1]


def test_block_checks_catch_what_the_loop_catches():
    """Hand-made blocks (hostile columns) fall back to the row loop's messages."""
    benchmark = make_benchmark(submission_policy="open")
    user = make_user()
    base = dict(
        datasets=("d1", "d2"),
        metrics=(),
        dataset_codes=np.array([0, 1]),
        metric_codes=np.array([-1, -1]),
        folds=np.array([-1, -1]),
        lines=np.array([2, 3]),
    )
    for values, folds, expected in (
        ([0.5, np.nan], [-1, -1], "finite number"),
        ([0.5, 0.6], [0, 2**31], "fold must be an integer"),
    ):
        block = ScoreBlock(**{**base, "folds": np.array(folds)}, values=np.array(values))
        with pytest.raises(ValidationFailed) as caught:
            submissions_create(
                benchmark=benchmark,
                submitter=user,
                entries=[SubmissionInput(algorithm="a", scores=block)],
            )
        assert expected in str(caught.value.problems[0])
        assert caught.value.problems[0].line == 3


# --- a list of ScoreInput checked as columns --------------------------------------------

# Mostly plain scores (the columns path), with every odd kind of value or fold a caller
# may hand the services now and then (names are text: typed).
PLAIN_VALUES = st.one_of(
    st.floats(min_value=0, max_value=1),
    st.integers(min_value=0, max_value=3),
    st.sampled_from([1.5, 100.0, 2**53, 2**53 + 1, -(2**53) - 1, 10**16 + 1]),
)
ODD_VALUES = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(10**400), max_value=10**400),
    st.booleans(),
    st.none(),
    st.text(max_size=3),
    st.floats(min_value=-2, max_value=2).map(np.float64),
)
SCORES = st.lists(
    st.builds(
        ScoreInput,
        dataset=st.one_of(
            st.sampled_from(["d1", "known"]), st.sampled_from(["d2", "", " ", "d\x00"])
        ),
        value=st.one_of(PLAIN_VALUES, PLAIN_VALUES, PLAIN_VALUES, ODD_VALUES),
        metric=st.one_of(st.none(), st.none(), st.sampled_from(["score", "wide", "other", ""])),
        fold=st.one_of(
            st.none(),
            st.integers(min_value=0, max_value=3),
            st.integers(min_value=-2, max_value=2**70),
            st.booleans(),
            st.just(1.0),
        ),
    ),
    max_size=8,
)
RANGES = {"score": (0.0, 1.0), "wide": (0.0, 1e16)}


def _problems(scores, *, ranking_only: bool, bounded: bool, columns: bool) -> list[str]:
    benchmark = Benchmark(slug="b", ranking_only=ranking_only, allow_new_datasets=not bounded)
    metrics = {
        name: Metric(name=name, is_primary=name == "score", min_value=low, max_value=high)
        for name, (low, high) in RANGES.items()
    }
    entry = [SubmissionInput(algorithm="a", scores=scores)]
    known = frozenset({"known", "d1"})
    plain_block = entries._plain_block if columns else (lambda scores: None)
    with mock.patch.object(entries, "_plain_block", plain_block):  # undone per example
        found = entries.entry_problems(
            benchmark, entry, metrics, metrics["score"], known, frozenset()
        )
    return [str(problem) for problem in found]


@settings(max_examples=400, deadline=None)
@given(scores=SCORES, ranking_only=st.booleans(), bounded=st.booleans())
def test_a_list_of_scores_has_the_problems_the_loop_finds(scores, ranking_only, bounded):
    """The columns check (``_plain_block``) only skips the loop where the loop finds
    nothing: with it turned off, every answer is the same, problems, lines and order."""
    options = {"ranking_only": ranking_only, "bounded": bounded}
    assert _problems(scores, **options, columns=True) == _problems(scores, **options, columns=False)


@pytest.mark.parametrize(
    ("value", "metric", "ranking_only", "expected"),
    [
        (10**16 + 1, "wide", False, "outside the valid range"),  # rounded as a float: in it
        (0.5, None, True, "a rank is 1 (best) or more"),
        (0, None, True, "a rank is 1 (best) or more"),
        (1.5, None, False, "outside the valid range"),
    ],
)
def test_the_columns_check_refuses_what_the_loop_refuses(value, metric, ranking_only, expected):
    scores = [ScoreInput(dataset="d1", value=value, metric=metric)]
    for columns in (True, False):
        found = _problems(scores, ranking_only=ranking_only, bounded=False, columns=columns)
        assert len(found) == 1 and expected in found[0], (columns, found)


def test_a_clean_list_of_scores_is_checked_without_a_call_per_score(monkeypatch):
    """1,000 plain scores: no per-score rule runs (counted, not timed)."""
    calls = []
    original = entries._ScoreRules.problems
    monkeypatch.setattr(entries._ScoreRules, "problems", lambda *a: calls.append(1) or original(*a))
    metric = Metric(name="score", is_primary=True, min_value=0.0, max_value=1.0)
    scores = [ScoreInput(dataset=f"d{i}", value=0.5, fold=f) for i in range(100) for f in range(10)]
    args = (Benchmark(slug="b"), [SubmissionInput(algorithm="a", scores=scores)])
    assert entries.entry_problems(*args, {"score": metric}, metric, frozenset(), frozenset()) == []
    assert calls == []
    scores[500] = ScoreInput(
        dataset="d50", value=float("nan"), fold=0
    )  # one bad score: the loop says which
    problems = entries.entry_problems(*args, {"score": metric}, metric, frozenset(), frozenset())
    assert problems[0].message.startswith("scores[501]: score must be a finite number")
    assert len(calls) == 1000
