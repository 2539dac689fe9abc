"""The web upload's mapping step (a CSV whose columns the reader does not know: choose
which holds the dataset, algorithm and score, then preview again) and its choice for
results that cannot be read (refuse by default, or leave out, list and confirm)."""

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from leaderboard.models import Submission
from tests.factories import make_benchmark, make_user, stored_scores
from tests.leaderboard.test_upload_columns import AMLB

pytestmark = pytest.mark.django_db

MAP = "/b/study/submit/csv/map/"


@pytest.fixture
def researcher(client):
    user = make_user("researcher")
    client.force_login(user)
    make_benchmark("study")
    return user


def _upload(client, content: bytes, slug: str = "study", **extra):
    return client.post(
        f"/b/{slug}/submit/csv/",
        {"file": SimpleUploadedFile("results.csv", content, content_type="text/csv"), **extra},
    )


def _token(body: str) -> str:
    return re.search(r'name="token" value="([0-9a-f]+)"', body).group(1)


def _options(body: str, name: str) -> list[str]:
    select = re.search(rf'<select name="{name}"[^>]*>(.*?)</select>', body, re.S).group(1)
    return re.findall(r'<option value="([^"]*)"', select)


def test_a_file_whose_columns_are_not_known_is_offered_a_mapping(client, researcher):
    body = _upload(client, AMLB, note="amlb 2023").content.decode()
    assert 'data-testid="file-errors"' in body and "unrecognised header" in body
    assert 'data-testid="mapping-form"' in body
    for role in ("dataset", "algorithm", "score", "fold", "metric"):
        assert _options(body, role) == ["", "task", "framework", "fold_time", "result"]
    # Each select has its own label, linked by id.
    assert '<label for="id_map_dataset">Dataset column' in body
    assert '<label for="id_map_score">Score column' in body
    assert '<label for="id_map_fold">Fold column (optional)' in body


def test_no_mapping_for_a_known_header_or_another_tool_s_files(client, researcher):
    bad_value = b"dataset,algorithm,score\nd1,a,oops\n"
    assert 'data-testid="mapping-form"' not in _upload(client, bad_value).content.decode()
    body = _upload(client, b"{}", format="mteb").content.decode()
    assert 'data-testid="mapping-form"' not in body


def test_the_mapped_file_previews_and_is_stored_as_mapped(client, researcher):
    token = _token(_upload(client, AMLB, note="amlb 2023").content.decode())
    mapping = {"token": token, "dataset": "task", "algorithm": "framework", "score": "result"}
    preview = client.post(MAP, mapping).content.decode()
    assert 'data-testid="upload-confirm"' in preview, preview[:3000]
    assert 'data-testid="upload-columns">dataset: task; algorithm: framework; score: result' in (
        preview
    )
    assert "columns left out (not mapped): fold_time" in preview
    assert 'data-testid="upload-rows">3<' in preview
    assert not Submission.objects.exists()  # a preview stores nothing

    confirmed = client.post("/b/study/submit/csv/confirm/", {"token": _token(preview)})
    assert confirmed.status_code == 302
    assert sorted((r.dataset, r.algorithm, r.value) for r in stored_scores()) == [
        ("adult", "lightgbm", 0.91),
        ("adult", "rf", 0.88),
        ("credit", "lightgbm", 0.77),
    ]
    assert {s.note for s in Submission.objects.all()} == {"amlb 2023"}


def test_a_faulty_mapping_is_named_and_stores_nothing(client, researcher):
    token = _token(_upload(client, AMLB).content.decode())
    twice = {"token": token, "dataset": "task", "algorithm": "task", "score": "result"}
    body = client.post(MAP, twice).content.decode()
    assert (
        "columns: the column &#x27;task&#x27; is given to both dataset and algorithm; give "
        "each role its own column" in body
    )
    assert 'data-testid="mapping-form"' in body
    missing = client.post(MAP, {"token": token, "dataset": "task"}).content.decode()
    assert 'id="id_map_algorithm_error"' in missing
    assert "Choose the column that holds the algorithm names." in missing
    assert "Choose the column that holds the scores." in missing
    # The value column holds text: the file's problem at its line, the choice kept.
    text = {"token": token, "dataset": "task", "algorithm": "result", "score": "framework"}
    refused = client.post(MAP, text).content.decode()
    assert 'data-line="2"' in refused and "&#x27;lightgbm&#x27; is not a number" in refused
    assert '<option value="framework" selected>' in refused
    assert not Submission.objects.exists()


def test_a_mapping_needs_the_pending_file_of_this_session(client, researcher):
    response = client.post(MAP, {"token": "0" * 32, "dataset": "task"})
    assert response.status_code == 302 and response.url == "/b/study/submit/csv/"


def test_a_ranking_benchmark_maps_the_rank_column(client, researcher):
    make_benchmark("ranks", direction="lower", ranking_only=True)
    content = b"task,model,place\nd1,a,1\nd1,b,2\n"
    body = _upload(client, content, slug="ranks").content.decode()
    assert '<label for="id_map_score">Rank column' in body
    mapping = {"token": _token(body), "dataset": "task", "algorithm": "model", "score": "place"}
    preview = client.post("/b/ranks/submit/csv/map/", mapping).content.decode()
    assert 'data-testid="upload-format">ranking (ranks)' in preview, preview[:3000]


def test_a_csv_s_bad_rows_are_refused_unless_left_out_by_choice(client, researcher):
    content = b"dataset,algorithm,score\nd1,a,0.5\nd2,a,oops\nd1,b,0.4\n"
    refused = _upload(client, content).content.decode()
    assert 'data-testid="file-errors"' in refused and 'data-testid="upload-confirm"' not in refused
    preview = _upload(client, content, on_error="skip").content.decode()
    assert preview.count('data-testid="left-out-item"') == 1
    assert "line 3, column &quot;score&quot;" in preview
    token = _token(preview)
    held = client.post("/b/study/submit/csv/confirm/", {"token": token})
    assert held.status_code == 200 and not stored_scores()
    client.post("/b/study/submit/csv/confirm/", {"token": token, "confirm_left_out": "1"})
    assert len(stored_scores()) == 2


def test_a_mapping_is_offered_when_the_chosen_layout_lacks_its_columns(client, researcher):
    body = _upload(client, AMLB, format="long").content.decode()
    assert "missing required column" in body and 'data-testid="mapping-form"' in body
    mapping = {
        "token": _token(body),
        "dataset": "task",
        "algorithm": "framework",
        "score": "result",
    }
    preview = client.post(MAP, mapping).content.decode()
    assert 'data-testid="upload-format">long (scores)' in preview


def test_a_mapped_file_s_problems_name_its_own_columns(client, researcher):
    bad = AMLB.replace(b"0.77", b"oops")
    token = _token(_upload(client, bad).content.decode())
    mapping = {"token": token, "dataset": "task", "algorithm": "framework", "score": "result"}
    refused = client.post(MAP, mapping).content.decode()
    # The problems table's column and the summary's text: the file's name, then the role.
    assert "<td>result (the score)</td>" in refused
    assert "line 5, column &quot;result (the score)&quot;: &#x27;oops&#x27; is not a number" in (
        refused
    )
    assert "column &quot;score&quot;" not in refused and "<td>score</td>" not in refused

    token = _token(_upload(client, bad, on_error="skip").content.decode())
    preview = client.post(MAP, {**mapping, "token": token}).content.decode()
    assert preview.count('data-testid="left-out-item"') == 1
    assert "line 5, column &quot;result (the score)&quot;" in preview


# Another tool's table: one row per model, a NaN where a run failed.
BY_MODEL = b"model,adult,credit\nlightgbm,0.91,0.77\nrf,0.88,NaN\n"


def test_the_mapping_step_reads_models_as_rows_and_nan_as_missing(client, researcher):
    body = _upload(client, BY_MODEL).content.decode()
    assert '<label for="id_map_models_as_rows">One row per model' in body
    assert '<label for="id_map_nan_missing">Read a NaN score' in body
    token = _token(body)
    as_rows = {"token": token, "models_as_rows": "on"}
    refused = client.post(MAP, as_rows).content.decode()  # the NaN, at rf's line
    assert 'data-line="3"' in refused and "&#x27;NaN&#x27; is not a finite number" in refused
    assert 'id="id_map_models_as_rows" checked' in refused  # the choice kept
    preview = client.post(MAP, {**as_rows, "nan_missing": "on"}).content.decode()
    assert 'data-testid="upload-models-as-rows"' in preview
    assert 'data-testid="upload-nan-missing"' in preview
    assert "1 NaN cells read as missing results" in preview
    assert 'data-testid="upload-rows">3<' in preview
    client.post("/b/study/submit/csv/confirm/", {"token": _token(preview)})
    assert sorted((r.dataset, r.algorithm, r.value) for r in stored_scores()) == [
        ("adult", "lightgbm", 0.91),
        ("adult", "rf", 0.88),
        ("credit", "lightgbm", 0.77),
    ]


def test_models_as_rows_with_columns_chosen_says_which(client, researcher):
    token = _token(_upload(client, BY_MODEL).content.decode())
    both = {"token": token, "models_as_rows": "on", "dataset": "model"}
    body = client.post(MAP, both).content.decode()
    assert 'data-testid="mapping-errors"' in body
    assert "leave the columns unchosen (Dataset column chosen)" in body
    assert not Submission.objects.exists()


def test_nan_missing_applies_to_mapped_columns(client, researcher):
    content = AMLB.replace(b"0.88", b"NaN")
    token = _token(_upload(client, content).content.decode())
    mapping = {"token": token, "dataset": "task", "algorithm": "framework", "score": "result"}
    refused = client.post(MAP, mapping).content.decode()
    assert "&#x27;NaN&#x27; is not a finite number" in refused
    preview = client.post(MAP, {**mapping, "nan_missing": "on"}).content.decode()
    assert "1 rows without a score (empty or NaN) left out: lines 3" in preview
    assert 'data-testid="upload-rows">2<' in preview


def test_an_excel_workbook_is_uploaded_and_mapped(client, researcher):
    from tests.leaderboard.test_upload_tidied import workbook

    content = workbook([["task", "framework", "result"], ["adult", "lightgbm", 0.91]])
    response = client.post(
        "/b/study/submit/csv/",
        {"file": SimpleUploadedFile("amlb.xlsx", content, content_type="application/zip")},
    )
    body = response.content.decode()
    assert _options(body, "dataset") == ["", "task", "framework", "result"]
    mapping = {
        "token": _token(body),
        "dataset": "task",
        "algorithm": "framework",
        "score": "result",
    }
    preview = client.post(MAP, mapping).content.decode()
    assert 'data-testid="upload-rows">1<' in preview, preview[:3000]
    client.post("/b/study/submit/csv/confirm/", {"token": _token(preview)})
    assert [(r.dataset, r.algorithm, r.value) for r in stored_scores()] == [
        ("adult", "lightgbm", 0.91)
    ]
