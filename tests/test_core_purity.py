"""estimation/core is a library: importable in a notebook with numpy and scipy alone."""

import ast
import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parents[1] / "estimation" / "core"
FORBIDDEN = ("django", "rest_framework", "celery", "kombu", "pandas")


def imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_core_sources_import_no_framework():
    offenders = {
        str(path.relative_to(CORE)): sorted(imported_roots(path) & set(FORBIDDEN))
        for path in CORE.rglob("*.py")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_core_imports_without_loading_django():
    code = (
        "import sys, pkgutil, importlib, estimation.core as core\n"
        "for m in pkgutil.iter_modules(core.__path__): importlib.import_module('estimation.core.' + m.name)\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r}]\n"
        "assert not bad, bad\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=CORE.parents[1], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
