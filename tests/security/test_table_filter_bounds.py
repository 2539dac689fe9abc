"""The table filter's size parameters cost no more for a hostile reader than a normal one.

The review sent 8 KB ``size_min``/``size_max`` values anonymously: the size pattern's
adjacent ``\\s*`` backtracked quadratically (0.5-0.8 CPU s a request), and a number of
hundreds of digits overflowed the float (a 500).
"""

from __future__ import annotations

import time

import pytest
from django.http import QueryDict
from django.test import Client

from frontend.readers.table_filters import parse_size, table_filter_from
from tests.factories import make_benchmark, make_submission

HOSTILE = ["1" + " " * 8000 + "x", "1" + "\t" * 8000 + "B!", "9" * 400, "1." + "0" * 8000 + "q"]


def test_hostile_sizes_are_refused_unread():
    # Work bounded by CPU time with a wide margin: the 40 parses below took 6.8 s before
    # (0.34 s for each whitespace one), and take well under a millisecond now.
    started = time.process_time()
    for _ in range(10):
        for raw in HOSTILE:
            query = QueryDict(mutable=True)
            query["size_min"], query["size_max"] = raw, raw
            chosen = table_filter_from(query)
            assert chosen.size_min is None and chosen.size_max is None
            assert any(p.startswith("size_min=") for p in chosen.problems)
    assert time.process_time() - started < 1.0
    # What people write still reads.
    assert [parse_size(s) for s in ("350M", " 7B ", "1.5b", "120000", "2 t")] == [
        350 * 10**6,
        7 * 10**9,
        1_500_000_000,
        120_000,
        2 * 10**12,
    ]


@pytest.mark.django_db
def test_the_page_answers_a_hostile_size_without_an_error():
    benchmark = make_benchmark("open-board")
    make_submission(benchmark, "alpha", {"d1": 0.9})
    for raw in ("9" * 400, "1" + " " * 3000 + "x"):
        response = Client().get("/b/open-board/", {"size_min": raw})
        assert response.status_code == 200
