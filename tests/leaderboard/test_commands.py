import io
import subprocess
import sys
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.db.models import F
from django.utils import timezone

from estimation.models import RecomputeState, ResultSnapshot
from leaderboard.models import Benchmark, Submission
from leaderboard.services import Problem, problems_text
from tests.engine_memo import engine_results_remembered
from tests.factories import stored_scores
from tests.processes import embedded_env
from tests.reference_data import REPO_ROOT

pytestmark = pytest.mark.django_db


@pytest.mark.external_data("fernandez_delgado_2014")
def test_import_benchmark_takes_a_real_wide_file_with_missing_cells(capsys, external_data):
    path = external_data / "fd2014_accuracy_179classifiers.csv"
    # --queue: the import is what this checks (the analysis of 179 x 121 is not needed).
    call_command(
        "import_benchmark", str(path), "--slug", "fd2014", "--metric", "accuracy", "--queue"
    )
    benchmark = Benchmark.objects.get(slug="fd2014")
    # 121 x 179 cells of which 449 are empty (PROVENANCE.md).
    assert len(stored_scores(submission__benchmark=benchmark)) == 121 * 179 - 449
    assert benchmark.submissions.filter(status=Submission.Status.ACCEPTED).count() == 179
    assert "imported 21210 results of 179 algorithms on 121 datasets" in capsys.readouterr().out


def test_import_benchmark_ranking_file_makes_a_ranking_only_benchmark(tmp_path):
    path = tmp_path / "ranks.csv"
    path.write_text("dataset,algorithm,rank\nd1,a,1\nd1,b,2\nd2,b,1\nd2,a,2\n")
    call_command("import_benchmark", str(path), "--slug", "ranked")
    benchmark = Benchmark.objects.get(slug="ranked")
    assert benchmark.ranking_only
    assert benchmark.metrics.get().direction == "lower"


def test_import_benchmark_names_a_new_metric_after_the_files_metric_column(tmp_path):
    # Named 'score' by default, every row was refused as a result for an unknown metric.
    path = tmp_path / "long.csv"
    rows = "".join(
        f"d{d},{a},{0.5 + d / 100 + (a == 'b') / 10},accuracy\n" for d in range(3) for a in "ab"
    )
    path.write_text("dataset,algorithm,score,metric\n" + rows)
    call_command("import_benchmark", str(path), "--slug", "named", "--queue", stdout=io.StringIO())
    benchmark = Benchmark.objects.get(slug="named")
    assert [metric.name for metric in benchmark.metrics.all()] == ["accuracy"]
    assert len(stored_scores(submission__benchmark=benchmark)) == 6

    two = tmp_path / "two.csv"
    two.write_text("dataset,algorithm,score,metric\nd1,a,0.5,accuracy\nd1,a,3,time\n")
    with pytest.raises(CommandError) as caught:
        call_command("import_benchmark", str(two), "--slug", "two")
    assert str(caught.value) == (
        "the file has results for 2 metrics ('accuracy', 'time'); a new benchmark takes "
        "one: name it with --metric"
    )
    assert not Benchmark.objects.filter(slug="two").exists()


def test_a_problem_repeated_on_many_rows_is_told_once(tmp_path):
    path = tmp_path / "many.csv"
    rows = "".join(f"d{d},a,x\n" for d in range(90))
    path.write_text("dataset,algorithm,score\nd90,a,0.5\nd91,a,nan\n" + rows)
    with pytest.raises(CommandError) as caught:
        call_command("import_benchmark", str(path), "--slug", "many")
    assert str(caught.value) == (
        f"{path}: 91 errors in the results file:\n"
        "  line 3, column \"score\": 'nan' is not a finite number\n"
        "  lines 4, 5, 6, 7, 8 and 44 more, column \"score\": 'x' is not a number\n"
        "  ... and 41 more\n"  # the parser keeps the first 50
        "nothing was imported; --on-error skip imports the valid rows and lists the rest"
    )


def test_problems_text_groups_by_column_and_message_and_keeps_whole_input_problems():
    problems = [
        Problem("the file is empty"),
        Problem("'x' is not a number", field="score", line=2),
        Problem("'x' is not a number", field="score", line=3),
        Problem("'x' is not a number", field="fold", line=3),
    ]
    assert problems_text(problems) == (
        "  the file is empty\n"
        "  lines 2 and 3, column \"score\": 'x' is not a number\n"
        "  line 3, column \"fold\": 'x' is not a number"
    )


def test_import_benchmark_with_a_bad_row_writes_nothing(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("dataset,algorithm,score\nd1,a,0.5\nd1,b,nan\nd2,a,x\n")
    with pytest.raises(CommandError) as caught:
        call_command("import_benchmark", str(path), "--slug", "bad")
    assert "line 3, column \"score\": 'nan' is not a finite number" in str(caught.value)
    assert "line 4, column \"score\": 'x' is not a number" in str(caught.value)
    assert not Benchmark.objects.filter(slug="bad").exists()


def test_load_demo_is_idempotent_and_recompute_builds_snapshots(capsys):
    call_command("load_demo")
    call_command("load_demo")
    assert "already loaded" in capsys.readouterr().out
    assert set(Benchmark.objects.values_list("slug", flat=True)) == {
        "demsar-2006",
        "tabzilla-hard-top3",
        "simulated-new-vs-old",
        "tabzilla-accuracy-log-loss",
    }
    # the commands are under test, not the engine: its results for the demos are reused
    # when this process has computed them already (the explore pages' fixture)
    with engine_results_remembered():
        call_command("recompute", "demsar-2006")
        snapshot = ResultSnapshot.objects.get(benchmark__slug="demsar-2006")
        assert snapshot.status == "ready"
        call_command("recompute", "--all")
    assert "already up to date" in capsys.readouterr().out
    with pytest.raises(CommandError, match="no benchmark with slug 'nope'"):
        call_command("recompute", "nope")


DEMSAR_CSV = REPO_ROOT / "data" / "published" / "demsar2006" / "demsar2006_table6_auc.csv"
DEMSAR_ALGORITHMS = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]


def _board_algorithms(client, slug: str) -> list[str]:
    response = client.get(f"/api/benchmarks/{slug}/snapshots/latest/")
    assert response.status_code == 200, response.content
    return sorted(response.json()["board"]["input"]["algorithms"])


@pytest.mark.django_db(transaction=True)
def test_import_benchmark_on_the_embedded_default_computes_and_the_api_serves_the_board(
    client, settings
):
    # make dev's mode: the import's recompute starts a thread of the command's process,
    # which would die with it; the command waits for it and reports the result.
    settings.RECOMPUTE_IN_THREAD = True
    out = io.StringIO()
    call_command("import_benchmark", str(DEMSAR_CSV), "--slug", "my-study", stdout=out)
    assert out.getvalue().splitlines()[-1] == "my-study: results score v1 ready"
    assert _board_algorithms(client, "my-study") == sorted(DEMSAR_ALGORITHMS)
    with pytest.raises(CommandError, match="--queue needs Celery workers"):
        call_command("recompute", "my-study", "--queue")


def test_recompute_computes_when_no_ready_snapshot_matches_the_accepted_input(client, settings):
    settings.RECOMPUTE_LEASE_SECONDS = 1
    out = io.StringIO()
    call_command("import_benchmark", str(DEMSAR_CSV), "--slug", "s", "--queue", stdout=out)
    assert out.getvalue().splitlines()[-1] == "s: results queued for the workers"
    assert client.get("/api/benchmarks/s/snapshots/latest/").status_code == 404
    # As a run killed with its process leaves it: its revision counted as computed, its
    # lease still held for a moment, and no snapshot.
    RecomputeState.objects.filter(benchmark__slug="s").update(
        computed_revision=F("requested_revision"),
        lease_owner="thread-of-a-dead-command",
        lease_expires_at=timezone.now() + timedelta(seconds=1),
    )
    call_command("recompute", "s", stdout=out)
    assert out.getvalue().splitlines()[-1] == "s: score v1 ready"
    assert _board_algorithms(client, "s") == sorted(DEMSAR_ALGORITHMS)
    call_command("recompute", "s", stdout=out)
    assert out.getvalue().splitlines()[-1] == "s: already up to date (score v1 ready)"


# Each a process of its own that then exits, as `manage.py ...` typed in a shell.
IMPORT = """
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
call_command("import_benchmark", {csv!r}, "--slug", "my-study")
"""
READ_BACK = """
import django
django.setup()
from django.core.management import call_command
from django.test import Client
call_command("recompute", "my-study")
client = Client(HTTP_HOST="127.0.0.1")
latest = client.get("/api/benchmarks/my-study/snapshots/latest/")
print(latest.status_code, sorted(latest.json()["board"]["input"]["algorithms"]))
unknown = client.get("/api/no/such/thing/")
print(unknown.status_code, unknown["Content-Type"], len(unknown.content))
"""


def test_the_embedded_default_imports_computes_and_answers_json(tmp_path):
    # make dev's settings (SQLite, recomputes in threads, DEBUG on).
    env = embedded_env(tmp_path / "podium.sqlite3")

    def run(script: str) -> list[str]:
        done = subprocess.run(
            [sys.executable, "-c", script], cwd=REPO_ROOT, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout.splitlines()

    assert run(IMPORT.format(csv=str(DEMSAR_CSV)))[-1] == "my-study: results score v1 ready"
    recomputed, served, unknown = run(READ_BACK)[-3:]
    assert recomputed == "my-study: already up to date (score v1 ready)"
    assert served == f"200 {sorted(DEMSAR_ALGORITHMS)}"
    assert unknown.startswith("404 application/json ")


def test_recompute_leaves_a_live_run_to_finish_and_says_so(settings):
    settings.RECOMPUTE_LEASE_SECONDS = 0  # waits 5 s for the other run's lease
    call_command(
        "import_benchmark", str(DEMSAR_CSV), "--slug", "s", "--queue", stdout=io.StringIO()
    )
    RecomputeState.objects.filter(benchmark__slug="s").update(
        lease_owner="a-worker-mid-run", lease_expires_at=timezone.now() + timedelta(hours=1)
    )
    out = io.StringIO()
    call_command("recompute", "s", stdout=out)
    assert out.getvalue() == (
        "s: still being computed by another run (see its snapshots/status/)\n"
    )
    assert not ResultSnapshot.objects.filter(benchmark__slug="s").exists()


def test_the_import_report_counts_in_the_singular(tmp_path):
    path = tmp_path / "one.csv"
    path.write_text("dataset,algorithm,score\nd1,a,0.9\n")
    out = io.StringIO()
    call_command("import_benchmark", str(path), "--slug", "one", "--queue", stdout=out)
    assert "one: imported 1 result of 1 algorithm on 1 dataset\n" in out.getvalue()
