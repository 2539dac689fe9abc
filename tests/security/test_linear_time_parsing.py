"""No value a user sends makes a parser backtrack.

The Papers with Code importer read a score with ``\\s*(%?)\\s*$`` after the number: on
"1", many spaces, "x" the two runs of optional spaces split the spaces every way before
giving up, quadratic in the value's length (a 40 KB file held a worker 45 s, 150 KB got
it killed). The table filters' parameter count had the same tail. Each is now read by
hand (strip, cut the suffix, ``float``); these tests bound the CPU time of a 200 KB
hostile value (a quadratic read takes hours on it) and check the read stays linear.
"""

from __future__ import annotations

import json
import time

import pytest

from frontend.readers.table_filters import parse_size, table_filter_from
from leaderboard.ingest.formats import read_imported
from leaderboard.ingest.formats.common import ResultsImportError

# A wide margin: the fixed reads take milliseconds; the quadratic ones took 45 s at 40 KB.
CPU_SECONDS = 2.0
HOSTILE_LENGTH = 200_000


def hostile(length: int, filler: str = " ") -> str:
    """A number, a long run of what the pattern may repeat, and then what it may not."""
    return "1" + filler * length + "x"


def cpu_seconds(action) -> float:
    started = time.process_time()
    action()
    return time.process_time() - started


def pwc_file(score: str) -> dict[str, bytes]:
    row = {"model_name": "m", "metrics": {"Accuracy": score, "F1": "90.1"}}
    document = [{"task": "t", "datasets": [{"dataset": "d", "sota": {"rows": [row]}}]}]
    return {"evaluation-tables.json": json.dumps(document).encode()}


def read_pwc(files: dict[str, bytes]):
    return read_imported(files, format="pwc")


@pytest.mark.parametrize("filler", [" ", "0", "\t", " %"])
def test_a_hostile_papers_with_code_score_is_read_in_linear_time(filler):
    files = pwc_file(hostile(HOSTILE_LENGTH // len(filler), filler))
    seconds = cpu_seconds(lambda: read_pwc(files))
    assert seconds < CPU_SECONDS, f"a {HOSTILE_LENGTH} B score took {seconds:.1f} s of CPU"
    imported = read_pwc(files)
    assert imported.parsed.metrics == ("F1",)  # the hostile value is no number: left out
    assert "1 value that is not a number was left out" in imported.notes


def test_papers_with_code_scores_read_as_before():
    for raw, expected in [("88.5%", 88.5), (" 88.5 % ", 88.5), ("1,234.5", 1234.5), ("1e-3", 1e-3)]:
        imported = read_pwc(pwc_file(raw))
        assert imported.parsed.values.tolist() == pytest.approx([expected, 90.1]), raw
    for raw in ["-", "N/A", "1.2M params", "inf", "nan", "50%%", "%", "1_0", "\uff11"]:
        imported = read_pwc(pwc_file(raw))
        assert imported.parsed.metrics == ("F1",), raw


def test_the_read_grows_linearly_with_the_value():
    """Four times the value, about four times the work (a quadratic read: sixteen)."""
    small, large = (pwc_file(hostile(n)) for n in (HOSTILE_LENGTH, 4 * HOSTILE_LENGTH))
    best_small = min(cpu_seconds(lambda: read_pwc(small)) for _ in range(3))
    best_large = min(cpu_seconds(lambda: read_pwc(large)) for _ in range(3))
    assert best_large < 8 * best_small + 0.05, (best_small, best_large)


@pytest.mark.parametrize("filler", [" ", "0", "\t"])
def test_a_hostile_parameter_count_in_the_table_filter_is_read_in_linear_time(filler):
    text = hostile(HOSTILE_LENGTH, filler)
    seconds = cpu_seconds(lambda: table_filter_from({"size_min": text, "size_max": text}))
    assert seconds < CPU_SECONDS, f"a {HOSTILE_LENGTH} B size took {seconds:.1f} s of CPU"
    assert parse_size(text) is None
    assert table_filter_from({"size_min": text}).problems


def test_parameter_counts_read_as_before():
    for text, expected in [
        ("350M", 350 * 10**6),
        ("7B", 7 * 10**9),
        ("1.5b", 15 * 10**8),
        ("120000", 120_000),
        (" 2 k ", 2000),
        ("3T", 3 * 10**12),
    ]:
        assert parse_size(text) == expected, text
    for text in ["", "x", "1.", ".5", "1x", "1e5", "-1", "1.5.5", "9" * 400, "\uff11\uff12"]:
        assert parse_size(text) is None, text


def test_an_unreadable_hostile_score_is_not_a_crash():
    files = {"evaluation-tables.json": json.dumps([{"task": hostile(HOSTILE_LENGTH)}]).encode()}
    with pytest.raises(ResultsImportError) as refused:
        read_pwc(files)
    assert "no pwc results" in str(refused.value)
