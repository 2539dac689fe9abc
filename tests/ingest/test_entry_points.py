"""Every format imports its fixtures through the command, analyze, the API and the web
upload, with metadata and provenance kept and problems named by file and key."""

from __future__ import annotations

import json
import re
from io import StringIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from leaderboard.ingest.formats import IMPORT_FORMATS, files_from_path
from leaderboard.models import Algorithm, Benchmark, Metric, Submission
from tests.api.conftest import client_for
from tests.factories import make_user, stored_scores
from tests.ingest.helpers import FIXTURES, FOLDER, fixture_files, zipped

N_SCORES = {
    "mteb": 36,
    "lm-eval": 18,
    "hf-leaderboard": 12,
    "openml": 54,
    "helm": 18,
    "eee": 9,
    "pwc": 9,
    "lighteval": 21,
    "eval-results": 10,
}


@pytest.mark.django_db
@pytest.mark.parametrize("format", IMPORT_FORMATS)
def test_the_command_imports_each_format_into_a_new_benchmark(format):
    out = StringIO()
    call_command(
        "import_results",
        str(FIXTURES / FOLDER[format]),
        "--format",
        format,
        "--benchmark",
        f"imp-{format}",
        "--policy=moderated",
        "--direction=higher",  # for the metrics hf-leaderboard, HELM and PwC do not direct
        stdout=out,
        stderr=StringIO(),
    )
    benchmark = Benchmark.objects.get(slug=f"imp-{format}")
    assert len(stored_scores(submission__benchmark=benchmark)) == N_SCORES[format]
    assert f"imported {N_SCORES[format]} results ({format})" in out.getvalue()
    assert "ready" in out.getvalue()
    assert all(s.provenance["format"] == format for s in benchmark.submissions.all())


@pytest.mark.django_db
def test_the_command_takes_direction_range_and_metadata_from_the_files():
    call_command(
        "import_results",
        str(FIXTURES / "lm-eval"),
        "--format",
        "lm-eval",
        "--benchmark",
        "lm",
        stdout=StringIO(),
        stderr=StringIO(),
    )
    metrics = {m.name: m for m in Metric.objects.filter(benchmark__slug="lm")}
    assert metrics["perplexity"].direction == "lower" and metrics["acc"].direction == "higher"
    pythia = Algorithm.objects.get(benchmark__slug="lm", name="EleutherAI/pythia-1b")
    assert (pythia.parameters, pythia.revision) == (1011781632, "main")
    assert pythia.url == "https://huggingface.co/EleutherAI/pythia-1b"
    submission = pythia.submissions.get()
    assert submission.provenance["lm_eval_version"] == "0.4.2"

    call_command(
        "import_results",
        str(FIXTURES / "eee"),
        "--format",
        "eee",
        "--benchmark",
        "ev",
        stdout=StringIO(),
        stderr=StringIO(),
    )
    accuracy = Metric.objects.get(benchmark__slug="ev", name="accuracy")
    assert (accuracy.min_value, accuracy.max_value) == (0.0, 1.0)


@pytest.mark.django_db
def test_the_command_into_an_existing_benchmark_keeps_its_metrics_and_refuses_out_of_range():
    from leaderboard.services import benchmark_create

    benchmark_create(
        slug="ppl",
        title="Perplexity",
        metrics=[("perplexity", "lower", {"min_value": 1.0, "max_value": 30.0, "unit": ""})],
    )
    with pytest.raises(CommandError) as caught:
        call_command(
            "import_results",
            str(FIXTURES / "lm-eval"),
            "--format",
            "lm-eval",
            "--benchmark",
            "ppl",
            stdout=StringIO(),
            stderr=StringIO(),
        )
    message = str(caught.value)
    # 38.0 is pythia-160m's perplexity: refused at its file and key, not at a CSV line.
    assert re.search(
        r'EleutherAI__pythia-160m/results_[^:]+\.json: results\.lambada_openai\."perplexity,none"',
        message,
    )
    assert "outside the valid range of metric 'perplexity'" in message
    assert "line " not in message
    assert len(stored_scores(submission__benchmark__slug="ppl")) == 0


@pytest.mark.django_db
def test_the_command_names_the_file_and_key_of_a_bad_file(tmp_path):
    folder = tmp_path / "mteb"
    for path, data in fixture_files("mteb").items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_bytes(data)
    target = next(folder.rglob("SciFact.json"))
    document = json.loads(target.read_text())
    del document["scores"]["test"][0]["main_score"]
    target.write_text(json.dumps(document))
    with pytest.raises(
        CommandError,
        match=r"SciFact\.json: scores\.test\[0\]\.main_score: task 'SciFact' has no main score",
    ):
        call_command(
            "import_results",
            str(folder),
            "--format",
            "mteb",
            "--on-error=refuse",
            stdout=StringIO(),
        )
    assert not stored_scores()
    # By default nothing is imported, and the refusal says how to import the rest.
    with pytest.raises(CommandError, match="--on-error skip imports the rest") as refused:
        call_command("import_results", str(folder), "--format", "mteb", stdout=StringIO())
    assert "SciFact.json: scores.test[0].main_score" in str(refused.value)
    assert not stored_scores()
    # With skip the rest is imported and the result left out is listed where it was.
    err = StringIO()
    call_command(
        "import_results",
        str(folder),
        "--format",
        "mteb",
        "--on-error=skip",
        stdout=StringIO(),
        stderr=err,
    )
    assert len(stored_scores()) == N_SCORES["mteb"] - 1
    assert "left out 1 result or file" in err.getvalue()
    assert re.search(
        r"SciFact\.json: scores\.test\[0\]\.main_score: task 'SciFact' has no main score",
        err.getvalue(),
    )


@pytest.mark.django_db
def test_the_command_refuses_metrics_the_files_do_not_direct_by_name():
    with pytest.raises(CommandError) as caught:
        call_command(
            "import_results",
            str(FIXTURES / "hf-leaderboard"),
            "--format=hf-leaderboard",
            stdout=StringIO(),
            stderr=StringIO(),
        )
    assert "'acc_norm', 'acc', 'mc2'" in str(caught.value)
    assert "--direction" in str(caught.value)
    assert not Benchmark.objects.exists()


@pytest.mark.parametrize("format", IMPORT_FORMATS)
def test_analyze_reads_each_format(format):
    metric = {
        "lm-eval": "perplexity",
        "hf-leaderboard": "acc",
        "helm": "exact_match",
        "pwc": "Accuracy",
        "lighteval": "acc_norm",
    }.get(format)
    out = StringIO()
    args = [
        str(FIXTURES / FOLDER[format]),
        "--format",
        format,
        "--bootstrap",
        "0",
        "--json",
        "--quiet",
    ]
    if metric:
        args += ["--metric", metric]
    call_command("analyze", *args, stdout=out, stderr=StringIO())
    payload = json.loads(out.getvalue())
    assert len(payload["board"]["input"]["algorithms"]) == 3


def test_analyze_takes_the_direction_the_file_states():
    out = StringIO()
    call_command(
        "analyze",
        str(FIXTURES / "lm-eval"),
        "--format",
        "lm-eval",
        "--metric",
        "perplexity",
        "--bootstrap",
        "0",
        "--quiet",
        stdout=out,
    )
    assert "lower is better" in out.getvalue()
    with pytest.raises(CommandError, match="higher-is-better"):
        call_command(
            "analyze",
            str(FIXTURES / "lm-eval"),
            "--format",
            "lm-eval",
            "--metric",
            "acc",
            "--lower-is-better",
            "--bootstrap",
            "0",
            "--quiet",
            stdout=StringIO(),
        )


# --- the API and the web upload ----------------------------------------------------------


@pytest.fixture
def uploader(db):
    return make_user("uploader")


def _api_upload(user, slug: str, content: bytes, format: str, name: str = "results.zip", **fields):
    return client_for(user).post(
        f"/api/benchmarks/{slug}/submissions/upload/",
        {"file": SimpleUploadedFile(name, content), "format": format, **fields},
        format="multipart",
    )


def _empty_benchmark(slug: str, metrics) -> Benchmark:
    from leaderboard.services import benchmark_create

    return benchmark_create(slug=slug, title=slug, metrics=metrics)


METRICS = {
    "mteb": [("main_score", "higher")],
    "lm-eval": [("acc", "higher"), ("perplexity", "lower")],
    "hf-leaderboard": [("acc", "higher")],
    "openml": [("predictive_accuracy", "higher")],
    "helm": [("exact_match", "higher")],
    "eee": [("accuracy", "higher")],
    "pwc": [("Accuracy", "higher")],
    "lighteval": [("acc_norm", "higher")],
    "eval-results": [("score", "higher")],
}
API_SCORES = {
    "mteb": 36,
    "lm-eval": 12,
    "hf-leaderboard": 3,
    "openml": 54,
    "helm": 9,
    "eee": 9,
    "pwc": 3,
    "lighteval": 6,
    "eval-results": 10,
}


@pytest.mark.parametrize("format", IMPORT_FORMATS)
def test_the_api_takes_each_format_as_a_zipped_folder(uploader, format):
    _empty_benchmark(f"api-{format}", METRICS[format])
    response = _api_upload(uploader, f"api-{format}", zipped(fixture_files(format)), format)
    assert response.status_code == 201, response.json()
    assert response.json()["n_scores"] == API_SCORES[format]
    stored = Submission.objects.filter(benchmark__slug=f"api-{format}")
    assert {s.status for s in stored} == {"pending"}
    assert all(s.provenance["format"] == format for s in stored)


def test_the_api_names_the_file_and_key_of_an_out_of_range_value(uploader):
    _empty_benchmark("auc", [("acc_norm", "higher", {"min_value": 0.0, "max_value": 0.8})])
    response = _api_upload(
        uploader, "auc", zipped(fixture_files("hf-leaderboard")), "hf-leaderboard"
    )
    assert response.status_code == 400
    (problem,) = response.json()["problems"]
    assert problem["line"] is None
    assert problem["field"] == "mistralai__Mistral-7B-v0.1.json: results.hellaswag.acc_norm"
    assert problem["message"].startswith(
        "0.83 is outside the valid range of metric 'acc_norm', [0, 0.8]"
    )


def test_the_api_names_the_file_and_key_of_a_truncated_file(uploader):
    _empty_benchmark("eee-bad", [("accuracy", "higher")])
    files = fixture_files("eee")
    path = sorted(files)[1]
    files[path] = files[path][:100]
    response = _api_upload(uploader, "eee-bad", zipped(files), "eee")
    assert response.status_code == 400
    (problem,) = response.json()["problems"]
    assert problem["field"] == path and "truncated" in problem["message"]


def test_the_api_refuses_a_zip_that_leaves_its_folder(uploader):
    import io
    import zipfile

    _empty_benchmark("zip-bad", [("accuracy", "higher")])
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("../../escape.json", "{}")
    response = _api_upload(uploader, "zip-bad", buffer.getvalue(), "eee")
    assert response.status_code == 400
    assert "leaves the folder" in response.json()["problems"][0]["message"]


@pytest.mark.django_db
def test_the_web_upload_previews_and_stores_an_import(client):
    user = make_user("web")
    client.force_login(user)
    _empty_benchmark("web-openml", METRICS["openml"])
    preview = client.post(
        "/b/web-openml/submit/csv/",
        {
            "file": SimpleUploadedFile("runs.zip", zipped(fixture_files("openml"))),
            "format": "openml",
        },
    )
    body = preview.content.decode()
    assert preview.status_code == 200 and 'data-testid="upload-confirm"' in body, body[:3000]
    token = re.search(r'name="token" value="([0-9a-f]+)"', body).group(1)
    confirmed = client.post("/b/web-openml/submit/csv/confirm/", {"token": token})
    assert confirmed.status_code == 302
    stored = Submission.objects.filter(benchmark__slug="web-openml")
    assert stored.count() == 3
    maintainer = make_user("keeper")
    Benchmark.objects.get(slug="web-openml").maintainers.add(maintainer)
    client.force_login(maintainer)
    queue = client.get("/b/web-openml/maintain/moderation/").content.decode()
    assert queue.count('data-testid="moderation-provenance"') == 3 and "openml_runs" in queue
    assert len(stored_scores(submission__in=stored)) == 54
    assert all("openml_runs" in s.provenance for s in stored)


@pytest.mark.django_db
def test_one_file_of_another_tool_is_stored_at_confirm_and_by_the_background_job(client, uploader):
    # Its readers tell the file by its name (.json): the confirm step and the job had
    # "upload" for every file, so a file the preview read was refused at confirm.
    ((name, content),) = fixture_files("pwc").items()
    client.force_login(make_user("web"))
    _empty_benchmark("one-pwc", METRICS["pwc"])
    preview = client.post(
        "/b/one-pwc/submit/csv/",
        {"file": SimpleUploadedFile(name, content), "format": "pwc"},
    ).content.decode()
    token = re.search(r'name="token" value="([0-9a-f]+)"', preview).group(1)
    # Its "632M" parameter counts are no numbers: listed, and stored without once confirmed.
    assert (
        'data-testid="left-out-item"' in preview and "&#x27;632M&#x27; is not a number" in preview
    )
    confirmed = client.post(
        "/b/one-pwc/submit/csv/confirm/", {"token": token, "confirm_left_out": "1"}
    )
    assert confirmed.status_code == 302 and confirmed.url.startswith("/b/")
    assert len(stored_scores(submission__benchmark__slug="one-pwc")) == 3

    from leaderboard.models import UploadJob
    from leaderboard.upload_jobs import upload_job_run
    from leaderboard.uploads import upload_job_create

    board = _empty_benchmark("bg-pwc", METRICS["pwc"])
    job = upload_job_create(
        benchmark=board,
        submitter=uploader,
        content=content,
        filename=name,
        format="pwc",
        note="",
        idempotency_key="bg-pwc",
    )
    with pytest.MonkeyPatch.context() as patch:  # in this test's transaction, as above
        patch.setattr("leaderboard.upload_jobs.close_old_connections", lambda: None)
        done = upload_job_run(job_id=job.pk)
    assert done.status == UploadJob.Status.DONE, done.result
    assert done.result["n_scores"] == 3


@pytest.mark.django_db
def test_an_upload_job_of_a_format_no_reader_has_is_refused_before_it_is_stored():
    """A caller's mistake (an earlier test passed "csv") is an error at once, not a job
    that every worker run fails."""
    from leaderboard.models import UploadJob
    from leaderboard.uploads import upload_job_create

    with pytest.raises(ValueError, match="no reader for format 'csv'"):
        upload_job_create(
            benchmark=_empty_benchmark("bg-csv", METRICS["pwc"]),
            submitter=make_user("bg-csv"),
            content=b"dataset,algorithm,score\nd,a,0.5\n",
            format="csv",
            note="",
            idempotency_key="bg-csv",
        )
    assert not UploadJob.objects.exists()


@pytest.mark.django_db
def test_the_web_upload_shows_an_import_problem_at_its_file_and_key(client):
    user = make_user("web")
    client.force_login(user)
    _empty_benchmark("web-eee", [("accuracy", "higher", {"min_value": 0.0, "max_value": 0.5})])
    response = client.post(
        "/b/web-eee/submit/csv/",
        {"file": SimpleUploadedFile("eee.zip", zipped(fixture_files("eee"))), "format": "eee"},
    )
    body = response.content.decode()
    assert "evaluation_results[2].score_details.score" in body
    assert "outside the valid range" in body
    assert 'data-testid="upload-confirm"' not in body


@pytest.mark.django_db
def test_export_to_every_eval_ever_reads_back_the_same_results(tmp_path):
    from leaderboard.ingest.formats import files_from_path, read_imported

    call_command(
        "import_results",
        str(FIXTURES / "openml"),
        "--format",
        "openml",
        "--benchmark",
        "oml",
        "--policy=open",
        stdout=StringIO(),
        stderr=StringIO(),
    )
    call_command("export_eee", "oml", str(tmp_path), stdout=StringIO())
    exported = read_imported(files_from_path(tmp_path), format="eee")
    original = read_imported(fixture_files("openml"), format="openml")
    a, b = exported.parsed.to_table(), original.parsed.to_table()
    order = [b.algorithms.index(name) for name in a.algorithms]
    rows = [b.datasets.index(name) for name in a.datasets]
    assert a.fold_values.shape == b.fold_values.shape
    assert a.fold_values == pytest.approx(b.fold_values[rows][:, :, order])
    metric = exported.metric("predictive_accuracy")
    assert (metric.higher_is_better, metric.min_value, metric.max_value) == (True, 0.0, 1.0)
    assert (
        exported.algorithm("sklearn.linear_model.LogisticRegression").url
        == "https://www.openml.org/f/8317"
    )


def test_a_large_import_goes_through_the_background_job(uploader, monkeypatch):
    """The worker's path (run here in-process, inside the test's transaction, so the
    worker's connection hygiene is switched off): the same import, all or nothing."""
    from leaderboard.models import UploadJob

    monkeypatch.setattr("leaderboard.upload_jobs.close_old_connections", lambda: None)
    from leaderboard.upload_jobs import upload_job_run
    from leaderboard.uploads import upload_job_create

    board = _empty_benchmark("bg-mteb", METRICS["mteb"])
    job = upload_job_create(
        benchmark=board,
        submitter=uploader,
        content=zipped(fixture_files("mteb")),
        format="mteb",
        note="from the MTEB results repository",
        idempotency_key="bg-1",
    )
    done = upload_job_run(job_id=job.pk)
    assert done.status == UploadJob.Status.DONE, done.result
    assert done.result["n_scores"] == N_SCORES["mteb"]
    files = fixture_files("mteb")
    path = next(p for p in sorted(files) if p.endswith("SciFact.json"))
    files[path] = files[path][:50]
    failed_job = upload_job_create(
        benchmark=board,
        submitter=uploader,
        content=zipped(files),
        format="mteb",
        note="",
        idempotency_key="bg-2",
    )
    failed = upload_job_run(job_id=failed_job.pk)
    assert failed.status == UploadJob.Status.FAILED and failed.http_status == 400
    assert failed.result["problems"][0]["field"] == path


@pytest.mark.django_db
def test_the_command_names_an_lm_eval_model_and_takes_mteb_subsets():
    call_command(
        "import_results",
        str(FIXTURES / "lm-eval-0.3"),
        "--format=lm-eval",
        "--algorithm=pythia-1.4b",
        "--direction=higher",
        "--benchmark=lm03",
        stdout=StringIO(),
        stderr=StringIO(),
    )
    assert Algorithm.objects.get(benchmark__slug="lm03").name == "pythia-1.4b"
    call_command(
        "import_results",
        str(FIXTURES / "mteb-revisions"),
        "--format=mteb",
        "--subsets=datasets",
        "--benchmark=mteb-subsets",
        stdout=StringIO(),
        stderr=StringIO(),
    )
    datasets = Benchmark.objects.get(slug="mteb-subsets").datasets.values_list("name", flat=True)
    assert "STS22 (fr)" in datasets
    with pytest.raises(CommandError, match="takes no option subsets"):
        call_command(
            "import_results",
            str(FIXTURES / "eee"),
            "--format=eee",
            "--subsets=mean",
            stdout=StringIO(),
            stderr=StringIO(),
        )


@pytest.mark.django_db
def test_the_web_preview_refuses_or_lists_what_is_left_out_and_stores_the_rest_once_confirmed(
    client,
):
    client.force_login(make_user("web-partial"))
    _empty_benchmark("web-lite", [("Accuracy", "higher", {"min_value": 0.0, "max_value": 1.0})])
    files = {
        path: data
        for path, data in files_from_path(FIXTURES / "eee-helm-lite").items()
        if path.startswith(("openai/", "tiiuae/"))
    }
    # Refused by default, as the API and the commands do: every problem at its file and key.
    refused_file = client.post(
        "/b/web-lite/submit/csv/",
        {"file": SimpleUploadedFile("lite.zip", zipped(files)), "format": "eee"},
    ).content.decode()
    assert 'data-testid="file-errors"' in refused_file
    assert "tiiuae/falcon-7b/0a1b2c3d.json" in refused_file
    assert 'data-testid="upload-confirm"' not in refused_file
    response = client.post(
        "/b/web-lite/submit/csv/",
        {
            "file": SimpleUploadedFile("lite.zip", zipped(files)),
            "format": "eee",
            "on_error": "skip",
        },
    )
    body = response.content.decode()
    assert 'data-testid="left-out"' in body
    # Two documents: their four aggregates, and falcon's -1 placeholder on MedQA.
    assert body.count('data-testid="left-out-item"') == 5
    assert "tiiuae/falcon-7b/0a1b2c3d.json: evaluation_results[5].score_details.score" in body
    assert "Mean win rate (Accuracy)" in body
    token = re.search(r'name="token" value="([0-9a-f]+)"', body).group(1)
    refused = client.post("/b/web-lite/submit/csv/confirm/", {"token": token})
    assert refused.status_code == 200 and not stored_scores()
    client.post("/b/web-lite/submit/csv/confirm/", {"token": token, "confirm_left_out": "1"})
    # The Accuracy results: 5 of gpt-4, 4 of falcon (its MedQA left out).
    assert len(stored_scores(submission__benchmark__slug="web-lite")) == 9


def test_the_api_stores_what_it_can_read_with_on_error_skip(uploader):
    _empty_benchmark("api-lite", [("Accuracy", "higher", {"min_value": 0.0, "max_value": 1.0})])
    content = zipped(files_from_path(FIXTURES / "eee-helm-lite"))
    refused = _api_upload(uploader, "api-lite", content, "eee")
    assert refused.status_code == 400
    assert not stored_scores()
    response = _api_upload(uploader, "api-lite", content, "eee", on_error="skip")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["n_scores"] == 24  # 5 models x 5 scenarios, falcon's -1 left out
    assert body["n_left_out"] == 11  # that one, and the two aggregates of each document
    assert {
        "field": "tiiuae/falcon-7b/0a1b2c3d.json: evaluation_results[5].score_details.score",
        "message": "-1 is outside the valid range of metric 'Accuracy', [0, 1], the files state",
    } in body["left_out"]
