"""What ``import_benchmark`` reads with ``--nan missing``, ``--models-as-rows`` and an
``.xlsx`` file, the upload service reads with ``nan_missing``, ``models_as_rows`` and a
workbook: the same reading (tidy_results_table), so the web form and the API take the
files the command takes, problems at the file's own lines, and a background job keeps
the choices."""

from __future__ import annotations

import io
import time

import pytest

from leaderboard.ingest.results_csv import UNRECOGNISED_COLUMNS, ResultsCsvError
from leaderboard.ingest.results_csv.sheets import header_names
from leaderboard.models import UploadJob
from leaderboard.services.uploads import UploadInput, submissions_upload
from tests.factories import make_benchmark, make_user, stored_scores
from tests.leaderboard.test_upload_columns import MAPPING

pytestmark = pytest.mark.django_db

# AMLB with a failed run: its result is NaN (pandas), another's is empty.
AMLB_NAN = (
    b"task,framework,fold_time,result\n"
    b"adult,lightgbm,12.5,0.91\n"
    b"adult,rf,3.1,NaN\n"
    b"credit,lightgbm,9.0,0.77\n"
    b"credit,rf,9.0,\n"
)
# One row per model, one column per dataset; rf has no result on credit.
BY_MODEL = b"model,adult,credit\nlightgbm,0.91,0.77\nrf,0.88,NaN\n"


def workbook(rows: list[list[object]]) -> bytes:
    from openpyxl import Workbook

    book = Workbook()
    for row in rows:
        book.active.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def _scores() -> list[tuple[str, str, float]]:
    return sorted((r.dataset, r.algorithm, r.value) for r in stored_scores())


def test_nan_scores_are_refused_unless_read_as_missing():
    board, user = make_benchmark(), make_user()
    with pytest.raises(ResultsCsvError) as refused:
        submissions_upload(
            benchmark=board, submitter=user, upload=UploadInput(AMLB_NAN, columns=MAPPING)
        )
    assert (3, "result (the score)") in [(e.line, e.column) for e in refused.value.errors]
    outcome = submissions_upload(
        benchmark=board,
        submitter=user,
        upload=UploadInput(AMLB_NAN, columns=MAPPING, nan_missing=True),
    )
    assert _scores() == [("adult", "lightgbm", 0.91), ("credit", "lightgbm", 0.77)]
    assert outcome.read is not None
    assert outcome.read.notes == (
        "columns left out (not mapped): fold_time",
        "2 rows without a score (empty or NaN) left out: lines 3, 5",
    )
    assert outcome.read.parsed.lines.tolist() == [2, 4]  # the file's own lines


def test_a_table_of_models_by_datasets_reads_as_one_row_per_model():
    board, user = make_benchmark(), make_user()
    with pytest.raises(ResultsCsvError) as refused:  # as it is: an unknown header
        submissions_upload(benchmark=board, submitter=user, upload=UploadInput(BY_MODEL))
    assert refused.value.errors[0].kind == UNRECOGNISED_COLUMNS
    with pytest.raises(ResultsCsvError) as nan:  # its NaN refused, at the model's line
        submissions_upload(
            benchmark=board, submitter=user, upload=UploadInput(BY_MODEL, models_as_rows=True)
        )
    assert [(e.line, e.message) for e in nan.value.errors] == [(3, "'NaN' is not a finite number")]
    outcome = submissions_upload(
        benchmark=board,
        submitter=user,
        upload=UploadInput(BY_MODEL, models_as_rows=True, nan_missing=True),
    )
    assert _scores() == [
        ("adult", "lightgbm", 0.91),
        ("adult", "rf", 0.88),
        ("credit", "lightgbm", 0.77),
    ]
    assert outcome.read is not None and outcome.read.notes == (
        "1 NaN cells read as missing results",
    )


def test_a_workbook_reads_as_its_first_sheet_and_its_header_offers_a_mapping():
    content = workbook(
        [["task", "framework", "result"], ["adult", "lightgbm", 0.91], ["credit", "rf", "oops"]]
    )
    assert header_names(content, filename="amlb.xlsx") == ("task", "framework", "result")
    assert header_names(content, filename="amlb.csv") == ()  # not UTF-8 text
    board, user = make_benchmark(), make_user()
    with pytest.raises(ResultsCsvError) as refused:
        submissions_upload(
            benchmark=board,
            submitter=user,
            upload=UploadInput(content, filename="amlb.xlsx", columns=MAPPING),
        )
    # The sheet's own row and column.
    assert [(e.line, e.column, e.message) for e in refused.value.errors] == [
        (3, "result (the score)", "'oops' is not a number")
    ]
    fine = workbook([["dataset", "algorithm", "score"], ["adult", "lightgbm", 0.91]])
    submissions_upload(
        benchmark=board, submitter=user, upload=UploadInput(fine, filename="results.xlsx")
    )
    assert _scores() == [("adult", "lightgbm", 0.91)]


@pytest.mark.django_db(transaction=True)
def test_a_background_job_keeps_the_choices(celery_worker, settings):
    settings.PODIUM_BACKGROUND_UPLOAD_BYTES = 10  # this small file counts as large
    outcome = submissions_upload(
        benchmark=make_benchmark(),
        submitter=make_user(),
        upload=UploadInput(BY_MODEL, models_as_rows=True, nan_missing=True),
    )
    assert outcome.job is not None
    job = UploadJob.objects.get(pk=outcome.job.pk)
    assert (job.models_as_rows, job.nan_missing) == (True, True)
    deadline = time.monotonic() + 300  # a wait at load 20, not a speed check
    while job.status not in (UploadJob.Status.DONE, UploadJob.Status.FAILED):
        assert time.monotonic() < deadline, job.status
        time.sleep(0.2)
        job.refresh_from_db()
    assert job.status == UploadJob.Status.DONE, job.status
    assert _scores() == [
        ("adult", "lightgbm", 0.91),
        ("adult", "rf", 0.88),
        ("credit", "lightgbm", 0.77),
    ]


def test_a_mapping_and_one_row_per_model_are_refused_together_whatever_the_entry_point():
    """The web form refused the pair; the API and the command read the datasets as
    algorithms (review). The rule is the reader's, so every entry point has it."""
    board, user = make_benchmark(), make_user()
    with pytest.raises(ResultsCsvError) as refused:
        submissions_upload(
            benchmark=board,
            submitter=user,
            upload=UploadInput(AMLB_NAN, columns=MAPPING, models_as_rows=True),
        )
    assert "one row per model" in str(refused.value)
    assert stored_scores() == []
