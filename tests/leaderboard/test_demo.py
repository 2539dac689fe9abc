"""The demo data of `make dev`: an open benchmark and a demo maintainer (local only)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from leaderboard.demo import DEMOS, OPEN_DEMO
from leaderboard.models import Benchmark, Metric, Submission
from leaderboard.selectors import benchmark_list_visible
from leaderboard.services import submission_create, user_is_maintainer
from tests.engine_memo import engine_results_remembered
from tests.factories import entry, make_user

pytestmark = pytest.mark.django_db

ACCOUNT = {"username": "demo-maintainer", "password": "podium-demo"}


def test_load_demo_makes_the_maintainer_once_and_prints_it_once(settings, capsys):
    settings.DEBUG = True
    settings.PODIUM_DEMO_MAINTAINER = ACCOUNT
    call_command("load_demo")
    first = capsys.readouterr().out
    call_command("load_demo")
    second = capsys.readouterr().out

    assert "username 'demo-maintainer', password 'podium-demo'" in first
    assert "podium-demo" not in second
    user = get_user_model().objects.get(username="demo-maintainer")
    assert user.check_password("podium-demo")
    for benchmark in Benchmark.objects.filter(slug__in=list(DEMOS)):
        assert user_is_maintainer(user=user, benchmark=benchmark)
    policies = dict(Benchmark.objects.values_list("slug", "submission_policy"))
    assert policies[OPEN_DEMO] == Benchmark.SubmissionPolicy.OPEN
    others = [p for slug, p in policies.items() if slug != OPEN_DEMO]
    assert others == ["moderated"] * (len(DEMOS) - 1)


@pytest.mark.parametrize("debug", [False, True])
def test_no_demo_account_outside_local_settings(settings, capsys, debug):
    """Production settings have no PODIUM_DEMO_MAINTAINER; and DEBUG off refuses it too."""
    settings.DEBUG = debug
    settings.PODIUM_DEMO_MAINTAINER = ACCOUNT if not debug else None
    call_command("load_demo")
    assert not get_user_model().objects.filter(username="demo-maintainer").exists()
    assert "password" not in capsys.readouterr().out


def test_production_settings_define_no_demo_account():
    from config.settings import base

    assert base.PODIUM_DEMO_MAINTAINER is None


def test_a_newcomers_submission_to_the_open_demo_counts_at_once():
    call_command("load_demo")
    benchmark = Benchmark.objects.get(slug=OPEN_DEMO)
    counts = benchmark_list_visible(user=None).get(pk=benchmark.pk)
    datasets = list(benchmark.datasets.values_list("name", flat=True))
    submission = submission_create(
        benchmark=benchmark,
        submitter=make_user("newcomer"),
        entry=entry("my-classifier", {name: 0.9 for name in datasets}),
        source=Submission.Source.FORM,
    )
    assert submission.status == Submission.Status.ACCEPTED
    after = benchmark_list_visible(user=None).get(pk=benchmark.pk)
    assert after.n_algorithms == counts.n_algorithms + 1
    assert after.n_accepted == counts.n_accepted + 1


def test_the_demo_has_a_published_two_metric_benchmark_for_the_pareto_view(client):
    """TabZilla's accuracy and log loss of the same runs (real results, not simulated):
    the Pareto view of `make dev` has something to show."""
    from estimation.services import snapshot_refresh
    from leaderboard.demo import tabzilla_full_scores

    call_command("load_demo")
    benchmark = Benchmark.objects.get(slug="tabzilla-accuracy-log-loss")
    assert [(m.name, m.higher_is_better) for m in benchmark.metrics.order_by("-is_primary")] == [
        ("accuracy", True),
        ("log loss", False),
    ]
    scores = tabzilla_full_scores()
    assert len(scores) == 18 and {len(by_dataset) for by_dataset in scores.values()} == {104}
    # PROVENANCE.md: CatBoost on Australian, accuracy 0.872463768115942 and the lowest
    # log loss there (normalized 0, so exactly the column's minimum).
    australian = scores["CatBoost"]["openml__Australian__146818"]
    assert australian == (0.872463768115942, 0.3026770878904542)
    with engine_results_remembered():  # the demo's numbers, computed once per process
        snapshot_refresh(benchmark_id=benchmark.pk)
    view = client.get(f"/b/{benchmark.slug}/pareto/").context["view"]
    assert view.not_applicable is None and view.n_datasets == (104, 104)
    assert len(view.points) == 18 and view.front


def test_the_open_demo_refuses_an_auc_of_1_7_on_arrival():
    # it was once accepted and took the best mean; the demos' metrics have ranges now
    from leaderboard.services import ScoreInput, SubmissionInput, ValidationFailed

    call_command("load_demo")
    benchmark = Benchmark.objects.get(slug=OPEN_DEMO)
    datasets = list(benchmark.datasets.values_list("name", flat=True))
    scores = [ScoreInput(name, 0.9, line=k) for k, name in enumerate(datasets, start=2)]
    scores[1] = ScoreInput(datasets[1], 1.7, line=3)
    with pytest.raises(ValidationFailed) as caught:
        submission_create(
            benchmark=benchmark,
            submitter=make_user("newcomer"),
            entry=SubmissionInput(algorithm="too-good", scores=scores),
            source=Submission.Source.FORM,
        )
    (problem,) = caught.value.problems
    assert (problem.line, problem.field) == (3, "value")
    assert "outside the valid range of metric 'AUC', [0, 1]" in problem.message
    ranges = {
        (m.benchmark.slug, m.name): (m.min_value, m.max_value)
        for m in Metric.objects.filter(benchmark__slug__in=list(DEMOS)).select_related("benchmark")
    }
    assert ranges[(OPEN_DEMO, "AUC")] == (0.0, 1.0)
    assert ranges[("tabzilla-accuracy-log-loss", "log loss")] == (0.0, None)


def test_the_demo_algorithms_carry_the_families_their_sources_give():
    """TabZilla's table types its algorithms (gbdt, neural, baseline); Demšar's four are
    variants of C4.5; the simulated study and the names a table lacks get none."""
    from leaderboard.demo import DEMSAR_FAMILY
    from leaderboard.models import Algorithm

    call_command("load_demo")

    def families(slug: str) -> dict[str, str]:
        return dict(Algorithm.objects.filter(benchmark__slug=slug).values_list("name", "family"))

    full = families("tabzilla-accuracy-log-loss")
    assert full["CatBoost"] == full["XGBoost"] == "gradient-boosted trees"
    assert full["SAINT"] == "neural network" and full["KNN"] == "baseline"
    assert set(full.values()) == {"gradient-boosted trees", "neural network", "baseline"}
    top3 = families("tabzilla-hard-top3")
    assert top3["LightGBM"] == "gradient-boosted trees" and top3["TabPFN"] == ""
    assert set(families("demsar-2006").values()) == {DEMSAR_FAMILY}
    assert set(families("simulated-new-vs-old").values()) == {""}
