"""Demo benchmarks: three published tables (one with two metrics, for the Pareto view)
and one seeded simulation with folds.

Demšar's table is open (a submission counts on arrival), so a newcomer sees their own
result move the leaderboard; the others are moderated, so a maintainer has something
to decide. In local settings, ``load_demo`` also makes a demo maintainer account
(``PODIUM_DEMO_MAINTAINER``) that maintains all of them.
"""

from __future__ import annotations

import csv
from collections.abc import Callable

import numpy as np
from django.contrib.auth import get_user_model
from django.db import transaction

from leaderboard.models import Benchmark, Submission
from leaderboard.published import (
    published_table,
    tabzilla_algorithm_families,
    tabzilla_full_scores,
)
from leaderboard.services import ScoreInput, SubmissionInput, benchmark_create, submissions_create


def demo_load() -> list[Benchmark]:
    """Create the demo benchmarks that do not exist yet; return those created."""
    created = []
    for slug, build in DEMOS.items():
        if not Benchmark.objects.filter(slug=slug).exists():
            with transaction.atomic():
                created.append(build())
    return created


def demo_maintainer_ensure(*, username: str, password: str) -> bool:
    """Make ``username`` a maintainer of every demo benchmark; True if the account is new.

    An existing account keeps its password (someone may have changed it).
    """
    user, created = get_user_model().objects.get_or_create(username=username)
    if created:
        user.set_password(password)
        user.save(update_fields=["password"])
    for benchmark in Benchmark.objects.filter(slug__in=list(DEMOS)):
        benchmark.maintainers.add(user)
    return created


def _read_csv(study: str, name: str) -> list[dict[str, str]]:
    with open(published_table(study, name), newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _import(benchmark: Benchmark, entries: list[SubmissionInput]) -> None:
    submissions_create(
        benchmark=benchmark, submitter=None, entries=entries, source=Submission.Source.IMPORT
    )


def _load_demsar() -> Benchmark:
    benchmark = benchmark_create(
        slug="demsar-2006",
        title="Demšar 2006: C4.5 variants (AUC)",
        description=(
            "AUC of four variants of C4.5 on 14 UCI datasets: Demšar (2006), Table 6. "
            "The textbook example of Friedman and Nemenyi tests across datasets. "
            "Open to submissions: try your own classifier's AUC and watch the ranking move."
        ),
        citation=(
            "J. Demšar. Statistical Comparisons of Classifiers over Multiple Data Sets. "
            "Journal of Machine Learning Research 7:1-30, 2006."
        ),
        licence="JMLR, free access",
        # A range, so that an AUC of 1.7 is refused on arrival (issue 28), on every entry point.
        metrics=[("AUC", "higher", {"min_value": 0.0, "max_value": 1.0})],
        submission_policy=Benchmark.SubmissionPolicy.OPEN,
    )
    rows = _read_csv("demsar2006", "demsar2006_table6_auc.csv")
    algorithms = [name for name in rows[0] if name != "dataset"]
    _import(
        benchmark,
        [
            SubmissionInput(
                algorithm=algorithm,
                # the table's four algorithms are variants of one learner (its caption)
                algorithm_metadata={"family": DEMSAR_FAMILY},
                scores=[
                    ScoreInput(dataset=row["dataset"], value=float(row[algorithm])) for row in rows
                ],
            )
            for algorithm in algorithms
        ],
    )
    return benchmark


DEMSAR_FAMILY = "decision tree (C4.5)"


def _tabzilla_metadata(algorithm: str, families: dict[str, str]) -> dict:
    """An algorithm's family as TabZilla's own table types it; none for an algorithm
    the table does not list (a top-3 list names some the table lacks)."""
    return {"family": families[algorithm]} if algorithm in families else {}


TABZILLA_CITATION = (
    "D. McElfresh et al. When Do Neural Nets Outperform Boosted Trees on Tabular "
    "Data? NeurIPS 2023 Datasets and Benchmarks Track. arXiv:2305.02997."
)
TABZILLA_LICENCE = "Apache-2.0 (naszilla/tabzilla)"


def _load_tabzilla_top3() -> Benchmark:
    benchmark = benchmark_create(
        slug="tabzilla-hard-top3",
        title="TabZilla hard datasets: published top-3 lists",
        description=(
            "The three best of 19+ tabular learners on each of the 36 hardest TabZilla "
            "datasets, as printed in McElfresh et al. (2023), Table 4. Only the top three "
            "are known, so only estimators that use the first K positions apply."
        ),
        citation=TABZILLA_CITATION,
        licence=TABZILLA_LICENCE,
        metrics=[("rank", "lower")],
        ranking_only=True,
        top_k=3,
    )
    rows = _read_csv("tabzilla_top3", "tabzilla_table4_top3.csv")
    positions = {"first": 1.0, "second": 2.0, "third": 3.0}
    by_algorithm: dict[str, list[ScoreInput]] = {}
    for row in rows:
        for column, rank in positions.items():
            by_algorithm.setdefault(row[column], []).append(
                ScoreInput(dataset=row["dataset"], value=rank)
            )
    families = tabzilla_algorithm_families()
    _import(
        benchmark,
        [
            SubmissionInput(
                algorithm=name,
                scores=scores,
                algorithm_metadata=_tabzilla_metadata(name, families),
            )
            for name, scores in by_algorithm.items()
        ],
    )
    return benchmark


def _load_tabzilla_full() -> Benchmark:
    benchmark = benchmark_create(
        slug="tabzilla-accuracy-log-loss",
        title="TabZilla: two metrics",
        description=(
            "Accuracy and log loss of 18 tuned tabular learners on 104 datasets, the data "
            "of McElfresh et al. (2023), Table 1: see the trade-offs between the two."
        ),
        citation=TABZILLA_CITATION,
        licence=TABZILLA_LICENCE,
        metrics=[
            ("accuracy", "higher", {"min_value": 0.0, "max_value": 1.0}),
            ("log loss", "lower", {"min_value": 0.0}),
        ],
    )
    families = tabzilla_algorithm_families()
    _import(
        benchmark,
        [
            SubmissionInput(
                algorithm=algorithm,
                algorithm_metadata=_tabzilla_metadata(algorithm, families),
                scores=[
                    score
                    for dataset, (accuracy, log_loss) in sorted(by_dataset.items())
                    for score in (
                        ScoreInput(dataset=dataset, value=accuracy, metric="accuracy"),
                        ScoreInput(dataset=dataset, value=log_loss, metric="log loss"),
                    )
                ],
            )
            for algorithm, by_dataset in sorted(tabzilla_full_scores().items())
        ],
    )
    return benchmark


SIMULATED_TASKS = 10
SIMULATED_FOLDS = 25


def simulated_study_scores(seed: int = 2026) -> dict[str, np.ndarray]:
    """Accuracy per (task, fold) of four models; see the benchmark description.

    "new" beats "old" by 0.3 points on eight tasks (well inside fold noise) and loses by
    eight points on two; "old" is steady. Fold effects are shared by all models (the same
    folds), so within-task tests are paired.
    """
    rng = np.random.default_rng(seed)
    task_level = rng.uniform(0.72, 0.92, size=(SIMULATED_TASKS, 1))
    fold_effect = rng.normal(0.0, 0.01, size=(SIMULATED_TASKS, SIMULATED_FOLDS))
    offsets = {
        "old": np.zeros(SIMULATED_TASKS),
        "new": np.where(np.arange(SIMULATED_TASKS) < 2, -0.08, 0.003),
        "baseline": np.full(SIMULATED_TASKS, -0.02),
        "legacy": np.full(SIMULATED_TASKS, -0.035),
    }
    noise_sd = {"old": 0.006, "new": 0.006, "baseline": 0.008, "legacy": 0.012}
    return {
        name: np.clip(
            task_level
            + fold_effect
            + offset[:, None]
            + rng.normal(0.0, noise_sd[name], size=(SIMULATED_TASKS, SIMULATED_FOLDS)),
            0.0,
            1.0,
        ).round(5)
        for name, offset in offsets.items()
    }


def _load_simulated() -> Benchmark:
    benchmark = benchmark_create(
        slug="simulated-new-vs-old",
        title="Simulated study: the new model that wins small and fails big",
        description=(
            "Four models on ten tasks, 25 cross-validation folds each, generated by seeded "
            "code (leaderboard/demo.py). 'new' wins most tasks by margins far inside the fold "
            "noise but fails badly on two; 'old' is consistently near the top. Compare the win "
            "rate with the significance-aware rank and the tests."
        ),
        citation="Podium demo data (simulated, seed 2026).",
        metrics=[("accuracy", "higher", {"min_value": 0.0, "max_value": 1.0})],
    )
    scores = simulated_study_scores()
    entries = [
        SubmissionInput(
            algorithm=name,
            scores=[
                ScoreInput(
                    dataset=f"task-{task + 1:02d}", fold=fold, value=float(matrix[task, fold])
                )
                for task in range(SIMULATED_TASKS)
                for fold in range(SIMULATED_FOLDS)
            ],
        )
        for name, matrix in scores.items()
    ]
    _import(benchmark, entries)
    return benchmark


OPEN_DEMO = "demsar-2006"

DEMOS: dict[str, Callable[[], Benchmark]] = {
    "demsar-2006": _load_demsar,
    "tabzilla-hard-top3": _load_tabzilla_top3,
    "simulated-new-vs-old": _load_simulated,
    "tabzilla-accuracy-log-loss": _load_tabzilla_full,
}
