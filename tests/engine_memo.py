"""The engine's results remembered by input, for fixtures that build the same demo
snapshots again and again (each module its own copy in the database, for isolation).

The core is pure: the same table and settings give the same result, so a build that
meets an input this run has analysed before (in this process or another xdist worker
of the run) reuses that result, and everything
around it (reading the scores, the leases, the stored sections and their contract
check) still runs. A test of the engine itself never uses it.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import pickle
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from estimation.core.analysis import analyze, analyze_advisor, analyze_uncertainty
from estimation.core.contract import to_json
from estimation.recompute import refresh, uncertainty
from estimation.tables import fingerprint

# One per process (an xdist worker): kept for the session, keyed by what the result
# depends on. The callbacks (progress, stop) change no number, so they are not in the key.
_RESULTS: dict[tuple[str, ...], Any] = {}

# Shared by the processes of one run (tests/conftest.py makes the folder and removes it
# at the end): a result one xdist worker computed is read by the others, whichever
# worker the modules that build the same boards were given to.
SHARED_VARIABLE = "PODIUM_ENGINE_MEMO_DIR"

# PODIUM_TEST_ENGINE_MEMO=0 computes every result afresh (to measure what the memo saves).
SWITCH = "PODIUM_TEST_ENGINE_MEMO"


def memo_on() -> bool:
    return os.environ.get(SWITCH, "1") != "0"


def _shared_file(key: tuple[str, ...]) -> Path | None:
    folder = os.environ.get(SHARED_VARIABLE)
    if not folder:
        return None
    name = hashlib.sha256(json.dumps(key).encode()).hexdigest()
    return Path(folder) / f"{name}.pickle"


def _remembered(name: str, compute: Callable[..., Any], key_of: Callable[..., str]):
    def call(table, settings, *args, **kwargs):
        key = (name, fingerprint(table, settings), key_of(*args, **kwargs))
        if key in _RESULTS:
            return _RESULTS[key]
        shared = _shared_file(key)
        if shared is None:
            _RESULTS[key] = compute(table, settings, *args, **kwargs)
            return _RESULTS[key]
        # One process computes an input; another that meets it meanwhile waits for it.
        with open(shared.with_suffix(".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if shared.exists():
                _RESULTS[key] = pickle.loads(shared.read_bytes())
            else:
                _RESULTS[key] = compute(table, settings, *args, **kwargs)
                shared.write_bytes(pickle.dumps(_RESULTS[key]))
        return _RESULTS[key]

    return call


def _flags(*, advisor: bool = True, uncertainty: bool = True, **_: Any) -> str:
    return f"advisor={advisor} uncertainty={uncertainty}"


def _board(board, **_: Any) -> str:
    return json.dumps(to_json(board), sort_keys=True)


def analyze_remembered(table, settings, **flags):
    """``analyze(table, settings, **flags)``, computed once per process for each input."""
    if not memo_on():
        return analyze(table, settings, **flags)
    return _remembered("analyze", analyze, _flags)(table, settings, **flags)


# The engine's entry points the recompute services call, by name, as the core defines them.
_ENGINE = {
    "analyze": (analyze, _flags),
    "analyze_uncertainty": (analyze_uncertainty, _board),
    "analyze_advisor": (analyze_advisor, lambda **_: ""),
}


@contextmanager
def engine_results_remembered() -> Iterator[None]:
    """Within the block, the recompute services reuse the engine's earlier results.

    Only the core's own functions are remembered: one a test has replaced (a failure or
    a look inside a stage) is called as it is, every time. Blocks may nest."""
    engine = _ENGINE if memo_on() else {}
    with pytest.MonkeyPatch.context() as patch:
        for name, (compute, key_of) in engine.items():
            for module in (refresh, uncertainty):
                if getattr(module, name, None) is compute:
                    patch.setattr(module, name, _remembered(name, compute, key_of))
        yield
