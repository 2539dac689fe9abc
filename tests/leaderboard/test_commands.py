import pytest
from django.core.management import CommandError, call_command

from estimation.models import ResultSnapshot
from leaderboard.models import Benchmark, Score, Submission

pytestmark = pytest.mark.django_db


@pytest.mark.external_data("fernandez_delgado_2014")
def test_import_benchmark_takes_a_real_wide_file_with_missing_cells(capsys, external_data):
    path = external_data / "fd2014_accuracy_179classifiers.csv"
    call_command("import_benchmark", str(path), "--slug", "fd2014", "--metric", "accuracy")
    benchmark = Benchmark.objects.get(slug="fd2014")
    # 121 x 179 cells of which 449 are empty (PROVENANCE.md).
    assert Score.objects.filter(submission__benchmark=benchmark).count() == 121 * 179 - 449
    assert benchmark.submissions.filter(status=Submission.Status.ACCEPTED).count() == 179
    assert "imported 21210 results of 179 algorithms on 121 datasets" in capsys.readouterr().out


def test_import_benchmark_ranking_file_makes_a_ranking_only_benchmark(tmp_path):
    path = tmp_path / "ranks.csv"
    path.write_text("dataset,algorithm,rank\nd1,a,1\nd1,b,2\nd2,b,1\nd2,a,2\n")
    call_command("import_benchmark", str(path), "--slug", "ranked")
    benchmark = Benchmark.objects.get(slug="ranked")
    assert benchmark.ranking_only
    assert benchmark.metrics.get().direction == "lower"


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
    call_command("recompute", "demsar-2006")
    snapshot = ResultSnapshot.objects.get(benchmark__slug="demsar-2006")
    assert snapshot.status == "ready"
    call_command("recompute", "--all")
    assert "already up to date" in capsys.readouterr().out
    with pytest.raises(CommandError, match="no benchmark with slug 'nope'"):
        call_command("recompute", "nope")
