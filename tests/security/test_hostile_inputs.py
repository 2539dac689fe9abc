"""Attack tests by class: each input class is refused (or defused) by the one rule that
owns it, through every entry point that takes it.

* names and one-line texts: no control or invisible character (bidi overrides, zero-width
  spaces, BOM, line separators, C1 controls, lone surrogates) -- ``control_character_problem``;
* prose (descriptions, citations, notes): bounded, no control character but line breaks
  -- ``leaderboard.services.text_problem``;
* numbers: finite and written in ASCII -- the CSV parser and the services;
* spreadsheet formulas past spaces, quotes and full-width forms -- ``formula_risk``;
* LaTeX specials and commands -- ``latex_escape``;
* bodies: nested too deep, compressed, too many parameters -- the API's base view.
"""

from __future__ import annotations

import gzip
import io
import json
import re

import pandas as pd
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from frontend.readers.exports import latex_escape
from leaderboard.ingest.results_csv import control_character_problem
from leaderboard.models import ApiToken, Benchmark, Dataset, Metric, Submission
from leaderboard.services import (
    MAX_METRICS,
    MAX_TEXT_LENGTH,
    PermissionDenied,
    ValidationFailed,
    benchmark_datasets_add,
    benchmark_update,
    submission_reject,
)
from leaderboard.spreadsheet import FORMULA_TRIGGERS, formula_risk, spreadsheet_cell
from tests.factories import make_benchmark, make_submission, make_user, stored_scores
from tests.frontend.test_readers_support import computed_benchmark
from tests.security.test_control_characters import problems_of

INVISIBLE = {
    "\u202e": "U+202E",  # right-to-left override
    "\u2066": "U+2066",  # left-to-right isolate
    "\u200b": "U+200B",  # zero-width space
    "\u200d": "U+200D",  # zero-width joiner
    "\ufeff": "U+FEFF",  # byte-order mark
    "\u2028": "U+2028",  # line separator
    "\x85": "U+0085",  # C1 next line
    "\x1b": "U+001B",  # C0 escape
}


def api_as(username: str = "attacker") -> APIClient:
    api = APIClient(raise_request_exception=False)
    api.force_login(make_user(username))
    return api


def post_json(api: APIClient, path: str, body: bytes | str, **headers):
    return api.generic("POST", path, body, content_type="application/json", **headers)


# --- names: control and invisible characters -------------------------------------------


@pytest.mark.parametrize(("char", "code"), INVISIBLE.items())
def test_the_name_rule_refuses_control_and_invisible_characters(char, code):
    problem = control_character_problem(f"alg{char}x")
    assert problem is not None and code in problem and "position 4" in problem


@pytest.mark.parametrize(
    "name",
    ["xgboost", "Résumé-Net", "森林", "خوارزمية", "алгоритм", "a\u00a0b", "🙂 net", "x\ue000"],
)
def test_the_name_rule_keeps_names_in_any_script(name):
    assert control_character_problem(name) is None


@pytest.mark.django_db
@pytest.mark.parametrize("field", ["algorithm", "dataset", "algorithm_version"])
@pytest.mark.parametrize(("char", "code"), list(INVISIBLE.items())[:5])
def test_json_submission_refuses_invisible_characters_by_field(field, char, code):
    make_benchmark("toy", submission_policy="open")
    body = {"algorithm": "alg", "scores": [{"dataset": "d1", "value": 0.5}]}
    if field == "dataset":
        body["scores"][0]["dataset"] = f"d{char}1"
    else:
        body[field] = f"x{char}y"
    response = post_json(api_as(), "/api/benchmarks/toy/submissions/create/", json.dumps(body))
    assert response.status_code == 400, response.content
    assert any(p["field"] == field and code in p["message"] for p in problems_of(response.json()))
    assert not Submission.objects.exists()


@pytest.mark.django_db
def test_lone_surrogates_are_a_400_not_a_500():
    make_benchmark("toy", submission_policy="open")
    body = b'{"algorithm": "x\\ud800", "note": "\\udc00", "scores": [{"dataset": "d\\ud800", "value": 1}]}'
    response = post_json(api_as(), "/api/benchmarks/toy/submissions/create/", body)
    assert response.status_code == 400
    fields = {p["field"] for p in problems_of(response.json())}
    assert {"algorithm", "note", "scores[1].dataset"} <= fields


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"title": "Iris\u202egnp.exe"}, "title"),
        ({"title": "bell\x07"}, "title"),
        ({"metrics": [{"name": "acc\u200b", "direction": "higher"}]}, "metrics"),
        ({"metrics": [{"name": "acc\x1b[31m", "direction": "higher"}]}, "metrics"),
        ({"licence": "MIT\u2066"}, "licence"),
        ({"description": "x" * (MAX_TEXT_LENGTH + 1)}, "description"),
        ({"citation": "ok\x00"}, "citation"),
        ({"citation": "bell\x07"}, "citation"),
        (
            {"metrics": [{"name": f"m{i}", "direction": "higher"} for i in range(MAX_METRICS + 1)]},
            "metrics",
        ),
    ],
)
def test_benchmark_create_refuses_hostile_texts_by_field(change, field):
    body = {"slug": "evil", "title": "t", "metrics": [{"name": "m", "direction": "higher"}]}
    response = api_as().post("/api/benchmarks/create/", {**body, **change}, format="json")
    assert response.status_code == 400, response.content
    assert any(p["field"] == field for p in problems_of(response.json())), response.json()
    assert not Benchmark.objects.exists() and not Metric.objects.exists()


@pytest.mark.django_db
def test_prose_keeps_line_breaks_and_any_script():
    text = "Line one,\nline two\twith a tab; עברית and 中文 (U+202E allowed in prose: \u202e)."
    response = api_as().post(
        "/api/benchmarks/create/",
        {
            "slug": "ok",
            "title": "t",
            "description": text,
            "metrics": [{"name": "m", "direction": "higher"}],
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    assert Benchmark.objects.get(slug="ok").description == text


@pytest.mark.django_db
def test_every_other_service_applies_the_same_text_rules():
    maintainer = make_user("maintainer")
    benchmark = make_benchmark("toy")
    benchmark.maintainers.add(maintainer)
    with pytest.raises(ValidationFailed) as refused:
        benchmark_update(benchmark=benchmark, user=maintainer, title="x\u202e")
    assert refused.value.problems[0].field == "title"
    with pytest.raises(ValidationFailed) as refused:
        benchmark_datasets_add(benchmark=benchmark, user=maintainer, names=["ok", "d\u200b1"])
    assert "U+200B" in refused.value.problems[0].message
    assert not Dataset.objects.exists()
    pending = make_submission(benchmark, "alg", {"d1": 0.5})
    with pytest.raises(ValidationFailed) as refused:
        submission_reject(submission=pending, user=maintainer, note="n" * (MAX_TEXT_LENGTH + 1))
    assert refused.value.problems[0].field == "note"
    pending.refresh_from_db()
    assert pending.status == Submission.Status.PENDING
    with pytest.raises(PermissionDenied):
        benchmark_update(benchmark=benchmark, user=make_user("stranger"), title="x")


@pytest.mark.django_db
def test_api_token_names_follow_the_name_rule():
    api = api_as()
    response = api.post("/api/tokens/create/", {"name": "ci\u202etoken"}, format="json")
    assert response.status_code == 400
    assert problems_of(response.json())[0]["field"] == "name"
    assert not ApiToken.objects.exists()


@pytest.mark.django_db
def test_names_that_differ_only_by_width_or_case_are_refused_as_duplicates():
    """The rule for confusable duplicates (typo_guard): a name equal to an accepted one
    after NFKC and case folding is refused with the existing name."""
    make_benchmark("toy", submission_policy="open")
    api = api_as()
    first = {"algorithm": "XGBoost", "scores": [{"dataset": "d1", "value": 0.5}]}
    assert (
        post_json(api, "/api/benchmarks/toy/submissions/create/", json.dumps(first)).status_code
        == 201
    )
    for twin in ("ＸＧＢｏｏｓｔ", "xgboost", "XGBOOST", "XG-Boost"):
        body = {**first, "algorithm": twin}
        response = post_json(api, "/api/benchmarks/toy/submissions/create/", json.dumps(body))
        assert response.status_code == 400, twin
        assert "did you mean 'XGBoost'" in problems_of(response.json())[0]["message"]


# --- numbers ---------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "raw", ["nan", "inf", "-Infinity", "1e400", "1,5", "0x10", "1_0", "１", "٠٫٥", "½", "", "1e"]
)
def test_csv_scores_that_are_not_plain_finite_numbers_are_refused_by_line_and_column(raw):
    make_benchmark("toy", submission_policy="open")
    cell = f'"{raw}"' if "," in raw else raw
    content = f"dataset,algorithm,score\nd1,alg,0.5\nd2,alg,{cell}\n".encode()
    response = api_as().post(
        "/api/benchmarks/toy/submissions/upload/",
        {"file": SimpleUploadedFile("x.csv", content, content_type="text/csv")},
        format="multipart",
    )
    assert response.status_code == 400, (raw, response.content)
    assert any(p["line"] == 3 and p["field"] == "score" for p in problems_of(response.json()))
    assert not stored_scores()


@pytest.mark.django_db
def test_csv_scores_that_are_plain_numbers_are_stored_as_numbers():
    make_benchmark("toy", submission_policy="open")
    raws = ["-0", "+1", ".5", "1.", "-0.5", "1E-3", " 2 "]
    rows = "".join(f"d{i},alg,{raw}\n" for i, raw in enumerate(raws))
    response = api_as().post(
        "/api/benchmarks/toy/submissions/upload/",
        {"file": SimpleUploadedFile("x.csv", f"dataset,algorithm,score\n{rows}".encode())},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    stored = {r.dataset: r.value for r in stored_scores()}
    assert stored == {f"d{i}": float(raw) for i, raw in enumerate(raws)}


@pytest.mark.django_db
@pytest.mark.parametrize(
    "raw",
    [b"NaN", b"Infinity", b"-Infinity", b"1e400", b'"1,5"', b'"0x10"', b"true", b"null", b"[1]"],
)
def test_json_scores_that_are_not_finite_numbers_are_refused_by_position(raw):
    make_benchmark("toy", submission_policy="open")
    body = (
        b'{"algorithm": "a", "scores": [{"dataset": "d1", "value": 1}, {"dataset": "d2", "value": '
        + raw
        + b"}]}"
    )
    response = post_json(api_as(), "/api/benchmarks/toy/submissions/create/", body)
    assert response.status_code == 400, (raw, response.content)
    problems = problems_of(response.json())
    assert any("scores[2]" in (p["field"] or "") + p["message"] for p in problems), problems
    assert not stored_scores()


# --- request bodies --------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path",
    ["/api/benchmarks/toy/submissions/create/", "/api/benchmarks/create/", "/api/tokens/create/"],
)
def test_deeply_nested_json_is_a_400_that_says_so(path):
    make_benchmark("toy", submission_policy="open")
    depth = 200_000
    response = post_json(api_as(), path, b"[" * depth + b"]" * depth)
    assert response.status_code == 400
    assert "nested too deeply" in response.json()["detail"]


@pytest.mark.django_db
@pytest.mark.parametrize("encoding", ["gzip", "deflate", "br", "GZIP, identity"])
def test_compressed_request_bodies_are_refused_before_reading(encoding):
    make_benchmark("toy", submission_policy="open")
    bomb = gzip.compress(b'{"algorithm": "a", "note": "' + b"x" * 10_000_000 + b'"}')
    response = post_json(
        api_as(), "/api/benchmarks/toy/submissions/create/", bomb, HTTP_CONTENT_ENCODING=encoding
    )
    assert response.status_code == 415
    assert "Content-Encoding" in response.json()["detail"]
    assert not Submission.objects.exists()


@pytest.mark.django_db
def test_too_many_query_parameters_is_a_400_naming_the_limit(settings):
    query = "&".join(f"p{i}=1" for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1))
    response = APIClient(raise_request_exception=False).get(f"/api/benchmarks/?{query}")
    assert response.status_code == 400
    assert str(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS) in response.json()["detail"]


# --- spreadsheet formulas --------------------------------------------------------------

FORMULAS = [
    "=1+1",
    "  =1+1",
    '"=1+1',
    "' =1+1",
    "\u00a0+1",
    "\u3000@SUM(A1)",
    "＝cmd|' /c calc'!A1",  # full-width equals
    "＋1",
    "－1",
    "＠SUM(1)",
    "﹦1",  # small equals
    "\u22121+1",  # minus sign
    "|calc",
    "\t=1",
    "\r=1",
]


@pytest.mark.parametrize("text", FORMULAS)
def test_formula_cells_are_defused_past_spaces_quotes_and_full_width_forms(text):
    assert formula_risk(text)
    assert spreadsheet_cell(text) == "'" + text


@pytest.mark.parametrize("text", ["a=1", "x-1", "Résumé", "", " ", "100%", "(1)"])
def test_plain_text_and_numbers_stay_as_they_are(text):
    assert spreadsheet_cell(text) == text
    assert spreadsheet_cell(-0.5) == -0.5 and spreadsheet_cell(-0.0) == -0.0


@pytest.mark.django_db
def test_full_width_and_quoted_formulas_are_defused_in_every_csv_export(client):
    scores = {
        "＝cmd|'/c calc'!A1": {"d1": 0.9, "d2": 0.8, "d3": 0.1},
        '"=HYPERLINK(1)': {"d1": 0.5, "d2": 0.9, "d3": 0.2},
        "\u22122+3": {"d1": 0.1, "d2": 0.1, "d3": 0.3},
        "|calc": {"d1": 0.3, "d2": 0.2, "d3": 0.5},
        "plain": {"d1": -0.5, "d2": 0.3, "d3": 0.4},
    }
    computed_benchmark("evil", scores=scores)
    for path in (
        "/api/benchmarks/evil/snapshots/latest/export.csv",
        "/b/evil/v1/export.csv?headers=keys",  # the page's own (words) below
        "/b/evil/scores.csv",
    ):
        response = client.get(path)
        assert response.status_code == 200, path
        body = (
            b"".join(response.streaming_content) if response.streaming else response.content
        ).decode()
        frame = pd.read_csv(io.StringIO(body), comment="#", dtype=str, keep_default_na=False)
        for cell in frame["algorithm"]:
            assert cell == "plain" or cell.startswith("'"), (path, cell)
        numeric = pd.read_csv(io.StringIO(body), comment="#")
        column = "score" if "score" in numeric else "loo_kl"
        assert numeric[column].dtype.kind == "f", path
    readable = client.get("/b/evil/v1/export.csv").content.decode()
    frame = pd.read_csv(io.StringIO(readable), dtype=str, keep_default_na=False)
    for cell in frame["Algorithm"]:
        assert cell == "plain" or cell.startswith("'"), cell
    assert not any(spreadsheet_cell(t).startswith(FORMULA_TRIGGERS) for t in FORMULAS)


# --- LaTeX -----------------------------------------------------------------------------

_OUR_ESCAPES = re.compile(
    r"\\textbackslash\{\}|\\textasciitilde\{\}|\\textasciicircum\{\}|\\textless\{\}"
    r"|\\textgreater\{\}|\\[&%$#_{}]"
)


@pytest.mark.parametrize(
    "name",
    [
        r"\input{/etc/passwd}",
        r"\immediate\write18{rm -rf ~}",
        r"\catcode`\@=0 @input x",
        r"$\alpha$ & #1 ^ _ % ~ { }",
        "\\def\\x{\\x}\\x",
        "line\nbreak\r\\par",
        "<>|\"'`",
    ],
)
def test_latex_escape_leaves_no_live_special_character(name):
    escaped = latex_escape(name)
    rest = _OUR_ESCAPES.sub("", escaped)
    assert not set(rest) & set("\\{}$&#^_%~\n\r"), (name, escaped, rest)
    # Unescaping gives back the name (on one line): nothing was lost or doubled.
    assert _OUR_ESCAPES.sub(lambda m: _unescape(m.group()), escaped) == " ".join(name.split())


def _unescape(escape: str) -> str:
    named = {
        r"\textbackslash{}": "\\",
        r"\textasciitilde{}": "~",
        r"\textasciicircum{}": "^",
        r"\textless{}": "<",
        r"\textgreater{}": ">",
    }
    return named.get(escape, escape[1:])


HUGE_INTEGER = "9" * 400  # a JSON integer past a float's range: math.isfinite raises on it


@pytest.mark.django_db
def test_an_integer_past_a_float_is_a_400_not_a_500():
    """A score, a metric's range end or its rope written as a 400-digit integer."""
    make_benchmark("toy", submission_policy="open")
    body = f'{{"algorithm": "x", "scores": [{{"dataset": "d", "value": {HUGE_INTEGER}}}]}}'
    response = post_json(api_as(), "/api/benchmarks/toy/submissions/create/", body.encode())
    assert response.status_code == 400, response.content
    assert "finite number" in response.content.decode()
    maker = api_as("maker")
    for metric in (f'"min_value": {HUGE_INTEGER}', f'"rope": {HUGE_INTEGER}'):
        body = (
            '{"slug": "huge", "title": "t", "metrics": '
            f'[{{"name": "m", "direction": "higher", {metric}}}]}}'
        )
        response = post_json(maker, "/api/benchmarks/create/", body.encode())
        assert response.status_code == 400, response.content
    assert not Benchmark.objects.filter(slug="huge").exists()
