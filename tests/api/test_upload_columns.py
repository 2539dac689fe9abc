"""The API's ``columns`` on a CSV upload: the command's --columns syntax and parser,
refused with the exact fault, applied by the upload service (in the background too)."""

import pytest

from leaderboard.models import Submission
from tests.api.background_helpers import finished
from tests.api.conftest import client_for
from tests.api.test_upload import upload
from tests.factories import stored_scores
from tests.leaderboard.test_upload_columns import AMLB

MAPPING = "dataset=task,algorithm=framework,score=result"


@pytest.mark.django_db
def test_columns_map_the_file_s_own_names(researcher, benchmark):
    api = client_for(researcher)
    assert upload(api, AMLB).status_code == 400  # as it is: an unrecognised header
    response = upload(api, AMLB, columns=MAPPING)
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["n_scores"] == 3
    assert body["notes"] == ["columns left out (not mapped): fold_time"]
    assert sorted((r.dataset, r.algorithm, r.value) for r in stored_scores()) == [
        ("adult", "lightgbm", 0.91),
        ("adult", "rf", 0.88),
        ("credit", "lightgbm", 0.77),
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("columns", "message"),
    [
        (
            "dataset=task,team=framework",
            "columns: 'team' is no column role; the roles are dataset, algorithm, score, "
            "fold, metric, rank",
        ),
        (
            "dataset=task,algorithm=framework,algorithm=result",
            "columns: algorithm is given twice ('framework' and 'result'); give each role "
            "one column",
        ),
        (
            "dataset=task,algorithm=task,score=result",
            "columns: the column 'task' is given to both dataset and algorithm; give each "
            "role its own column",
        ),
    ],
)
def test_a_faulty_mapping_is_refused_before_the_file_is_read(
    researcher, benchmark, columns, message
):
    response = upload(client_for(researcher), AMLB, columns=columns)
    assert response.status_code == 400
    assert response.json()["problems"] == [{"line": None, "field": "columns", "message": message}]
    assert not Submission.objects.exists()


@pytest.mark.django_db
def test_a_mapped_column_the_file_lacks_is_named_at_its_header(researcher, benchmark):
    response = upload(
        client_for(researcher), AMLB, columns="dataset=task,algorithm=model,score=result"
    )
    assert response.status_code == 400
    assert response.json()["problems"] == [
        {
            "line": 1,
            "field": None,
            "message": "columns: the file has no column 'model' (for algorithm); its columns "
            "are task, framework, fold_time, result",
        }
    ]
    assert not Submission.objects.exists()


@pytest.mark.django_db
def test_a_mapped_file_s_problems_name_its_own_columns(researcher, benchmark):
    api = client_for(researcher)
    response = upload(api, AMLB.replace(b"0.77", b"oops"), columns=MAPPING)
    assert response.status_code == 400
    assert response.json()["problems"] == [
        {"line": 5, "field": "result (the score)", "message": "'oops' is not a number"}
    ]
    skipped = upload(api, AMLB.replace(b"0.77", b"oops"), columns=MAPPING, on_error="skip")
    assert skipped.status_code == 201, skipped.json()
    assert skipped.json()["left_out"] == [
        {"field": 'line 5, column "result (the score)"', "message": "'oops' is not a number"}
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "choice", [{"columns": MAPPING}, {"models_as_rows": "true"}, {"nan": "missing"}]
)
def test_a_csv_s_reading_choices_are_refused_for_another_tool_s_files(
    researcher, benchmark, choice
):
    response = upload(client_for(researcher), b"{}", format="mteb", **choice)
    assert response.status_code == 400
    (name,) = choice
    assert response.json()["problems"] == [
        {
            "line": None,
            "field": name,
            "message": f"{name}: only for a CSV or a workbook, not another tool's file",
        }
    ]


@pytest.mark.django_db
def test_the_api_reads_models_as_rows_nan_cells_and_a_pandas_index_as_the_command_does(
    researcher, benchmark
):
    """The CLI's --models-as-rows and --nan missing, and its pandas index column, by the
    same rule (sheets.needs_tidying) on the API."""
    api = client_for(researcher)
    by_model = b"model,adult,credit\nlightgbm,0.91,0.77\nrf,0.88,NaN\n"
    assert upload(api, by_model, models_as_rows="true").status_code == 400  # NaN refused
    response = upload(api, by_model, models_as_rows="true", nan="missing")
    assert response.status_code == 201, response.json()
    assert sorted((r.dataset, r.algorithm, r.value) for r in stored_scores()) == [
        ("adult", "lightgbm", 0.91),
        ("adult", "rf", 0.88),
        ("credit", "lightgbm", 0.77),
    ]
    # pandas' to_csv with its index: the unnamed first column is left out, and said so
    indexed = b",dataset,algorithm,score\n0,d1,alg-x,0.5\n1,d2,alg-x,0.6\n"
    response = upload(api, indexed)
    assert response.status_code == 201, response.json()
    assert response.json()["notes"] == [
        "the first column (a pandas index: 0, 1, 2, ...) was left out"
    ]


@pytest.mark.django_db(transaction=True)
def test_a_large_file_carries_its_mapping_to_the_worker(
    celery_worker, settings, researcher, benchmark
):
    settings.PODIUM_BACKGROUND_UPLOAD_BYTES = 10
    api = client_for(researcher)
    response = upload(api, AMLB, columns=MAPPING)
    assert response.status_code == 202, response.json()
    body = finished(api, response["Location"])
    assert body["status"] == "done" and body["http_status"] == 201, body
    assert body["result"]["n_scores"] == 3
    assert body["result"]["notes"] == ["columns left out (not mapped): fold_time"]
    assert len(stored_scores()) == 3


@pytest.mark.django_db
def test_an_excel_workbook_uploads_as_a_csv_does(researcher, benchmark):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.api.test_upload import UPLOAD
    from tests.leaderboard.test_upload_tidied import workbook

    content = workbook([["task", "framework", "result"], ["adult", "lightgbm", 0.91]])
    data = {
        "columns": MAPPING,
        "file": SimpleUploadedFile("amlb.xlsx", content, content_type="application/zip"),
    }
    response = client_for(researcher).post(UPLOAD, data, format="multipart")
    assert response.status_code == 201, response.json()
    assert [(r.dataset, r.algorithm, r.value) for r in stored_scores()] == [
        ("adult", "lightgbm", 0.91)
    ]
