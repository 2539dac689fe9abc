"""An XSS corpus in every name and text a user controls, rendered through every page,
chart and export: no payload reaches a page unescaped, exports are attachments of
their own type, and LaTeX specials are escaped.

Pages are rendered by Django's templates (autoescape) and the charts by our SVG writer;
this checks the whole path, names included in URLs, tables, titles, chart labels and
data tables, with a CSP on every response as the second line of defence.
"""

from __future__ import annotations

import itertools
from html.parser import HTMLParser
from urllib.parse import quote

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from leaderboard.models import Submission
from leaderboard.services import ScoreInput, SubmissionInput, submission_create
from tests.factories import make_user
from tests.frontend.test_readers_support import computed_benchmark

pytestmark = pytest.mark.django_db

PAYLOADS = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(2)>',
    "'><svg onload=alert(3)>",
    "</title><iframe src=javascript:alert(4)>",
    "<a href='javascript:alert(5)'>x</a>",
]
# What must never appear in an HTML or SVG body: the live markup of each payload.
DANGEROUS = [
    "<script>alert",
    "<img src=x",
    "<svg onload",
    "<iframe",
    "<a href='javascript",
]
ALGORITHMS = {f"alg{i} {p}": i for i, p in enumerate(PAYLOADS)}
DATASETS = [f"ds{i} {p}" for i, p in enumerate(PAYLOADS[:4])]


def _scores() -> dict:
    return {
        name: {d: 0.1 + 0.17 * ((i * 3 + j) % 5) for j, d in enumerate(DATASETS)}
        for name, i in ALGORITHMS.items()
    }


class _Markup(HTMLParser):
    """Collects what a browser would treat as live markup."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        for name, value in attrs:
            if name.lower().startswith("on"):
                self.problems.append(f"<{tag} {name}=...>")
            if name in ("href", "src", "action") and (value or "").strip().lower().startswith(
                "javascript:"
            ):
                self.problems.append(f"<{tag} {name}={value}>")
        if tag in ("iframe", "object", "embed", "img"):
            self.problems.append(f"<{tag}>")
        if tag == "script":
            inert = attributes.get("type") == "application/json"
            own = (attributes.get("src") or "").startswith("/static/")
            if not (inert or own):
                self.problems.append(f"<script {attributes}>")


def _live_markup(body: str) -> list[str]:
    parser = _Markup()
    parser.feed(body)
    return parser.problems


def _assert_escaped(path: str, response) -> None:
    assert response.status_code == 200, path
    body = response.content.decode()
    content_type = response["Content-Type"]
    if content_type.startswith(("text/html", "image/svg")):
        for needle in DANGEROUS:
            assert needle not in body, (path, needle)
        # Event handlers, javascript: links and foreign elements: none, in any attribute.
        assert _live_markup(body) == [], path
        assert "Content-Security-Policy" in response
    elif "json" in content_type:
        assert response.get("Content-Disposition", "").startswith("attachment") or path.startswith(
            "/api/"
        ), path
    else:  # csv, tex: downloads, never rendered by the browser
        assert response["Content-Disposition"].startswith("attachment"), path
        assert "html" not in content_type


def test_xss_corpus_through_every_page_chart_and_export():
    benchmark = computed_benchmark(
        "xss",
        scores=_scores(),
        description=PAYLOADS[0] + " " + PAYLOADS[1],
        citation=PAYLOADS[2] + r" \input{/etc/passwd} $x$ & 100%",
    )
    benchmark.title = "Study " + PAYLOADS[3]
    benchmark.save()
    maintainer = make_user("maintainer")
    benchmark.maintainers.add(maintainer)
    researcher = make_user("researcher")
    submission_create(
        benchmark=benchmark,
        submitter=researcher,
        entry=SubmissionInput(
            algorithm="pending " + PAYLOADS[1],
            algorithm_url="https://example.org/?q=%3Cscript%3E",
            note=PAYLOADS[0],
            scores=[ScoreInput(dataset=DATASETS[0], value=0.5)],
        ),
    )
    anonymous, member, keeper = Client(), Client(), Client()
    member.force_login(researcher)
    keeper.force_login(maintainer)

    pages = [
        "/",
        "/?q=%3Cscript%3E",
        "/b/xss/",
        "/b/xss/?estimator=%3Cscript%3E",
        "/b/xss/history/",
        "/b/xss/v1/",
        "/b/xss/charts/",
        "/methods/",
        "/b/xss/datasets/",
        "/b/xss/?sort=algorithm&order=desc",
        "/b/xss/board/?sort=group&order=asc",
        "/?q=a",  # the site search lists hostile algorithm and dataset names
        "/?q=%3C",
    ]
    pages += [f"/b/xss/algorithms/{quote(name, safe='')}/" for name in ALGORITHMS]
    pages += [f"/b/xss/datasets/{quote(name, safe='')}/" for name in DATASETS]
    names = list(ALGORITHMS)
    pages += [reverse("compare-pair", args=["xss", a, b]) for a, b in itertools.pairwise(names)]
    pages += [reverse("embed-badge", args=["xss", name]) for name in names]
    pages += ["/b/xss/compare/", "/b/xss/compare/?a=%3Cscript%3E&b=x", "/b/xss/pareto/"]
    pages += ["/b/xss/embed/"]
    exports = ["/b/xss/v1/export.csv", "/b/xss/v1/export.json", "/b/xss/v1/export.tex"]
    api = [
        "/api/benchmarks/xss/",
        "/api/benchmarks/xss/algorithms/",
        "/api/benchmarks/xss/datasets/",
        "/api/benchmarks/xss/snapshots/latest/",
        "/api/benchmarks/xss/snapshots/latest/export.csv",
        "/api/benchmarks/xss/snapshots/latest/export.json",
    ]
    for path in pages + exports + api:
        _assert_escaped(path, anonymous.get(path))
    for path in ["/b/xss/submit/", "/account/submissions/", "/account/"]:
        _assert_escaped(path, member.get(path))
    for path in [
        "/b/xss/maintain/",
        "/b/xss/maintain/moderation/",
        "/b/xss/maintain/catalogue/",
        "/b/xss/maintain/snapshots/",
    ]:
        _assert_escaped(path, keeper.get(path))

    # The payloads did reach the pages, escaped (the test is not passing vacuously).
    board = anonymous.get("/b/xss/").content.decode()
    assert "alg0 &lt;script&gt;alert(1)&lt;/script&gt;" in board
    charts = anonymous.get("/b/xss/charts/").content.decode()
    assert "&lt;svg onload=alert(3)&gt;" in charts or "&lt;svg onload" in charts
    # LaTeX: the citation's specials are printed, not executed.
    tex = anonymous.get("/b/xss/v1/export.tex").content.decode()
    assert r"\input{/etc/passwd}" not in tex and r"\textbackslash{}input" in tex
    # The API answers JSON, never HTML, whatever it carries.
    response = APIClient().get("/api/benchmarks/xss/algorithms/")
    assert response["Content-Type"].startswith("application/json")
    assert Submission.objects.filter(status="pending").count() == 1


def test_preview_and_error_pages_escape_file_content():
    computed_benchmark("xss")
    member = Client()
    member.force_login(make_user("researcher"))
    from django.core.files.uploadedfile import SimpleUploadedFile

    bad = (
        "dataset,algorithm,score\n"
        f'"{PAYLOADS[0]}","{PAYLOADS[1]}",not-a-number\n'
        f'"{PAYLOADS[2]}","{PAYLOADS[3]}",0.5\n'
    ).encode()
    response = member.post(
        "/b/xss/submit/csv/", {"file": SimpleUploadedFile("x.csv", bad, content_type="text/csv")}
    )
    _assert_escaped("upload errors", response)
    good = (
        "dataset,algorithm,score\n"
        f'"{PAYLOADS[0]}","{PAYLOADS[1]}",0.5\n'
        f'"{PAYLOADS[2]}","{PAYLOADS[4]}",0.5\n'
    ).encode()
    response = member.post(
        "/b/xss/submit/csv/", {"file": SimpleUploadedFile("x.csv", good, content_type="text/csv")}
    )
    _assert_escaped("upload preview", response)
    assert "&lt;script&gt;" in response.content.decode()
