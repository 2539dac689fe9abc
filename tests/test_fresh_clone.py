"""A clone of the repository alone, with no reference folder beside it, works.

This is what a new user does: `git clone` of the project into an empty folder, then the
tests. The committed HEAD is cloned into a temporary folder (uncommitted changes are not
part of it) and pytest runs there with this interpreter, outside CI: collection of the
whole suite needs no optional data, the core tests pass, and the tests that need a table
we do not ship are reported as skipped with the way to get it; where the data are
required (CI, PODIUM_REQUIRE_REFERENCE_DATA=1) the same tests fail instead.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.reference_data import FOLDER_VARIABLE, REPO_ROOT, REQUIRE_VARIABLE

# Four more pytest runs, the core tests among them: `make test` only.
pytestmark = pytest.mark.clone

# The core tests, plus a module with a test marked external_data that needs no database.
CORE_RUN = ["tests/core", "tests/ingest/test_results_csv.py"]
EXTERNAL_TEST = (
    "tests/ingest/test_results_csv.py::test_fernandez_delgado_179_wide_keeps_the_449_missing_cells"
)


def git(*args: str, cwd: Path) -> str:
    result = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=300, check=True
    )
    return result.stdout.strip()


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("git") is None or not (REPO_ROOT / ".git").exists():
        pytest.skip("not a git checkout (e.g. a container image): nothing to clone")
    head = git("rev-parse", "HEAD", cwd=REPO_ROOT)
    target = tmp_path_factory.mktemp("fresh-clone") / "podium"
    # --shared borrows the objects, so a detached or unpushed HEAD is reachable too.
    git("clone", "--quiet", "--shared", "--no-checkout", str(REPO_ROOT), str(target), cwd=REPO_ROOT)
    git("checkout", "--quiet", "--detach", head, cwd=target)
    assert not (target.parent / "shared").exists()
    return target


def clone_env(**extra: str) -> dict[str, str]:
    """This process's environment as a user outside CI has it: no reference-data settings."""
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in {"CI", FOLDER_VARIABLE, REQUIRE_VARIABLE, "PYTHONPATH", "PYTEST_ADDOPTS"}
    }
    if env.get("DATABASE_URL"):
        env["DATABASE_URL"] += "_clone"  # never the database the outer run is using
    env.update(extra)
    return env


def run_pytest(clone: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            f"--basetemp={clone.parent / 'pytest-tmp'}",
            *args,
        ],
        cwd=clone,
        env=clone_env(**env),
        capture_output=True,
        text=True,
        timeout=1800,
    )


def summary(result: subprocess.CompletedProcess[str]) -> dict[str, int]:
    """pytest's last line, e.g. '134 passed, 1 skipped in 50.1s', as counts."""
    last = result.stdout.strip().splitlines()[-1]
    return {word: int(n) for n, word in re.findall(r"(\d+) (passed|skipped|failed|errors?)", last)}


def test_the_clone_collects_the_whole_suite_without_optional_data(clone):
    result = run_pytest(clone, "--collect-only", "-q")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert re.search(r"^\d+ tests collected", result.stdout, re.MULTILINE), result.stdout[-2000:]
    assert "error" not in result.stdout.splitlines()[-1]


def test_the_core_tests_pass_in_the_clone_with_the_skips_reported(clone):
    result = run_pytest(clone, "-rs", *CORE_RUN)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-5000:]
    assert f"rootdir: {clone}" in result.stdout  # the clone's code ran, not this checkout's
    counts = summary(result)
    assert counts.get("passed", 0) > 100 and counts.get("skipped") == 1, counts
    assert not counts.get("failed") and not counts.get("error") and not counts.get("errors")
    skipped = [line for line in result.stdout.splitlines() if line.startswith("SKIPPED")]
    assert len(skipped) == 1, skipped
    assert "test_results_csv.py" in skipped[0] and "fernandez_delgado_2014" in skipped[0]
    assert f"set {FOLDER_VARIABLE}" in skipped[0]


def test_on_ci_a_missing_folder_fails(clone):
    # PODIUM_REQUIRE_REFERENCE_DATA=1 takes the same path (tests/test_reference_data.py).
    result = run_pytest(clone, EXTERNAL_TEST, CI="true")
    assert result.returncode == 1, result.stdout[-3000:]
    assert summary(result) == {"error": 1}, result.stdout[-3000:]
    assert "fernandez_delgado_2014" in result.stdout and FOLDER_VARIABLE in result.stdout


@pytest.mark.external_data("fernandez_delgado_2014")
def test_pointing_the_clone_at_the_shared_folder_runs_the_external_tests(clone, external_data):
    result = run_pytest(clone, EXTERNAL_TEST, **{FOLDER_VARIABLE: str(external_data.parent)})
    assert result.returncode == 0, result.stdout[-3000:]
    assert summary(result) == {"passed": 1}
