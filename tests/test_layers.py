"""The packages as the pipeline: imports go one way, and no two modules import each other.

Bottom to top: ``estimation.core`` (pure), ``leaderboard`` (catalogue, submissions,
ingest, moderation, tokens), which asks for recomputes through ``estimation.requests``
only, then the rest of ``estimation`` (recompute, snapshots, their API), then
``frontend``. The rules are import-linter contracts (pyproject.toml); this test runs them
and adds what import-linter does not check: circles of any length, function-level imports
included (grimp reads every import statement, not only those at module level).
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("leaderboard", "estimation", "frontend", "operations", "config", "common")
# What leaderboard may import of estimation: the core and the recompute seam.
LEADERBOARD_MAY_IMPORT = ("estimation.core", "estimation.requests")
# and what its import commands may (they compute the results before they return).
COMMANDS_MAY_IMPORT = ("estimation.command_results",)


def _graph() -> grimp.ImportGraph:
    return grimp.build_graph(*PACKAGES, cache_dir=None)


def _circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(edges[successor]))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        circles.append(sorted(component))
    return circles


def test_circles_are_found():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _circles(edges) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_no_two_modules_import_each_other():
    graph = _graph()
    edges = {
        module: set(graph.find_modules_directly_imported_by(module)) & graph.modules
        for module in graph.modules
    }
    assert _circles(edges) == []


def test_leaderboard_imports_of_estimation_are_the_core_and_the_seam():
    graph = _graph()
    crossing = {
        (importer, imported)
        for importer in graph.modules
        if importer.split(".")[0] == "leaderboard"
        for imported in graph.find_modules_directly_imported_by(importer)
        if imported.split(".")[0] == "estimation"
        and not imported.startswith(LEADERBOARD_MAY_IMPORT)
        and not (
            importer.startswith("leaderboard.management.commands.")
            and imported.startswith(COMMANDS_MAY_IMPORT)
        )
    }
    assert crossing == set()


def test_the_contract_lists_every_other_estimation_module():
    """import-linter's contract is a list of forbidden modules; a new module of
    estimation must join it (the test above checks the rule itself either way)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (contract,) = [c for c in config["contracts"] if c["source_modules"] == ["leaderboard"]]
    present = {
        f"estimation.{path.stem}"
        for path in (ROOT / "estimation").iterdir()
        if (path.suffix == ".py" or (path / "__init__.py").exists())
        and path.stem not in {"__init__", "apps", "core", "requests", "migrations"}
    }
    assert present == set(contract["forbidden_modules"])


def test_the_import_contracts_hold():
    result = subprocess.run(
        [str(Path(sys.executable).with_name("lint-imports")), "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
