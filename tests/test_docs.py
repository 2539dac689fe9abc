"""README and the pages under docs/: every relative link and anchor resolves, the methods
page's sections named in docs/methods.md exist, and every shell command README shows is
one of the two commands or is run here, as README writes it."""

from __future__ import annotations

import io
import re
import shlex
from pathlib import Path

import pytest
from django.core.management import call_command

from estimation.selectors import snapshot_latest
from leaderboard.models import Benchmark

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
METHODS_TEMPLATE = ROOT / "frontend" / "templates" / "frontend" / "explore" / "methods.html"
# The two commands (the Makefile's targets); CI runs the second (.ci/run).
TWO_COMMANDS = {"make dev", "make test"}
MANAGE = (".venv/bin/python", "manage.py")

_FENCE = re.compile(r"^```.*?^```", re.M | re.S)
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6} (.+?)\s*$", re.M)


def _prose(text: str) -> str:
    """The text outside code blocks and code spans (a link inside them is not a link)."""
    return _CODE_SPAN.sub("", _FENCE.sub("", text))


def anchors(markdown: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens."""
    found: set[str] = set()
    for heading in _HEADING.findall(_FENCE.sub("", markdown)):
        text = re.sub(r"[`*_]|\[|\]\([^)]*\)", "", heading).strip().lower()
        found.add(re.sub(r"[^\w\- ]", "", text).replace(" ", "-"))
    return found


def relative_links(page: Path) -> list[str]:
    return [
        target
        for target in _LINK.findall(_prose(page.read_text()))
        if not re.match(r"[a-z]+:", target)  # http:, https:, mailto:
    ]


def test_the_anchor_rule_matches_githubs():
    text = "# Reading a leaderboard\n\n## Submitting results (researchers)\n\n## Health, status and metrics\n"
    assert anchors(text) == {
        "reading-a-leaderboard",
        "submitting-results-researchers",
        "health-status-and-metrics",
    }


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_and_anchor_resolves(page: Path):
    broken = []
    for target in relative_links(page):
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if not resolved.exists():
            broken.append(f"{target}: no such file")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved.read_text()):
            broken.append(f"{target}: no heading with anchor #{anchor}")
    assert broken == []


def test_readme_links_to_every_page_under_docs():
    linked = {(ROOT / target.partition("#")[0]).resolve() for target in relative_links(README)}
    pages = {page.resolve() for page in (ROOT / "docs").glob("*.md")}
    assert pages - linked == set()


def test_readme_stays_short():
    assert len(README.read_text().splitlines()) <= 250


def test_the_methods_sections_named_in_the_docs_are_on_the_methods_page():
    named = set(re.findall(r"/methods/#([\w-]+)", (ROOT / "docs" / "methods.md").read_text()))
    sections = set(re.findall(r'<section id="([\w-]+)"', METHODS_TEMPLATE.read_text()))
    assert named, "docs/methods.md names no section of /methods/"
    assert named <= sections, f"not sections of /methods/: {sorted(named - sections)}"
    assert sections <= named, (
        f"sections of /methods/ docs/methods.md lacks: {sorted(sections - named)}"
    )


def readme_commands() -> list[str]:
    """Each command of README's shell code blocks, continuation lines joined, comments
    and blank lines dropped."""
    commands = []
    for block in re.findall(r"^ *```sh\n(.*?)^ *```", README.read_text(), re.M | re.S):
        text = re.sub(r"\\\n\s*", " ", block)
        for line in text.splitlines():
            command = line.split("#", 1)[0].strip()
            if command:
                commands.append(command)
    return commands


def manage_commands() -> list[list[str]]:
    return [
        shlex.split(command)[2:]
        for command in readme_commands()
        if tuple(shlex.split(command)[:2]) == MANAGE
    ]


def test_every_command_readme_shows_is_one_of_the_two_or_run_here():
    commands = readme_commands()
    assert TWO_COMMANDS <= set(commands)
    makefile = (ROOT / "Makefile").read_text()
    for target in ("dev", "test"):
        assert re.search(rf"^{target}:", makefile, re.M), f"the Makefile has no {target} target"
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    others = [c for c in commands if c not in TWO_COMMANDS and tuple(shlex.split(c)[:2]) != MANAGE]
    assert others == [], "README shows a command no test runs: run it in a test, then list it here"
    assert {argv[0] for argv in manage_commands()} == {"import_benchmark", "analyze"}


@pytest.mark.django_db
def test_the_tours_commands_run_as_readme_writes_them(monkeypatch):
    monkeypatch.chdir(ROOT)  # README's paths are relative to the checkout
    outputs = {}
    for name, *args in manage_commands():
        out = io.StringIO()
        call_command(name, *args, stdout=out, stderr=io.StringIO())
        outputs[name] = out.getvalue()
    benchmark = Benchmark.objects.get(slug="my-study")  # served at /b/my-study/
    assert snapshot_latest(benchmark=benchmark) is not None
    assert "C4.5+m+cf" in outputs["analyze"]
