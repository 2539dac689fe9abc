"""`make check`, the fast tier: no test that needs a worker or a browser gets into it.

Its tests are those not marked integration or browser; a test is marked by its folder
(tests/browser, tests/reliability) or, wherever it lives, by the fixtures it uses
(tests/conftest.py); and a worker started without the fixture refuses to start there.
"""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

from tests.processes import ROOT, TIER_VARIABLE, celery_worker_process, worker_allowed

FAST_TIER = next(
    line.split(":=", 1)[1].strip()
    for line in (ROOT / "Makefile").read_text().splitlines()
    if line.startswith("CHECK_TESTS :=")
)


def _tests(module: str, *, asking_for: str | None = None) -> set[str]:
    """The test functions of ``module`` (those whose parameters include ``asking_for``)."""
    tree = ast.parse((ROOT / module).read_text())
    return {
        f"{module}::{node.name}"
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and node.name.startswith("test_")
        and (asking_for is None or asking_for in [arg.arg for arg in node.args.args])
    }


def test_tests_using_the_worker_fixture_are_left_out_of_the_fast_tier_unmarked():
    # Neither module marks its tests: some ask for the celery_worker fixture, some not.
    modules = ["tests/api/test_background_upload.py", "tests/api/test_upload_sweep.py"]
    for module in modules:
        assert "mark.integration" not in (ROOT / module).read_text()

    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", FAST_TIER, *modules],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    fast = {line for line in done.stdout.splitlines() if "::" in line}
    everything = set().union(*(_tests(module) for module in modules))
    worker_tests = set().union(*(_tests(m, asking_for="celery_worker") for m in modules))
    assert worker_tests and fast
    assert fast == everything - worker_tests


def test_a_worker_started_without_the_fixture_fails_in_the_fast_tier(monkeypatch):
    monkeypatch.delenv(TIER_VARIABLE, raising=False)
    worker_allowed()  # outside the fast tier: allowed
    monkeypatch.setenv(TIER_VARIABLE, "check")
    with pytest.raises(pytest.fail.Exception, match=r"mark it @pytest\.mark\.integration"):
        with celery_worker_process():
            pass


def _is_a_cache(node: ast.AST) -> bool:
    """``cache``, ``pages_cache`` or ``caches[...]``: a cache whose clear() is FLUSHDB
    (an alias is the same Redis database in tests: config/settings/test.py)."""
    if isinstance(node, ast.Name):
        return node.id == "cache" or node.id.endswith("_cache")
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and (node.value.id == "caches")
    )


def test_no_test_flushes_the_cache_other_processes_share():
    # The processes of a parallel run (and the workers tests start) share one Redis
    # database under their own key prefixes; cache.clear() is FLUSHDB, so a test that
    # calls it empties the others' entries mid-test (a query-count test then counts one
    # read more: tests/frontend/test_reader_dataset_columns.py under make check; and
    # since the Celery broker is that database too, a flush drops the queues' bindings
    # and messages under another process's workers: most likely how the fairness test
    # lost its bulk worker's control replies in a parallel run, to a caches["pages"].clear()).
    flushing = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "clear"
                and _is_a_cache(node.func.value)
            ):
                flushing.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not flushing, f"use tests.factories.cache_clear_own(): {flushing}"
