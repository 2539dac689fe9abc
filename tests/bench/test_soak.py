"""The soak (``python -m bench soak``): its measures on made-up samples, and a short run
of the whole harness with one fault so that it keeps working."""

from __future__ import annotations

from dataclasses import asdict

import pytest

from bench import suite_soak as soak
from bench.suite_soak import Accepted, Fault, OrphanSample, PageSample, Served


def served(at: float, version: int | None, slug: str = "b", failure: bool = False) -> Served:
    return Served(at, slug, version, version, "ready", failure)


INPUTS = {
    ("b", 1): frozenset({10}),
    ("b", 2): frozenset({10, 11}),
    ("b", 3): frozenset({10, 11, 12}),
}
ACCEPTED = [
    Accepted("k10", "b", 10, 0.0),
    Accepted("k11", "b", 11, 5.0),
    Accepted("k12", "b", 12, 20.0),
]
SAMPLES = [served(1.0, 1), served(6.0, 1), served(9.0, 2), served(30.0, 2), served(52.0, 3)]


def test_an_input_is_served_at_the_first_sample_whose_version_holds_it():
    first = soak.served_times(ACCEPTED, SAMPLES, INPUTS)
    assert first == {"k10": 1.0, "k11": 9.0, "k12": 52.0}


def test_an_input_never_in_a_served_version_is_never_served():
    first = soak.served_times(ACCEPTED, SAMPLES[:4], INPUTS)
    assert first["k12"] is None
    assert soak.recovery_after(25.0, ACCEPTED, first) is None


def test_recovery_counts_from_the_fault_end_only_inputs_accepted_before_it():
    first = soak.served_times(ACCEPTED, SAMPLES, INPUTS)
    assert soak.recovery_after(7.0, ACCEPTED, first) == 2.0  # k11 served at 9
    assert soak.recovery_after(25.0, ACCEPTED, first) == 27.0  # k12 served at 52
    assert soak.recovery_after(10.0, ACCEPTED, first) == 0.0  # all before 10 served by then
    # Only what came after the previous fault's end: k11 (accepted at 5, served at 9).
    assert soak.recovery_after(7.0, ACCEPTED, first, since=4.0) == 2.0
    assert soak.recovery_after(7.0, ACCEPTED, first, since=6.0) == 0.0


def test_stale_is_the_longest_stretch_without_a_new_version_while_an_input_waited():
    first = soak.served_times(ACCEPTED, SAMPLES, INPUTS)
    measures = soak.staleness("b", ACCEPTED, SAMPLES, first, end=60.0)
    # k12 waited from 20 to 52; the version before changed at 9: stale 20 -> 52.
    assert measures == {"longest_wait_s": 32.0, "longest_stale_s": 32.0}
    assert soak.version_changes(SAMPLES, "b") == [9.0, 52.0]


def test_a_fault_is_visible_when_an_alarm_absent_before_it_shows_within_two_minutes():
    mail = frozenset({"mail goes nowhere"})
    pages = [
        PageSample(90.0, 200, mail),
        PageSample(105.0, 503, frozenset()),
        PageSample(150.0, 200, mail | {"worker silent for # minutes"}),
    ]
    fault = Fault("worker_kill", started=100.0, ended=102.0)
    seen = soak.visibility(fault, pages, [served(99.0, 1), served(130.0, 1, failure=True)])
    assert seen["status_page_s"] == 50.0
    assert seen["status_page_shows"] == ["worker silent for # minutes"]
    assert seen["status_page_answers"] == {"503": 1, "200": 1}
    assert seen["status_api_s"] == 30.0
    late = soak.visibility(fault, pages, [], within=40.0)
    assert late["status_page_s"] is None and late["status_api_s"] is None
    # The next fault began at 120 s: the alarm at 150 s is that one's.
    cut = soak.visibility(fault, pages, [], until=120.0)
    assert cut["status_page_s"] is None and cut["window_s"] == 20.0


def test_an_alarm_already_shown_before_the_fault_does_not_count():
    pages = [PageSample(90.0, 200, frozenset({"x"})), PageSample(110.0, 200, frozenset({"x"}))]
    failing = [served(95.0, 1, failure=True), served(110.0, 1, failure=True)]
    seen = soak.visibility(Fault("redis_restart", 100.0, 105.0), pages, failing)
    assert seen["status_page_s"] is None and seen["status_api_s"] is None


def test_status_page_alarms_are_its_failed_elements_named_by_their_row():
    html = (
        '<p class="status-failed" role="alert" data-testid="status-warning">No worker '
        "seen for 3 minutes</p>"
        '<tr><th scope="row">broker</th><td><span class="status-failed">failing</span></td></tr>'
        '<tr><th scope="row">database</th><td>ok</td></tr>'
        '<tr data-testid="status-process" data-role="worker"><td>worker</td>'
        '<th scope="row">worker@vm</th><td>podium</td><td><span class="status-failed">'
        "2 minutes ago</span></td></tr>"
    )
    assert soak.page_alarms(html) == {
        "No worker seen for # minutes",
        "broker: failing",
        "worker@vm: # minutes ago",
    }


def test_computing_with_no_task_counts_runs_of_two_samples_or_more():
    samples = [
        OrphanSample(10.0, "b", 4, 0.15),
        OrphanSample(20.0, "b", 4, 0.15),
        OrphanSample(30.0, "b", 4, 0.15),
        OrphanSample(40.0, "c", 2, 0.5),  # once: a task that was just finishing
    ]
    assert soak.orphan_episodes(samples) == [
        {"slug": "b", "version": 4, "samples": 3, "seconds": 20.0, "progress": 0.15}
    ]


def test_the_schedule_spreads_the_faults_and_leaves_time_to_recover():
    offsets = soak.fault_schedule(900.0, soak.FAULT_KINDS)
    assert [kind for _, kind in offsets] == list(soak.FAULT_KINDS)
    assert offsets[0][0] == 60.0 and offsets[-1][0] == 750.0
    assert soak.fault_schedule(60.0, ("worker_kill",)) == [(9.0, "worker_kill")]


def test_unknown_faults_are_named():
    with pytest.raises(ValueError, match="unknown \\['oom'\\]"):
        soak.SoakConfig(faults=("oom",))


@pytest.mark.integration
def test_a_short_soak_with_one_worker_kill_measures_everything(tmp_path):
    """The whole harness for 40 s of load with one fault: every key acknowledged is
    accounted for, the fault has its measures, the monitors sampled, the logs are kept
    where asked."""
    config = soak.SoakConfig(
        minutes=40 / 60,
        faults=("worker_kill",),
        benchmarks=2,
        writers=2,
        readers=1,
        submissions_per_minute=30,
        drain_seconds=90,
    )
    result = soak.soak(config, log=lambda line: None, keep_logs=tmp_path / "logs")
    kept = {path.name for path in (tmp_path / "logs").iterdir()}
    assert {"gunicorn.log", "worker.log", "worker-bulk.log", "beat.log"} <= kept
    assert "ready." in (tmp_path / "logs" / "worker.log").read_text()  # Celery's own line
    keys = result["keys"]
    assert keys["acknowledged"] > 0
    assert keys["lost"] == 0 and keys["duplicated"] == 0
    [fault] = result["faults"]
    assert fault["kind"] == "worker_kill" and fault["lasted_s"] >= 0
    assert {"recovery_s", "status_page_s", "status_api_s", "status_page_answers"} <= set(fault)
    assert set(result["benchmarks"]) == {"soak-0", "soak-1"}
    assert result["status_api_samples"] > 0 and result["status_page_samples"] > 0
    result["command"] = "test"
    assert "worker_kill" in soak.report(result)


def test_the_report_names_the_command_every_fault_and_benchmark():
    fault = {
        "kind": "postgres_stop",
        "detail": "pg_ctl stop -m fast, 45 s, start",
        "at_s": 300.0,
        "lasted_s": 45.5,
        "recovery_s": None,
        "recovery_own_s": None,
        "window_s": 120.0,
        "status_page_s": 30.0,
        "status_page_shows": ["failing"],
        "status_page_answers": {"503": 9, "200": 15},
        "status_api_s": None,
    }
    result = {
        "command": "python -m bench soak",
        "measured": "2026-12-05 08:00 UTC",
        "machine": "2 CPU cores",
        "seconds": 1300.0,
        "config": {**asdict(soak.SoakConfig()), "faults": ["postgres_stop"]},
        "load_seconds": 900.0,
        "drain_seconds": 240.0,
        "keys": {
            "acknowledged": 500,
            "lost": 0,
            "duplicated": 0,
            "stored_not_acknowledged": 0,
            "gave_up": 0,
            "refused": 0,
        },
        "worker_restarts": ["worker"],
        "tracebacks": {"gunicorn": 3},
        "load_average": {"start": [9.0, 8.0, 7.0], "end": [10.0, 9.0, 8.0]},
        "answers": {"write": {"201": 500, "503": 20}},
        "faults": [fault],
        "benchmarks": {
            "soak-0": {
                "accepted": 500,
                "never_served": 2,
                "versions_served": 90,
                "longest_wait_s": 400.0,
                "longest_stale_s": 380.0,
            }
        },
        "computing_with_no_task": {"samples": 0, "episodes": 0, "longest_s": 0.0, "detail": []},
    }
    text = soak.report(result)
    assert "`python -m bench soak`" in text
    assert (
        "| postgres_stop | pg_ctl stop -m fast, 45 s, start | 300 | 45.5 | never (in the run) |"
        in text
    )
    assert "yes, after 30 s (failing)" in text
    assert "never (in the run) | never (in the run) |" in text
    assert "| soak-0 | 500 | 90 | 400 | 380 | 2 |" in text
    assert "9.0/8.0/7.0" in text


def test_tracebacks_are_counted_per_log_record_not_per_chained_exception():
    log = "\n".join(
        [
            "[12:00:00: ERROR/ForkPoolWorker-1] analysis failed",
            "Traceback (most recent call last):",
            '  File "x.py", line 1, in f',
            "psycopg.errors.AdminShutdown: terminating connection",
            "",
            "The above exception was the direct cause of the following exception:",
            "",
            "Traceback (most recent call last):",
            "django.db.utils.OperationalError: terminating connection",
            "[12:00:01: ERROR/MainProcess] Task handler raised error: WorkerLostError()",
            "Traceback (most recent call last):",
            "billiard.einfo.ExceptionWithTraceback: ",
            '"""',
            "Traceback (most recent call last):",
            "billiard.exceptions.WorkerLostError: Worker exited prematurely",
            '"""',
            "[12:00:02: INFO/MainProcess] Task succeeded",
        ]
    )
    assert soak.tracebacks_logged(log) == 2
    assert soak.tracebacks_logged("[12:00:00: WARNING] 503 GET /: database down") == 0
