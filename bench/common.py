"""Timing, synthetic data and markdown tables shared by every suite."""

from __future__ import annotations

import contextlib
import io
import json
import os
import resource
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Options:
    """Command-line options every suite understands."""

    repeats: int = 5
    quick: bool = False
    seed: int = 0
    minutes: float = 15.0  # soak: how long the load runs
    faults: str = ""  # soak: comma-separated fault kinds (empty: all)
    keep_logs: str = ""  # soak: a folder to copy the stack's logs into (empty: none)


def best_time(
    fn: Callable[[], Any],
    *,
    repeats: int,
    warmup: bool = True,
    budget: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[float, Any]:
    """Minimum time of ``repeats`` calls (after one warm-up call) and the last result;
    wall time unless ``clock`` is another (``time.process_time``: this process's CPU).

    With ``budget`` (seconds of ``clock``), repeats stop once that much time has been
    spent, and the warm-up is skipped when one call already takes more than half of it.
    """
    result = None
    spent = 0.0
    if warmup:
        started = clock()
        result = fn()
        spent = clock() - started
        if budget is not None and spent > budget / 2:
            return spent, result
    best = float("inf")
    for _ in range(max(1, repeats)):
        started = clock()
        result = fn()
        elapsed = clock() - started
        best = min(best, elapsed)
        spent += elapsed
        if budget is not None and spent > budget:
            break
    return best, result


@contextlib.contextmanager
def quiet():
    """Swallow what a peer library prints (autorank prints even with verbose=False)."""
    with contextlib.redirect_stdout(io.StringIO()):
        yield


def synthetic_scores(
    m: int, n: int, *, folds: int = 0, seed: int = 0
) -> tuple[np.ndarray, np.ndarray | None]:
    """Scores of ``m`` algorithms on ``n`` datasets, larger is better, no ties, no gaps.

    Algorithm skill rises linearly (so tests find some differences), each dataset has
    its own difficulty and each (dataset, algorithm) its own noise. With ``folds`` the
    fold-level scores are returned too, and the dataset scores are their means.
    """
    rng = np.random.default_rng(seed)
    skill = np.linspace(0.0, 1.0, m)
    difficulty = rng.normal(0.0, 1.0, size=(n, 1))
    cell = rng.normal(0.0, 0.6, size=(n, m))
    if not folds:
        return skill + difficulty + cell, None
    fold_values = (skill + difficulty + cell)[:, None, :] + rng.normal(0.0, 0.3, size=(n, folds, m))
    return fold_values.mean(axis=1), fold_values


def result_table(m: int, n: int, *, folds: int = 0, seed: int = 0):
    from estimation.core.table import ResultTable

    values, fold_values = synthetic_scores(m, n, folds=folds, seed=seed)
    return ResultTable(
        datasets=tuple(f"dataset-{i:05d}" for i in range(n)),
        algorithms=tuple(f"algorithm-{j:04d}" for j in range(m)),
        values=values,
        fold_values=fold_values,
    )


def score_matrix_import(
    values: np.ndarray,
    *,
    algorithm: str = "algorithm-{:04d}",
    dataset: str = "dataset-{:05d}",
    **benchmark_fields: Any,
):
    """A one-metric benchmark ("score", higher is better) holding ``values[i, j]`` as
    algorithm j's score on dataset i, imported as one submission batch; returns it (its
    recompute is queued, not run). The names are the formats filled with i and j."""
    from leaderboard import services
    from leaderboard.models import Submission

    n, m = values.shape
    benchmark = services.benchmark_create(metrics=[("score", "higher")], **benchmark_fields)
    services.submissions_create(
        benchmark=benchmark,
        submitter=None,
        source=Submission.Source.IMPORT,
        entries=[
            services.SubmissionInput(
                algorithm=algorithm.format(j),
                scores=[
                    services.ScoreInput(dataset=dataset.format(i), value=float(values[i, j]))
                    for i in range(n)
                ],
            )
            for j in range(m)
        ],
    )
    return benchmark


def fmt_seconds(value: float | None) -> str:
    if value is None:
        return "–"
    if value < 1e-3:
        return f"{value * 1e6:.0f} µs"
    if value < 1:
        return f"{value * 1e3:.1f} ms"
    return f"{value:.2f} s"


def fmt_ratio(peer: float | None, ours: float | None) -> str:
    if peer is None or ours is None or ours <= 0:
        return "–"
    return f"{peer / ours:.1f}x"


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def machine_line() -> str:
    import platform

    return (
        f"{os.cpu_count()} CPU cores, Python {platform.python_version()}, "
        f"numpy {np.__version__}, {platform.platform(terse=True)}"
    )


def max_rss_mib() -> float:
    """Peak resident set size of this process so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_child(
    module: str,
    *args: str,
    timeout: float,
    verbose: bool = False,
    source: Path | None = None,
    max_memory_gib: float | None = None,
) -> dict:
    """Run ``python -m <module> <args>`` in a fresh interpreter; it prints one JSON line.

    With ``verbose`` the child's stderr (its progress) goes to ours. With ``source`` (a
    directory holding another version of ``estimation``, see :func:`engine_at`) the
    child imports the engine from there and everything else from this tree. With
    ``max_memory_gib`` the child's address space is capped (a runaway engine then gets
    a MemoryError instead of taking the machine's memory).
    """

    def cap_memory() -> None:
        if max_memory_gib is not None:
            limit = int(max_memory_gib * 2**30)
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    env = None
    if source is not None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(source), str(ROOT)])}
    completed = subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=source or ROOT,
        env=env,
        preexec_fn=cap_memory if max_memory_gib is not None else None,
        stdout=subprocess.PIPE,
        stderr=None if verbose else subprocess.PIPE,
        text=True,
        timeout=timeout,
        check=False,
    )
    if completed.returncode != 0:
        raise RuntimeError(f"{module} {' '.join(args)} failed:\n{(completed.stderr or '')[-3000:]}")
    return json.loads(completed.stdout.strip().splitlines()[-1])


def engine_at(revision: str, directory: Path) -> Path | None:
    """The analysis engine (``estimation/core``) of a git revision, extracted to ``directory``.

    Returns ``None`` when this checkout has no such revision (a shallow clone, or not a
    git checkout at all), so that a suite can say so instead of failing.
    """
    archive = subprocess.run(
        [
            "git",
            "-C",
            str(ROOT),
            "archive",
            "--format=tar",
            revision,
            "estimation/__init__.py",
            "estimation/core",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    if archive.returncode != 0:
        return None
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(directory, filter="data")
    return directory
