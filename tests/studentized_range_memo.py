"""The studentized range's slow values kept between runs, for the tests that only use them.

Building an interpolant (``studentized_range._sf_interpolant``) integrates scipy's
survival function at about 140 points, 0.6 s for a finite ``df``, and Tukey's critical
value (``within_dataset._tukey_critical_q``) is scipy's ``ppf``, 0.15 s; the test over
200 random tables meets some 36 pairs ``(m, df)`` and spent most of its time there
(15.4 of 21.8 s in its first block). Both are deterministic: the function's source,
scipy and numpy (and the CPU features numpy and OpenBLAS are told to use) fix the
result, so each is pickled under a key of those in pytest's cache folder
(``.pytest_cache/d/``) and read back by later runs and by the other processes of a run.
A changed source or library is another key, so the first run after it computes again.
The tests of these functions (``OWN_TESTS``) always compute them; so does a run without
pytest's cache (``-p no:cacheprovider``, as ``scripts/cpu_variants.sh`` runs the core).
"""

from __future__ import annotations

import inspect
import pickle
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from estimation.core import studentized_range, within_dataset
from tests.reference_memo import store, version_key

# Modules that test these functions (or this memo) themselves: never given a stored value.
OWN_TESTS = frozenset({"tests/core/test_within_dataset.py", "tests/test_studentized_range_memo.py"})

# The functions kept, by module and name (each cached in its process by lru_cache).
KEPT = ((studentized_range, "_sf_interpolant"), (within_dataset, "_tukey_critical_q"))

# Read or computed in this process: (folder, arguments) -> value.
_VALUES: dict[tuple[str, tuple[Any, ...]], Any] = {}


def _version_key(module: Any, name: str) -> str:
    """What the value depends on besides its arguments: the source of the function and
    of what it calls in its module (the whole module), and the libraries
    (tests/reference_memo.py's key)."""
    return version_key(name, inspect.getsource(module))


def _kept(compute: Callable[..., Any], folder: Path) -> Callable[..., Any]:
    """``compute`` reading a stored value before computing one, and storing what it
    computes (written whole, then renamed: another process reads nothing or all)."""
    folder.mkdir(parents=True, exist_ok=True)

    def call(*args: Any) -> Any:
        key = (str(folder), args)
        if key in _VALUES:
            return _VALUES[key]
        path = folder / ("-".join(repr(arg) for arg in args) + ".pickle")
        if path.exists():
            _VALUES[key] = pickle.loads(path.read_bytes())
            return _VALUES[key]
        _VALUES[key] = compute(*args)
        store(path, _VALUES[key])
        return _VALUES[key]

    return call


@contextmanager
def studentized_range_kept(folder: Path) -> Iterator[None]:
    """Within the block, the functions of ``KEPT`` reuse stored values."""
    with pytest.MonkeyPatch.context() as patch:
        for module, name in KEPT:
            compute = getattr(module, name)
            patch.setattr(module, name, _kept(compute, folder / _version_key(module, name)))
        yield
