"""Threads over the independent batches of the largest analyses.

numpy and scipy release the GIL inside their loops, so batches that share nothing (the
pairs of the signed-rank tests, the replicates of a bootstrap refit) run on several
cores from threads, with no copy of the data. Each batch's arithmetic is its own, so
the results are the same to the bit whatever the number of threads.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

__all__ = ["analysis_threads", "run_interleaved"]

Item = TypeVar("Item")

# Each thread holds its own working arrays (tens of MB): a cap keeps the peak memory of
# one analysis bounded on a many-core machine.
MAX_THREADS = 4


def analysis_threads() -> int:
    """Threads one analysis may use: ``PODIUM_ANALYSIS_THREADS`` if set (1 turns them
    off), else the CPUs this process may run on, at most :data:`MAX_THREADS`."""
    configured = os.environ.get("PODIUM_ANALYSIS_THREADS", "").strip()
    if configured:
        try:
            value = int(configured)
        except ValueError:
            raise ValueError(
                f"PODIUM_ANALYSIS_THREADS must be a positive integer, got {configured!r}"
            ) from None
        if value < 1:
            raise ValueError(f"PODIUM_ANALYSIS_THREADS must be a positive integer, got {value}")
        return value
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(MAX_THREADS, usable or 1))


def run_interleaved(work: Callable[[Sequence[Item]], None], items: Sequence[Item]) -> None:
    """``work(items[k::threads])`` for every ``k``, one thread each; errors propagate.

    Interleaving balances the threads when the cost of the items drifts along the
    sequence. With one thread (or one item) ``work`` runs here, on all items.
    """
    threads = min(analysis_threads(), len(items))
    if threads <= 1:
        work(items)
        return
    with ThreadPoolExecutor(max_workers=threads) as pool:
        for done in [pool.submit(work, items[k::threads]) for k in range(threads)]:
            done.result()
