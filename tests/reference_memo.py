"""Peer libraries' reference values kept between runs, for the tests that compare with them.

Some references are slow to compute: scipy's Wilcoxon test on a tied sample of at most
13 is a permutation test over 2**n sign flips, scipy's studentized range integrates
numerically at each point, baycomp samples 50,000 posterior draws. They are
deterministic: the library's code (its version and numpy's), the CPU features numpy and
OpenBLAS are told to use and the arguments fix the result. So :func:`reference_kept`
pickles each under a key of those in pytest's cache folder (``.pytest_cache/d/``), read
back by later runs and by the other processes of a run. The key also holds the source of
the module under test and of the function that computes the reference: a change to
either is another key, so the first run after it computes with the library again; so
does a run without pytest's cache (``-p no:cacheprovider``, as
``scripts/cpu_variants.sh`` runs the core).

Only a peer library's values are kept, never the project's: ``compute`` calls the
library on its arguments and nothing of the project (the arguments themselves are
whatever the test gives the library, computed afresh each run).
"""

from __future__ import annotations

import hashlib
import inspect
import os
import pickle
import platform
import shutil
import tempfile
from collections.abc import Callable, Iterable
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

CPU_VARIABLES = ("NPY_DISABLE_CPU_FEATURES", "NPY_ENABLE_CPU_FEATURES", "OPENBLAS_CORETYPE")

FOLDER = "podium-references"

# Read or computed in this process: path -> value.
_VALUES: dict[Path, Any] = {}
# The version keys computed in this process: (name, module, compute, libraries) -> key.
_VERSIONS: dict[tuple[Any, ...], str] = {}
# Version folders this process has made sure of (and pruned the stale ones beside).
_READY: set[Path] = set()


def version_key(*sources: str, libraries: Iterable[str] = ()) -> str:
    """A digest of what a kept value depends on besides its arguments: the ``sources``,
    numpy's, scipy's and the ``libraries``' versions, Python's, and the CPU variables."""
    parts = [
        *sources,
        platform.python_version(),
        *(f"{name}={metadata.version(name)}" for name in ("numpy", "scipy", *libraries)),
        *(f"{variable}={os.environ.get(variable, '')}" for variable in CPU_VARIABLES),
    ]
    return hashlib.sha256("\n\0".join(parts).encode()).hexdigest()[:20]


def store(path: Path, value: Any) -> None:
    """Write ``value`` pickled, whole, then rename: another process reads nothing or all."""
    with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as handle:
        handle.write(pickle.dumps(value))
    os.replace(handle.name, path)


def _folder(root: Path, name: str, compute: Callable[..., Any], version: str) -> Path:
    """The folder of the values of ``name`` computed by ``compute`` at ``version``; the
    first time in a process, the folders of its other versions (stale: a source or a
    library has changed) go. (Two test modules may keep the same kind of reference,
    each with its own ``compute``: each keeps its own folders.)"""
    kept_by = root / name / f"{compute.__module__}.{compute.__qualname__}"
    folder = kept_by / version
    if folder not in _READY:
        if not folder.is_dir():
            for stale in kept_by.glob("*"):
                if stale.name != version:  # another process may have just made it
                    shutil.rmtree(stale, ignore_errors=True)
        folder.mkdir(parents=True, exist_ok=True)
        _READY.add(folder)
    return folder


def reference_kept(
    cache: pytest.Cache | None,
    name: str,
    compute: Callable[..., Any],
    *args: Any,
    under_test: ModuleType,
    libraries: Iterable[str] = (),
) -> Any:
    """``compute(*args)``, a peer library's reference, read back if an earlier run (or
    another process) computed it with the same sources, libraries, CPU variables and
    arguments; computed and stored otherwise, and always without a ``cache``.

    ``name`` names the kind of reference (a folder); ``under_test`` is the project's
    module the test compares with it; ``libraries`` the peer libraries ``compute`` calls
    besides numpy and scipy (their versions enter the key). The arguments must pickle
    (their pickle is the key: numpy arrays by dtype, shape and bytes)."""
    if cache is None:
        return compute(*args)
    libraries = tuple(libraries)
    known = (name, under_test, compute, libraries)
    if known not in _VERSIONS:
        _VERSIONS[known] = version_key(
            inspect.getsource(under_test), inspect.getsource(compute), libraries=libraries
        )
    version = _VERSIONS[known]
    argument_key = hashlib.sha256(pickle.dumps(args, protocol=5)).hexdigest()[:32]
    path = _folder(cache.mkdir(FOLDER), name, compute, version) / f"{argument_key}.pickle"
    if path in _VALUES:
        return _VALUES[path]
    if path.exists():
        _VALUES[path] = pickle.loads(path.read_bytes())
        return _VALUES[path]
    value = compute(*args)
    store(path, value)
    _VALUES[path] = value
    return value
