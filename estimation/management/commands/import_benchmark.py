from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from estimation.core.wording import counted
from estimation.management.commands.recompute import (
    QUEUE_HELP,
    queue_refused_without_workers,
    results_compute,
    results_served,
)
from leaderboard.ingest.results_csv import FORMATS, ResultsCsvError, parse_results_csv
from leaderboard.models import Benchmark, Metric, Submission
from leaderboard.services import (
    ValidationFailed,
    benchmark_create,
    problems_text,
    submission_entries_from_csv,
    submissions_create,
)

# From the choices' own labels ("open: accepted on arrival", ...), as the pages say it.
POLICY_HELP = "who may add results to a new benchmark (default: moderated): " + "; ".join(
    str(label) for label in Benchmark.SubmissionPolicy.labels
)


class Command(BaseCommand):
    help = (
        "Create a benchmark (if its slug is new) and import a results CSV into it as "
        "accepted results. Formats: long dataset,algorithm,score[,fold][,metric]; "
        "wide dataset,<alg>,...; ranking dataset,algorithm,rank. Then computes the "
        "results (or, with --queue, leaves them to the workers)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("csv", help="path of the results file")
        parser.add_argument(
            "--slug", required=True, help="the benchmark's address (/b/SLUG/); new or existing"
        )
        parser.add_argument("--title", help="title of a new benchmark (default: the slug)")
        parser.add_argument("--description", default="", help="description of a new benchmark")
        parser.add_argument("--citation", default="", help="how to cite a new benchmark")
        parser.add_argument("--licence", default="", help="licence of a new benchmark's data")
        parser.add_argument(
            "--metric",
            help="metric name of a new benchmark (default: the file's metric column if it "
            "names one metric, else 'score')",
        )
        parser.add_argument(
            "--direction",
            choices=[d.value for d in Metric.Direction],
            default="higher",
            help="whether higher or lower values of a new metric are better (default: higher)",
        )
        parser.add_argument("--min-value", type=float, help="lowest valid value of a new metric")
        parser.add_argument("--max-value", type=float, help="highest valid value of a new metric")
        parser.add_argument("--unit", default="", help="unit of a new benchmark's metric (e.g. %%)")
        parser.add_argument("--format", choices=FORMATS, help="default: detect from the header")
        parser.add_argument(
            "--policy",
            choices=[p.value for p in Benchmark.SubmissionPolicy],
            default=Benchmark.SubmissionPolicy.MODERATED,
            help=POLICY_HELP,
        )
        parser.add_argument("--maintainer", help="username to make a maintainer")
        parser.add_argument("--queue", action="store_true", help=QUEUE_HELP)

    def handle(self, *args, **options) -> None:
        if options["queue"]:
            queue_refused_without_workers()
        try:
            parsed = parse_results_csv(options["csv"], format=options["format"])
        except ResultsCsvError as exc:
            raise CommandError(f"{options['csv']}: {exc}") from None
        except OSError as exc:
            raise CommandError(f"cannot read {options['csv']}: {exc.strerror}") from None
        try:
            with transaction.atomic():
                benchmark = self._benchmark(
                    options, ranking_only=parsed.kind == "rank", metrics=parsed.metrics
                )
                entries = submission_entries_from_csv(benchmark=benchmark, parsed=parsed)
                submissions = submissions_create(
                    benchmark=benchmark,
                    submitter=None,
                    entries=entries,
                    source=Submission.Source.IMPORT,
                )
        except ValidationFailed as exc:
            raise CommandError(f"nothing was imported:\n{problems_text(exc.problems)}") from None
        n_scores = sum(len(entry.scores) for entry in entries)
        self.stdout.write(
            self.style.SUCCESS(
                f"{benchmark.slug}: imported {counted(n_scores, 'result')} of "
                f"{counted(len(submissions), 'algorithm')} on "
                f"{counted(len(parsed.datasets), 'dataset')}"
            )
        )
        # The import committed and asked for a recompute (a task, or a thread of this
        # process that would die with it): without --queue the results are computed here.
        if options["queue"]:
            self.stdout.write(f"{benchmark.slug}: results queued for the workers")
        else:
            results_compute(benchmark)
            self.stdout.write(f"{benchmark.slug}: results {results_served(benchmark)}")

    def _benchmark(self, options, *, ranking_only: bool, metrics: tuple[str, ...]) -> Benchmark:
        existing = Benchmark.objects.filter(slug=options["slug"]).first()
        if existing is not None:
            return existing
        name = options["metric"] or _metric_of_file(metrics)
        described = {
            "min_value": options["min_value"],
            "max_value": options["max_value"],
            "unit": options["unit"],
        }
        metric = ("rank", "lower") if ranking_only else (name, options["direction"], described)
        benchmark = benchmark_create(
            slug=options["slug"],
            title=options["title"] or options["slug"],
            description=options["description"],
            citation=options["citation"],
            licence=options["licence"],
            metrics=[metric],
            ranking_only=ranking_only,
            submission_policy=options["policy"],
        )
        if options["maintainer"]:
            user = get_user_model().objects.filter(username=options["maintainer"]).first()
            if user is None:
                raise CommandError(f"no user named {options['maintainer']!r}")
            benchmark.maintainers.add(user)
        return benchmark


def _metric_of_file(metrics: tuple[str, ...]) -> str:
    """A new benchmark's metric when --metric is not given: the one the file names.

    Named 'score' while the file said 'accuracy', every row would be refused as a
    result for an unknown metric.
    """
    if len(metrics) > 1:
        named = ", ".join(repr(metric) for metric in metrics)
        raise CommandError(
            f"the file has results for {len(metrics)} metrics ({named}); a new benchmark "
            "takes one: name it with --metric"
        )
    return metrics[0] if metrics else "score"
