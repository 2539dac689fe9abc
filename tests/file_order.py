"""The longest test files first, so that no process of a parallel run idles at its end.

With ``--dist loadfile`` each file goes whole to one process, handed out in the order of
the collection as each process runs short of work. A long file handed out last keeps
its process busy after the other has finished (pytest-xdist's own order, by number of
tests, sent the one-test files of 8 to 16 s last). Here the collection is ordered by
what each file's tests took in earlier runs, longest first (the longest-processing-time
rule), from durations kept in pytest's cache (``.pytest_cache``, key ``CACHE_KEY``);
a file never timed goes first, as a file of unknown length may be the longest.
The Makefile's ``check`` turns pytest-xdist's own reordering off
(``--no-loadscope-reorder``) so that this order is the one used. Only the processes
of a parallel run reorder; a run in one process keeps the usual order.
"""

from __future__ import annotations

import math
import os
from collections import defaultdict
from pathlib import Path

import pytest

# Seconds (setup + call + teardown) of each test as last measured, by node id.
CACHE_KEY = "podium/test_seconds"


def _file(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


class LongestFilesFirst:
    """In a process of a parallel run, sorts the tests left after deselection by their
    file's stored total time, longest first; a file's tests stay together and in their
    order, files of equal time (or none timed) in collection order."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]):
        cache = getattr(config, "cache", None)  # none with -p no:cacheprovider
        seconds: dict[str, float] = cache.get(CACHE_KEY, {}) if cache is not None else {}
        if not seconds:
            return
        total: dict[str, float] = defaultdict(float)
        first: dict[str, int] = {}
        for index, item in enumerate(items):
            name = _file(item.nodeid)
            first.setdefault(name, index)
            total[name] += seconds.get(item.nodeid, math.inf)
        items.sort(key=lambda item: (-total[_file(item.nodeid)], first[_file(item.nodeid)]))


class DurationRecorder:
    """Adds up each test's phases as the reports arrive (in the controlling process of
    a parallel run, from every worker) and stores them at the end of the session."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.seconds: dict[str, float] = defaultdict(float)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[report.nodeid] += report.duration

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        cache = getattr(self.config, "cache", None)
        if cache is None or not self.seconds:
            return
        stored: dict[str, float] = cache.get(CACHE_KEY, {})
        stored.update(self.seconds)
        root = self.config.rootpath
        kept = {
            nodeid: round(value, 3)
            for nodeid, value in stored.items()
            if (Path(root) / _file(nodeid)).is_file()
        }
        cache.set(CACHE_KEY, kept)


def file_order_register(config: pytest.Config) -> None:
    """The recorder in the controlling (or only) process, the order in xdist's workers."""
    if hasattr(config, "workerinput"):
        # PODIUM_TEST_FILE_ORDER=0 keeps the collection order (to measure the saving).
        if os.environ.get("PODIUM_TEST_FILE_ORDER", "1") == "0":
            return
        config.pluginmanager.register(LongestFilesFirst(), "podium-longest-files-first")
    else:
        config.pluginmanager.register(DurationRecorder(config), "podium-test-durations")
