"""`manage.py analyze` shows the pages' stages on standard error; stdout stays the payload."""

from __future__ import annotations

import functools
import io
import json
import re
import subprocess
import sys

import pytest
from django.core.management import CommandError, call_command

from estimation.console_progress import ConsoleProgress
from tests.contract_validation import validate
from tests.reference_data import PUBLISHED_DATA, REPO_ROOT

DEMSAR_AUC = PUBLISHED_DATA / "demsar2006" / "demsar2006_table6_auc.csv"
# The stages analyze() reports, as the recompute service stores them for the pages.
STAGES = [
    "ranking",
    "estimators",
    "tests",
    "within_dataset",
    "bootstrap",
    "evaluation",
    "advisor",
    "done",
]


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
    progress("bootstrap", 0.4)  # a new stage is drawn at once
    clock.now += 2.5
    progress.tick()  # and redrawn while it lasts, so its elapsed time moves
    progress.finish()
    assert out == [
        "\ranalyze: [" + "#" * 10 + "-" * 14 + "]  40% bootstrap (0.0 s)\x1b[K",
        "\ranalyze: [" + "#" * 10 + "-" * 14 + "]  40% bootstrap (2.5 s)\x1b[K",
        "\ranalyze: [" + "#" * 24 + "] 100% done (2.5 s)\x1b[K\n",
    ]


def test_a_failed_run_leaves_the_last_stage_and_a_fresh_line_for_the_error():
    out: list[str] = []
    progress = ConsoleProgress(out.append, terminal=True, delay=0.0, clock=FakeClock())
    progress("tests", 0.15)
    progress.finish(failed=True)
    assert len(out) == 2 and out[-1] == "\n" and "done" not in "".join(out)


def test_a_short_run_writes_nothing():
    out: list[str] = []
    with ConsoleProgress(out.append, terminal=True, delay=60.0, interval=0.01) as progress:
        for stage in STAGES:
            progress(stage, 0.5)
    assert out == []


def run_analyze(*args: str) -> tuple[str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    call_command(
        "analyze", str(DEMSAR_AUC), "--bootstrap", "300", *args, stdout=stdout, stderr=stderr
    )
    return stdout.getvalue(), stderr.getvalue()


def stages_seen(stderr: str) -> list[str]:
    lines = stderr.splitlines()
    assert all(re.fullmatch(r"analyze: +\d+% \w+ \(\d+\.\d s\)", line) for line in lines), lines
    return [line.split()[2] for line in lines]


def test_json_stays_clean_on_stdout_while_every_stage_goes_to_stderr():
    stdout, stderr = run_analyze("--json", "--progress-after", "0")
    payload = json.loads(stdout)  # nothing but the payload
    validate(payload)
    assert payload["board"]["input"]["n_datasets"] == 14
    assert stages_seen(stderr) == ["loading", *STAGES]


def test_the_report_too_keeps_progress_off_stdout():
    stdout, stderr = run_analyze("--progress-after", "0")
    assert "Friedman chi2" in stdout and "analyze:" not in stdout
    assert stages_seen(stderr)[-1] == "done"


def test_quiet_and_verbosity_zero_turn_progress_off():
    for flag in ("--quiet", "--verbosity=0"):
        stdout, stderr = run_analyze("--json", "--progress-after", "0", flag)
        assert stderr == "" and json.loads(stdout)["board"]["input"]["n_datasets"] == 14


def test_a_short_run_shows_nothing_with_the_default_delay(monkeypatch):
    # The run's clock stands still: "short" must not depend on how loaded the machine is.
    frozen = functools.partial(ConsoleProgress, clock=FakeClock())
    monkeypatch.setattr("estimation.management.commands.analyze.ConsoleProgress", frozen)
    stdout, stderr = run_analyze("--json")
    assert stderr == "" and json.loads(stdout)


@pytest.mark.parametrize("value", ["-1", "nan", "inf", "soon"])
def test_progress_after_must_be_a_number_of_seconds(value):
    with pytest.raises(CommandError, match="is not a number of seconds"):
        run_analyze("--progress-after", value)


def test_a_real_process_keeps_stdout_clean_json_and_reports_on_stderr():
    command = [sys.executable, "manage.py", "analyze", str(DEMSAR_AUC), "--bootstrap", "300"]
    shown = subprocess.run(
        [*command, "--json", "--progress-after", "0"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["board"]["input"]["n_datasets"] == 14
    assert stages_seen(shown.stderr) == ["loading", *STAGES]  # a pipe: one line per stage
    quiet = subprocess.run(
        [*command, "--json", "--progress-after", "0", "--quiet"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert quiet.returncode == 0 and quiet.stderr == ""
    payloads = [json.loads(result.stdout) for result in (shown, quiet)]
    assert payloads[0] == payloads[1]  # no timings in the payload: identical runs
