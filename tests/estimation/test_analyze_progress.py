"""`manage.py analyze` shows the pages' stages on standard error; stdout stays the payload."""

from __future__ import annotations

import functools
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
from django.core.management import call_command

from estimation.console_progress import ConsoleProgress
from estimation.management.commands import analyze as analyze_command
from tests.reference_data import PUBLISHED_DATA, REPO_ROOT

DEMSAR_AUC = PUBLISHED_DATA / "demsar2006" / "demsar2006_table6_auc.csv"
# The stages analyze() reports, as the recompute service stores them for the pages.
STAGES = ["ranking", "estimators", "tests", "within_dataset", "bootstrap", "evaluation", "done"]


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_nothing_is_written_before_the_delay_then_one_line_per_stage_off_a_terminal():
    out: list[str] = []
    clock = FakeClock()
    progress = ConsoleProgress(out.append, terminal=False, delay=1.5, clock=clock)
    progress("ranking", 0.02)
    clock.now += 1.0
    progress.tick()
    assert out == [] and not progress.shown
    progress("bootstrap", 0.4)
    clock.now += 1.0
    progress.tick()
    progress.tick()  # same stage again: no repeated line
    clock.now += 3.0
    progress("evaluation", 0.75)
    progress.tick()
    progress("done", 1.0)
    progress.finish()
    assert out == [
        "analyze:  40% bootstrap (2.0 s)\n",
        "analyze:  75% evaluation (5.0 s)\n",
        "analyze: 100% done (5.0 s)\n",
    ]


def test_a_terminal_gets_one_line_redrawn_with_a_bar_and_a_final_newline():
    out: list[str] = []
    clock = FakeClock()
    progress = ConsoleProgress(out.append, terminal=True, delay=0.0, clock=clock)
    progress("bootstrap", 0.4)
    progress.tick()
    clock.now += 2.5
    progress.tick()  # the same stage is redrawn so its elapsed time moves
    progress.finish()
    assert out[0] == "\r" + "analyze: [" + "#" * 10 + "-" * 14 + "]  40% bootstrap (0.0 s)\x1b[K"
    assert out[1].endswith("40% bootstrap (2.5 s)\x1b[K")
    assert out[2] == "\r" + "analyze: [" + "#" * 24 + "] 100% done (2.5 s)\x1b[K\n"
    assert all("\n" not in text for text in out[:2])


def test_a_failed_run_leaves_the_last_stage_and_a_fresh_line_for_the_error():
    out: list[str] = []
    progress = ConsoleProgress(out.append, terminal=True, delay=0.0, clock=FakeClock())
    progress("tests", 0.15)
    progress.tick()
    progress.finish(failed=True)
    assert out[-1] == "\n" and "done" not in "".join(out)


def test_a_short_run_writes_nothing():
    out: list[str] = []
    with ConsoleProgress(out.append, terminal=True, delay=60.0, interval=0.01) as progress:
        progress("ranking", 0.02)
    assert out == []


def without_delay(monkeypatch) -> None:
    """Show progress from the first moment, so a small input exercises the command's wiring."""
    monkeypatch.setattr(
        analyze_command,
        "ConsoleProgress",
        functools.partial(ConsoleProgress, delay=0.0, interval=0.005),
    )


def run_analyze(*args: str) -> tuple[str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    call_command(
        "analyze", str(DEMSAR_AUC), "--bootstrap", "300", *args, stdout=stdout, stderr=stderr
    )
    return stdout.getvalue(), stderr.getvalue()


def test_json_stays_clean_on_stdout_while_stages_go_to_stderr(monkeypatch):
    without_delay(monkeypatch)
    stdout, stderr = run_analyze("--json")
    payload = json.loads(stdout)  # nothing but the payload
    assert payload["input"]["n_datasets"] == 14
    lines = stderr.splitlines()
    assert lines and all(re.fullmatch(r"analyze: +\d+% \w+ \(\d+\.\d s\)", line) for line in lines)
    seen = [line.split()[2] for line in lines]
    assert seen[-1] == "done" and set(seen) <= {"loading", *STAGES}
    assert seen == sorted(seen, key=["loading", *STAGES].index)  # stages in order


def test_quiet_and_verbosity_zero_turn_progress_off(monkeypatch):
    without_delay(monkeypatch)
    for flag in ("--quiet", "--verbosity=0"):
        stdout, stderr = run_analyze("--json", flag)
        assert stderr == "" and json.loads(stdout)["input"]["n_datasets"] == 14
    stdout, stderr = run_analyze("--quiet")
    assert stderr == "" and "Friedman" in stdout


def test_a_short_run_shows_nothing_with_the_default_delay():
    stdout, stderr = run_analyze("--json")
    assert stderr == "" and json.loads(stdout)


def test_a_long_run_in_a_real_process_reports_stages_on_stderr_only(tmp_path: Path):
    """60 algorithms x 1000 datasets, 1000 replicates: 2-3 s of analysis on a quiet laptop."""
    rng = np.random.default_rng(15)
    scores = rng.random((1000, 60)) + 0.002 * np.arange(60)
    path = tmp_path / "big.csv"
    header = "dataset," + ",".join(f"alg{j}" for j in range(60))
    rows = [f"d{i}," + ",".join(f"{v:.5f}" for v in row) for i, row in enumerate(scores)]
    path.write_text("\n".join([header, *rows]) + "\n")
    command = [sys.executable, "manage.py", "analyze", str(path), "--json"]
    result = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["input"]["n_datasets"] == 1000
    lines = result.stderr.splitlines()  # not a terminal: one plain line per stage seen
    assert lines[-1].startswith("analyze: 100% done (")
    assert any(" bootstrap (" in line or " evaluation (" in line for line in lines), lines
