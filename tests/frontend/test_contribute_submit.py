"""Submitting results by web form and by CSV upload (preview, then confirm)."""

import html
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from leaderboard.models import Benchmark, Submission
from leaderboard.services import ScoreInput, SubmissionInput, submission_create
from tests import csv_messages
from tests.factories import make_benchmark, make_user, stored_scores

pytestmark = pytest.mark.django_db


@pytest.fixture
def benchmark():
    """A moderated benchmark with datasets d1, d2 (from a maintainer's import)."""
    benchmark = make_benchmark("study")
    submission_create(
        benchmark=benchmark,
        submitter=None,
        entry=SubmissionInput(
            algorithm="baseline",
            scores=[ScoreInput(dataset="d1", value=0.5), ScoreInput(dataset="d2", value=0.6)],
        ),
        source=Submission.Source.IMPORT,
    )
    return benchmark


def _key(body: str) -> str:
    return re.search(r'name="idempotency_key" value="([^"]+)"', body).group(1)


def _grid_post(key: str, **overrides) -> dict:
    data = {
        "idempotency_key": key,
        "algorithm": "forest",
        "algorithm_url": "https://example.org/forest",
        "algorithm_version": "1.2",
        "note": "default settings",
        "metric": "score",
        "folds": "1",
        "grid-rows": "2",
        "grid-folds": "1",
        "grid-0-dataset": "d1",
        "grid-0-0": "0.71",
        "grid-1-dataset": "d2",
        "grid-1-0": "0.64",
        "action": "submit",
    }
    data.update(overrides)
    return data


def test_submit_page_needs_login_and_a_visible_benchmark(client, benchmark):
    assert client.get("/b/study/submit/").status_code == 302
    make_benchmark("secret", visibility=Benchmark.Visibility.PRIVATE)
    client.force_login(make_user("someone"))
    assert client.get("/b/secret/submit/").status_code == 404
    make_benchmark("shut", submission_policy=Benchmark.SubmissionPolicy.CLOSED)
    closed = client.get("/b/shut/submit/")
    assert closed.status_code == 403 and "closed to submissions" in closed.content.decode()


def test_web_form_happy_path(client, benchmark, researcher):
    page = client.get("/b/study/submit/")
    body = page.content.decode()
    assert page.status_code == 200
    assert 'name="grid-0-dataset" value="d1"' in body and 'name="grid-1-dataset" value="d2"' in body
    response = client.post("/b/study/submit/", _grid_post(_key(body)))
    assert response.status_code == 302 and response.url == "/b/study/"
    board = client.get(response.url).content.decode()
    assert "Stored forest; waiting for a maintainer&#x27;s review" in board
    submission = Submission.objects.get(submitter=researcher)
    assert submission.source == Submission.Source.FORM
    assert submission.status == Submission.Status.PENDING
    assert submission.algorithm.name == "forest" and submission.algorithm_version == "1.2"
    assert submission.algorithm.version == ""  # public once accepted
    assert submission.note == "default settings"
    assert sorted((r.dataset, r.value, r.fold) for r in stored_scores(submission=submission)) == [
        ("d1", 0.71, None),
        ("d2", 0.64, None),
    ]
    # A second post of the same page (double click, back + resubmit) stores nothing new.
    again = client.post("/b/study/submit/", _grid_post(_key(body)))
    assert again.status_code == 302
    assert Submission.objects.filter(submitter=researcher).count() == 1


def test_web_form_error_keeps_every_typed_value(client, benchmark, researcher):
    key = _key(client.get("/b/study/submit/").content.decode())
    data = _grid_post(
        key,
        algorithm_url="not a url",
        folds="2",
        **{
            "grid-rows": "3",
            "grid-folds": "2",
            "grid-0-0": "0.71",
            "grid-0-1": "zero point seven",
            "grid-1-0": "0.64",
            "grid-1-1": "",
            "grid-2-dataset": "brand-new",
            "grid-2-new": "1",
            "grid-2-0": "0.81",
            "grid-2-1": "0.83",
        },
    )
    response = client.post("/b/study/submit/", data)
    body = response.content.decode()
    assert response.status_code == 200
    assert Submission.objects.filter(submitter=researcher).count() == 0
    # Every value typed is back on the page.
    for name, value in data.items():
        if name.startswith("grid-") and name.count("-") == 2 and value:
            assert f'name="{name}" value="{value}"' in body, name
    assert 'value="forest"' in body and 'value="not a url"' in body and 'value="1.2"' in body
    assert "default settings" in body and 'value="brand-new"' in body
    # Errors in the summary link to their fields and cells, and sit next to them.
    assert 'data-testid="error-summary"' in body
    assert 'href="#id_algorithm_url"' in body
    assert 'href="#grid-0-1"' in body and "“zero point seven” is not a finite number." in body
    assert 'id="grid-0-1-error"' in body
    assert "Give all 2 folds of this dataset, or none (1 given)." in body
    assert 'aria-invalid="true"' in body


def test_web_form_service_problems_land_on_their_cells(client, researcher):
    make_benchmark("ranked", ranking_only=True, allow_new_datasets=False)
    key = _key(client.get("/b/ranked/submit/").content.decode())
    response = client.post(
        "/b/ranked/submit/",
        _grid_post(
            key,
            **{
                "grid-rows": "1",
                "grid-0-dataset": "unlisted",
                "grid-0-new": "1",
                "grid-0-0": "0.5",
            },
        ),
    )
    body = response.content.decode()
    assert response.status_code == 200
    assert "a rank is 1 (best) or more" in body and 'id="grid-0-0-error"' in body
    assert "this benchmark only takes listed datasets" in body
    assert Submission.objects.count() == 0


def test_web_form_buttons_add_rows_and_fold_columns_without_losing_values(
    client, benchmark, researcher
):
    key = _key(client.get("/b/study/submit/").content.decode())
    added = client.post(
        "/b/study/submit/", _grid_post(key, action="add_row", algorithm="typed-name")
    ).content.decode()
    assert 'name="grid-2-dataset"' in added and 'name="grid-rows" value="3"' in added
    assert 'name="grid-0-0" value="0.71"' in added and 'value="typed-name"' in added
    assert 'data-testid="error-summary"' not in added

    resized = client.post(
        "/b/study/submit/", _grid_post(key, action="resize", folds="3")
    ).content.decode()
    assert 'name="grid-folds" value="3"' in resized and 'name="grid-0-2"' in resized
    assert 'name="grid-0-0" value="0.71"' in resized
    assert Submission.objects.filter(submitter=researcher).count() == 0


GOOD_CSV = b"dataset,algorithm,score\nd1,alpha,0.9\nd2,alpha,0.8\nd1,beta,0.7\nd2,beta,0.75\n"
BAD_CSV = b"dataset,algorithm,score\nd1,alpha,0.9\nd2,alpha,high\nd1,beta,nan\n"


def _upload(client, content: bytes, name: str = "results.csv", **extra):
    return client.post(
        "/b/study/submit/csv/",
        {"file": SimpleUploadedFile(name, content, content_type="text/csv"), **extra},
    )


def test_csv_with_errors_shows_them_by_row_and_stores_nothing(client, benchmark, researcher):
    before = len(stored_scores())
    response = _upload(client, BAD_CSV)
    body = response.content.decode()
    assert response.status_code == 200
    assert 'data-testid="file-errors"' in body
    assert 'data-line="3"' in body and 'data-line="4"' in body
    assert "d2,alpha,high" in body and "d1,beta,nan" in body  # the offending rows
    assert "score" in body  # the column
    assert len(stored_scores()) == before
    assert Submission.objects.filter(submitter=researcher).count() == 0
    assert 'data-testid="upload-confirm"' not in body


def test_csv_preview_then_confirm_stores_once(client, benchmark, researcher):
    preview = _upload(client, GOOD_CSV, note="seeded runs")
    body = preview.content.decode()
    assert preview.status_code == 200
    assert 'data-testid="upload-format">long (scores)' in body
    assert 'data-testid="upload-rows">4<' in body
    assert 'data-testid="upload-algorithms">2<' in body
    assert 'data-testid="upload-datasets">2<' in body
    assert "alpha" in body and "beta" in body
    assert Submission.objects.filter(submitter=researcher).count() == 0  # nothing yet
    token = re.search(r'name="token" value="([0-9a-f]+)"', body).group(1)

    confirmed = client.post("/b/study/submit/csv/confirm/", {"token": token})
    assert confirmed.status_code == 302 and confirmed.url == "/b/study/"
    board = client.get(confirmed.url).content.decode()
    assert "Stored alpha, beta; waiting for a maintainer&#x27;s review" in board
    stored = Submission.objects.filter(submitter=researcher)
    assert stored.count() == 2
    assert {s.source for s in stored} == {Submission.Source.CSV}
    assert {s.note for s in stored} == {"seeded runs"}
    assert len(stored_scores(submission__in=stored)) == 4

    twice = client.post("/b/study/submit/csv/confirm/", {"token": token})
    assert twice.status_code == 302
    assert Submission.objects.filter(submitter=researcher).count() == 2


def test_csv_double_confirm_from_a_stale_session_stores_once(client, benchmark, researcher):
    """Two confirms racing with the same session state: the idempotency key holds."""
    body = _upload(client, GOOD_CSV).content.decode()
    token = re.search(r'name="token" value="([0-9a-f]+)"', body).group(1)
    session_before = dict(client.session.items())
    client.post("/b/study/submit/csv/confirm/", {"token": token})
    session = client.session
    session.update(session_before)  # the second request saw the session before the first
    session.save()
    client.post("/b/study/submit/csv/confirm/", {"token": token})
    assert Submission.objects.filter(submitter=researcher).count() == 2


def test_csv_preview_shows_the_benchmarks_own_rules_by_line(client, researcher):
    make_benchmark("listed", allow_new_datasets=False)
    response = client.post(
        "/b/listed/submit/csv/",
        {"file": SimpleUploadedFile("r.csv", b"dataset,algorithm,score\nd9,alpha,0.5\n")},
    )
    body = response.content.decode()
    assert 'data-testid="upload-problem" data-line="2"' in body
    assert "only takes listed datasets" in body and "d9,alpha,0.5" in body
    assert 'data-testid="upload-confirm"' not in body
    assert Submission.objects.count() == 0


def test_csv_confirm_with_an_unknown_token_stores_nothing(client, benchmark, researcher):
    response = client.post("/b/study/submit/csv/confirm/", {"token": "nope"})
    assert response.status_code == 302 and response.url == "/b/study/submit/csv/"
    assert Submission.objects.filter(submitter=researcher).count() == 0


def test_csv_preview_asks_to_confirm_new_datasets_and_the_confirm_needs_the_tick(
    client, benchmark, researcher
):
    preview = _upload(client, b"dataset,algorithm,score\nd1,alpha,0.9\nd3,alpha,0.8\n")
    body = preview.content.decode()
    assert 'data-testid="new-datasets"' in body
    assert 'data-testid="new-dataset-names">d3<' in body
    token = re.search(r'name="token" value="([0-9a-f]+)"', body).group(1)

    unticked = client.post("/b/study/submit/csv/confirm/", {"token": token})
    assert unticked.status_code == 200
    assert "dataset &#x27;d3&#x27; is new to this benchmark" in unticked.content.decode()
    assert not Submission.objects.filter(submitter=researcher).exists()

    ticked = client.post(
        "/b/study/submit/csv/confirm/", {"token": token, "confirm_new_datasets": "1"}
    )
    assert ticked.status_code == 302
    assert len(stored_scores(submission=Submission.objects.get(submitter=researcher))) == 2


def test_csv_preview_shows_did_you_mean_at_the_line_of_the_typo(client, benchmark, researcher):
    preview = _upload(client, b"dataset,algorithm,score\nd1,alpha,0.9\nD-2,alpha,0.8\n")
    body = preview.content.decode()
    assert 'data-testid="upload-problems"' in body
    assert "did you mean &#x27;d2&#x27;?" in body
    assert 'data-testid="upload-confirm"' not in body


def test_web_form_takes_every_metric_of_a_benchmark_in_one_submission(client, researcher):
    from leaderboard.services import benchmark_create

    benchmark_create(
        slug="two", title="Two metrics", metrics=[("auc", "higher"), ("time", "lower")]
    )
    page = client.get("/b/two/submit/").content.decode()
    assert 'data-metrics="auc&#10;time"' in page
    data = {
        "idempotency_key": "",
        "algorithm": "forest",
        "folds": "2",
        "grid-rows": "1",
        "grid-folds": "2",
        "grid-0-dataset": "d1",
        "grid-0-new": "1",
        # auc folds 0, 1 then time folds 0, 1
        "grid-0-0": "0.9",
        "grid-0-1": "0.8",
        "grid-0-2": "12",
        "grid-0-3": "14",
        "action": "submit",
    }
    response = client.post("/b/two/submit/", data)
    assert response.status_code == 302, response.content.decode()[:3000]
    stored = stored_scores(submission__algorithm__name="forest")
    assert sorted((r.metric, r.fold, r.value) for r in stored) == [
        ("auc", 0, 0.9),
        ("auc", 1, 0.8),
        ("time", 0, 12.0),
        ("time", 1, 14.0),
    ]


def test_csv_template_lists_datasets_metrics_folds_and_neutralises_formulas(client, researcher):
    from leaderboard.services import benchmark_create

    benchmark = benchmark_create(
        slug="tpl", title="Template", metrics=[("auc", "higher"), ("=cost", "lower")]
    )
    submission_create(
        benchmark=benchmark,
        submitter=None,
        entry=SubmissionInput(
            algorithm="base",
            scores=[
                ScoreInput(dataset=name, value=0.5, fold=fold, metric="auc")
                for name in ("iris", "=HYPERLINK(1)")
                for fold in (0, 1)
            ],
        ),
        source=Submission.Source.IMPORT,
    )
    response = client.get("/b/tpl/submit/template.csv")
    assert response["Content-Disposition"] == 'attachment; filename="tpl-template.csv"'
    lines = response.content.decode().splitlines()
    assert lines[0] == "dataset,algorithm,metric,fold,score"
    assert "'=HYPERLINK(1),your-algorithm,auc,0," in lines
    assert "iris,your-algorithm,'=cost,1," in lines
    assert len(lines) == 1 + 2 * 2 * 2
    assert not any(line.startswith("=") for line in lines)


def test_a_ranking_benchmarks_template_filled_in_is_a_file_it_takes(client, researcher):
    # With a "score" column the filled-in template was refused: "... holds scores".
    from leaderboard.services import benchmark_create

    benchmark = benchmark_create(
        slug="rk", title="Ranks", metrics=[("rank", "lower")], ranking_only=True
    )
    submission_create(
        benchmark=benchmark,
        submitter=None,
        entry=SubmissionInput(
            algorithm="base", scores=[ScoreInput(dataset=d, value=1) for d in ("d1", "d2")]
        ),
        source=Submission.Source.IMPORT,
    )
    lines = client.get("/b/rk/submit/template.csv").content.decode().splitlines()
    assert lines == ["dataset,algorithm,rank", "d1,your-algorithm,", "d2,your-algorithm,"]
    assert "fill in the ranks" in client.get("/b/rk/submit/csv/").content.decode()
    filled = "\n".join(
        [lines[0]] + [line.replace("your-algorithm,", "mine,1") for line in lines[1:]]
    )
    preview = client.post(
        "/b/rk/submit/csv/", {"file": SimpleUploadedFile("ranks.csv", filled.encode())}
    ).content.decode()
    assert 'data-testid="upload-confirm"' in preview, preview[:3000]


def test_a_posted_grid_size_beyond_the_field_limit_reads_no_more_cells(researcher):
    """grid-rows=10000 and grid-folds=1000 from a hostile POST: bounded by the field cap."""
    from django.conf import settings

    from frontend.contribute.grid import ScoreGrid

    grid = ScoreGrid.from_post(
        {"grid-rows": "10000", "grid-folds": "1000"},
        known=set(),
        value_label="score",
        metrics=["a", "b", "c"],
    )
    cells = sum(len(row.cells) for row in grid.rows)
    assert cells <= settings.DATA_UPLOAD_MAX_NUMBER_FIELDS


@pytest.mark.parametrize(
    ("content", "problems"),
    list(csv_messages.REFUSED.values()),
    ids=list(csv_messages.REFUSED),
)
def test_csv_newcomers_mistakes_get_the_parsers_exact_messages(
    client, benchmark, researcher, content, problems
):
    response = _upload(client, content)
    assert response.status_code == 200
    shown = [(p.line, p.column, p.message) for p in response.context["file_errors"]]
    assert shown == [tuple(problem) for problem in problems]
    body = response.content.decode()
    assert html.escape(problems[0].message) in body
    assert "The file has 1 problem (listed below); nothing was stored." in body
    # The summary counts the file's one problem and words it as the CLI prints it.
    assert [error.text for error in response.context["errors"]] == [
        "Results file (CSV, JSON or zip): The file has 1 problem (listed below); nothing was stored.",
        problems[0].printed(),
    ]
    assert '<h2 id="error-summary-title">There is a problem</h2>' in body
    assert Submission.objects.filter(submitter=researcher).count() == 0


def test_csv_summary_counts_every_problem_of_the_file(client, benchmark, researcher, monkeypatch):
    monkeypatch.setattr("frontend.contribute.uploads.MAX_ERRORS", 2)  # 2 listed, 3 more
    content = b"dataset,algorithm,score\n" + b"".join(b"d1,alg-%d,high\n" % i for i in range(5))
    body = _upload(client, content).content.decode()
    assert '<h2 id="error-summary-title">There are 5 problems</h2>' in body
    assert "The file has 5 problems (listed below); nothing was stored." in body
    assert "… and 3 more problems." in body


def test_an_empty_file_in_another_tools_format_is_refused_as_empty(client, benchmark, researcher):
    response = _upload(client, b"", format="eee")
    assert response.context["form"].errors == {"file": ["The submitted file is empty."]}
    assert not response.context["file_errors"]


def test_csv_semicolon_file_with_a_quoted_decimal_comma_previews(client, benchmark, researcher):
    body = _upload(client, csv_messages.SEMICOLON_QUOTED).content.decode()
    assert 'data-testid="upload-format">long (scores)' in body
    assert 'data-testid="upload-rows">2<' in body
    assert 'data-testid="file-errors"' not in body


def test_csv_semicolon_file_with_decimal_commas_previews_and_stores(client, benchmark, researcher):
    preview = _upload(client, csv_messages.SEMICOLON)
    body = preview.content.decode()
    assert 'data-testid="upload-format">long (scores)' in body
    assert 'data-testid="upload-rows">2<' in body
    token = re.search(r'name="token" value="([0-9a-f]+)"', body).group(1)
    assert client.post("/b/study/submit/csv/confirm/", {"token": token}).status_code == 302
    stored = stored_scores(submission__submitter=researcher)
    assert sorted((r.algorithm, r.dataset, r.value) for r in stored) == sorted(
        csv_messages.SEMICOLON_SCORES
    )


def test_a_preview_value_reads_as_typed_not_as_its_float():
    """A float whose shortest repr has 17 digits (0.1 + 0.2 - 0.0
    arithmetic, a fold mean) is shown at 15 significant digits."""
    from frontend.contribute.uploads import PreviewRow

    row = PreviewRow(line=2, dataset="d", algorithm="a", fold=None, metric=None, value=0.1 + 0.2)
    assert repr(row.value) == "0.30000000000000004"
    assert row.value_text == "0.3"
    assert PreviewRow(2, "d", "a", None, None, 1.5e-20).value_text == "1.5e-20"


def test_web_form_names_a_misspelt_dataset_beside_a_cell_that_is_no_number(
    client, benchmark, researcher
):
    """The typo of a new row's name is told with the unreadable cell, not after it."""
    key = _key(client.get("/b/study/submit/").content.decode())
    data = _grid_post(
        key,
        **{
            "grid-rows": "3",
            "grid-0-0": "zero",
            "grid-2-dataset": "D1",
            "grid-2-new": "1",
            "grid-2-0": "0.81",
        },
    )
    data["grid-1-dataset"] = "d2"
    body = html.unescape(client.post("/b/study/submit/", data).content.decode())
    assert "“zero” is not a finite number." in body
    assert "dataset 'D1' is not in this benchmark; did you mean 'd1'?" in body
    assert Submission.objects.filter(submitter=researcher).count() == 0
