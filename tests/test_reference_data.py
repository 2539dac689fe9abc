"""The published tables: shipped copies match the source, the rules for external ones hold,
and nothing in the project names a path of one particular machine."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from leaderboard.published import PUBLISHED_DATA
from tests.reference_data import (
    FOLDER_VARIABLE,
    REPO_ROOT,
    REQUIRE_VARIABLE,
    external_data_lookup,
    reference_data_required,
)

SHIPPED = sorted(path.name for path in PUBLISHED_DATA.iterdir() if path.is_dir())
ADDED_HERE = {"LICENSE", "NOTICE"}  # the licence and attribution that travel with a copy


def test_the_shipped_tables_are_the_ones_whose_terms_allow_it():
    assert SHIPPED == ["demsar2006", "tabzilla_full", "tabzilla_top3"]
    assert not (PUBLISHED_DATA / "fernandez_delgado_2014").exists()  # no stated licence
    for study in SHIPPED:
        assert (PUBLISHED_DATA / study / "PROVENANCE.md").is_file(), study
    licence = (PUBLISHED_DATA / "tabzilla_full" / "LICENSE").read_text()
    assert "Apache License" in licence and "Version 2.0, January 2004" in licence
    notice = (PUBLISHED_DATA / "tabzilla_full" / "NOTICE").read_text()
    assert "naszilla/tabzilla" in notice and "feca5e554148bdc4ac17c3379984c2a71244cd32" in notice


@pytest.mark.parametrize(
    "study", [pytest.param(s, marks=pytest.mark.external_data(s)) for s in SHIPPED]
)
def test_shipped_copies_are_byte_identical_to_the_shared_folder(study, external_data):
    shipped = {p.name: p.read_bytes() for p in (PUBLISHED_DATA / study).iterdir()}
    source = {p.name: p.read_bytes() for p in external_data.iterdir()}
    assert set(shipped) - ADDED_HERE == set(source)
    for name, content in source.items():
        assert shipped[name] == content, name


@pytest.mark.parametrize(
    ("environment", "required"),
    [
        ({}, False),
        ({"CI": "true"}, True),
        ({"CI": "1"}, True),
        ({"CI": "false"}, False),
        ({"CI": ""}, False),
        ({REQUIRE_VARIABLE: "1"}, True),
        ({REQUIRE_VARIABLE: "0"}, False),
    ],
)
def test_where_reference_data_are_required(monkeypatch, environment, required):
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv(REQUIRE_VARIABLE, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    assert reference_data_required() is required


def test_a_wrong_folder_setting_is_reported_not_replaced_by_the_default(monkeypatch, tmp_path):
    monkeypatch.setenv(FOLDER_VARIABLE, str(tmp_path / "nowhere"))
    found = external_data_lookup("fernandez_delgado_2014")
    assert found.path is None
    assert f"{FOLDER_VARIABLE}={tmp_path / 'nowhere'}" in found.problem
    assert "\n" not in found.problem and f"set {FOLDER_VARIABLE}" in found.problem
    (tmp_path / "fernandez_delgado_2014").mkdir()
    monkeypatch.setenv(FOLDER_VARIABLE, str(tmp_path))
    assert (
        external_data_lookup("fernandez_delgado_2014").path == tmp_path / "fernandez_delgado_2014"
    )


def tracked_text_files() -> list[Path]:
    if shutil.which("git") is None or not (REPO_ROOT / ".git").exists():
        pytest.skip("not a git checkout: no list of tracked files")
    names = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO_ROOT, capture_output=True, check=True, timeout=60
    ).stdout.split(b"\0")
    files = [REPO_ROOT / name.decode() for name in names if name]
    return [path for path in files if path.is_file() and b"\0" not in path.read_bytes()[:4096]]


def test_no_file_names_an_absolute_path_of_this_or_any_machine():
    forbidden = {str(REPO_ROOT), str(REPO_ROOT.parent / "shared")}
    for study in ("fernandez_delgado_2014", *SHIPPED):
        found = external_data_lookup(study).path
        if found is not None:
            forbidden.add(str(found.resolve().parent))
    home = str(Path.home())
    if home not in ("/", ""):
        forbidden.add(home + "/")
    personal = re.compile(r"/home/[\w.-]+/|/Users/[\w.-]+/|[A-Za-z]:\\\\?Users\\\\?")
    offenders = []
    for path in tracked_text_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        hits = [s for s in forbidden if s in text] + personal.findall(text)
        if hits:
            offenders.append(f"{path.relative_to(REPO_ROOT)}: {sorted(set(hits))}")
    assert not offenders, offenders
