"""Defects readers and maintainers reported, each pinned by a test."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from estimation.core.analysis import AnalysisSettings, analyze
from estimation.core.table import ResultTable
from frontend.readers.presenters import leaderboard_board, leaderboard_rows, reader_notes
from frontend.templatetags.charts import parameter_count, timing_lines
from leaderboard.models import Submission
from leaderboard.services import ScoreInput, SubmissionInput, benchmark_create, submission_create
from tests.factories import make_user

DEMSAR_DATASETS = ("adult", "breast cancer", "iris", "wine", "liver")


@pytest.fixture
def open_board(db):
    board = benchmark_create(
        slug="demo", title="Demo", metrics=[("auc", "higher")], submission_policy="open"
    )
    submission_create(
        benchmark=board,
        submitter=None,
        entry=SubmissionInput(
            algorithm="C4.5",
            scores=[ScoreInput(d, 0.7 + i / 100) for i, d in enumerate(DEMSAR_DATASETS)],
        ),
        source=Submission.Source.IMPORT,
    )
    return board


def test_the_web_csv_upload_reports_a_typod_dataset_on_the_first_pass(client, open_board):
    client.force_login(make_user("newcomer"))
    content = "dataset,algorithm,score\n" + "".join(
        f"{'irsi' if d == 'iris' else d},mine,0.8\n" for d in DEMSAR_DATASETS
    )
    response = client.post(
        "/b/demo/submit/csv/", {"file": SimpleUploadedFile("r.csv", content.encode())}
    )
    body = response.content.decode()
    assert "did you mean &#x27;iris&#x27;?" in body
    assert 'data-testid="upload-confirm"' not in body


def test_history_timings_list_each_stage_and_no_empty_entry():
    timings = {
        "load_s": 0.5,
        "total": 1.5,
        "stages": {"ranking": 0.25, "bootstrap": 1.0},
        "flag": True,
        "advisor_s": 2.0,
    }
    # in a maintainer's words, never the internal keys (load_s)
    assert timing_lines(timings) == [
        ("reading the scores", 0.5),
        ("total", 1.5),
        ("analysis step: ranking", 0.25),
        ("analysis step: bootstrap", 1.0),
        ("advisor", 2.0),
    ]
    assert timing_lines(None) == []


def test_parameter_counts_read_as_model_cards_write_them():
    assert [parameter_count(n) for n in (512, 22_713_216, 1_011_781_632, 7_241_732_096)] == [
        "512",
        "22.7M",
        "1.01B",
        "7.24B",
    ]


def _board_with_letters(letters):
    rng = np.random.default_rng(0)
    table = ResultTable(
        datasets=tuple(f"d{i}" for i in range(6)),
        algorithms=("a", "b", "c"),
        values=rng.random((6, 3)),
    )
    board = analyze(table, AnalysisSettings(bootstrap=0)).payload.board
    nemenyi = dataclasses.replace(board.nemenyi, letters=letters)
    return dataclasses.replace(board, nemenyi=nemenyi)


def test_group_letters_too_long_to_read_are_hidden_with_a_note():
    long = "abcdefghijklmnopqrst"  # what 130 algorithms gave
    board = _board_with_letters((long, "a", "b"))
    rows, _ = leaderboard_rows(leaderboard_board(board), estimator=board.recommended)
    assert all(row.group == "" for row in rows)
    assert leaderboard_board(board).group_test is None
    assert any("20 letters" in note for note in reader_notes(board))
    short = _board_with_letters(("ab", "a", "b"))
    rows, _ = leaderboard_rows(leaderboard_board(short), estimator=short.recommended)
    assert {row.group for row in rows} == {
        "ab",
        "a",
        "b",
    }


def test_an_accuracy_in_percent_is_not_flagged_perfect_on_arrival(client, db):
    """33.4 on an empty moderated board used to read "perfect score on every dataset"."""
    maintainer = make_user("maintainer")
    board = benchmark_create(slug="pct", title="Pct", metrics=[("accuracy", "higher")])
    board.maintainers.add(maintainer)
    submission_create(
        benchmark=board,
        submitter=make_user("someone"),
        entry=SubmissionInput(
            algorithm="x", scores=[ScoreInput("d1", 33.4), ScoreInput("d2", 40.0)]
        ),
        new_datasets_confirmed=True,
    )
    client.force_login(maintainer)
    body = client.get("/b/pct/maintain/moderation/").content.decode()
    assert "33.4" in body
    assert re.search("perfect score", body) is None
