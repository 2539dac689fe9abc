from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils.text import slugify

from estimation.command_results import (
    QUEUE_HELP,
    queue_refused_without_workers,
    results_after_import,
)
from estimation.core.wording import counted
from leaderboard.ingest.formats import (
    IMPORT_FORMATS,
    ON_ERROR,
    ImportedResults,
    ResultsImportError,
    files_from_path,
    read_imported,
)
from leaderboard.ingest.formats.common import restrict_metrics
from leaderboard.ingest.formats.mteb import SUBSETS
from leaderboard.ingest.results_csv import ResultsCsvError
from leaderboard.management.commands.import_benchmark import POLICY_HELP
from leaderboard.models import Benchmark, Metric, Submission
from leaderboard.services import ValidationFailed, benchmark_create, problems_text
from leaderboard.services.uploads import UploadInput, UploadRead, submissions_upload
from leaderboard.uploads import upload_limits


class Command(BaseCommand):
    help = (
        "Import results in another tool's format (a file, a folder or a zip) as accepted "
        "results: into --benchmark if it exists, else into a new benchmark of that slug "
        "whose metrics are the files' (direction and range from the files where they say, "
        "else --direction: without it a metric the files do not direct is refused, by "
        "name). A result that cannot be imported refuses the files, every problem named by "
        "file and key (--on-error skip: the rest is imported and what was left out listed). "
        "Then computes the results (or, with "
        "--queue, leaves them to the workers)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("path", help="a results file, a folder of them, or a zip")
        parser.add_argument(
            "--format", required=True, choices=IMPORT_FORMATS, help="the tool that wrote the files"
        )
        parser.add_argument("--benchmark", help="slug (default: from the path's name)")
        parser.add_argument("--title", help="title of a new benchmark (default: the slug)")
        parser.add_argument(
            "--direction",
            choices=[d.value for d in Metric.Direction],
            default=None,
            help="direction of a new benchmark's metrics the files do not direct (without "
            "it, such metrics are refused by name)",
        )
        parser.add_argument(
            "--on-error",
            choices=ON_ERROR,
            default="refuse",
            help="refuse (default): import nothing if anything is wrong, every problem "
            "named by file and key; skip: import what is valid and list what was left out, "
            "with the reason",
        )
        parser.add_argument(
            "--metric",
            action="append",
            help="import only this metric (repeat for several); the first is primary",
        )
        parser.add_argument(
            "--policy",
            choices=[p.value for p in Benchmark.SubmissionPolicy],
            default=Benchmark.SubmissionPolicy.MODERATED,
            help=POLICY_HELP,
        )
        parser.add_argument(
            "--algorithm",
            help="lm-eval: the name of the model of results files that give no model_name",
        )
        parser.add_argument(
            "--subsets",
            choices=SUBSETS,
            help="mteb: a task's score is the mean of its subsets (mean, MTEB's rule and the "
            "default) or each subset is a dataset (datasets)",
        )
        parser.add_argument("--queue", action="store_true", help=QUEUE_HELP)

    def handle(self, *args, **options) -> None:
        if options["queue"]:
            queue_refused_without_workers()
        path = options["path"]
        try:
            # The bounds of a background upload: the command stores as a job does.
            limits = upload_limits(background=True)
            imported = read_imported(
                files_from_path(path, max_bytes=limits.max_unpacked_bytes),
                format=options["format"],
                max_results=limits.max_rows,
                on_error=options["on_error"],
                **_reader_options(options),
            )
            if options["metric"]:
                imported = restrict_metrics(imported, options["metric"])
        except ResultsImportError as exc:
            raise CommandError(f"{path}: {exc}{_skip_hint(options)}") from None
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc.strerror or exc}") from None
        except ValueError as exc:  # an option the format does not take
            raise CommandError(str(exc)) from None
        slug = options["benchmark"] or _slug(path)
        try:
            with transaction.atomic():
                benchmark = Benchmark.objects.filter(slug=slug).first()
                if benchmark is None:
                    benchmark = self._create(slug, imported, options)
                else:
                    imported = restrict_metrics(
                        imported, benchmark.metrics.values_list("name", flat=True)
                    )
                outcome = submissions_upload(
                    benchmark=benchmark,
                    submitter=None,
                    upload=UploadInput(b"", filename=path, format=options["format"]),
                    source=Submission.Source.IMPORT,
                    background=False,
                    limits=limits,
                    read=UploadRead.of_imported(imported),
                )
        except ResultsCsvError as exc:  # the bound on results (ResultsImportError too)
            raise CommandError(f"{path}: {exc}") from None
        except ValidationFailed as exc:
            raise CommandError(f"nothing was imported:\n{problems_text(exc.problems)}") from None
        for note in imported.notes:
            self.stderr.write(f"{benchmark.slug}: {note}", style_func=str)
        self._report_left_out(benchmark.slug, imported)
        self.stdout.write(
            self.style.SUCCESS(
                f"{benchmark.slug}: imported {counted(outcome.n_scores, 'result')} "
                f"({options['format']}) of {counted(len(outcome.submissions), 'algorithm')} on "
                f"{counted(len(imported.parsed.datasets), 'dataset')}, "
                f"metrics {', '.join(imported.parsed.metrics)}"
            )
        )
        self.stdout.write(results_after_import(benchmark, queued=options["queue"]))

    def _report_left_out(self, slug: str, imported: ImportedResults) -> None:
        if not imported.n_left_out:
            return
        self.stderr.write(
            f"{slug}: left out {counted(imported.n_left_out, 'result or file', 'results or files')}"
            " (file: key: reason):",
            style_func=str,
        )
        for problem in imported.left_out:
            self.stderr.write(f"  {problem}", style_func=str)
        if imported.n_left_out > len(imported.left_out):
            self.stderr.write(
                f"  ... and {imported.n_left_out - len(imported.left_out)} more", style_func=str
            )

    def _create(self, slug: str, imported: ImportedResults, options) -> Benchmark:
        order = options["metric"] or list(imported.parsed.metrics)
        undirected = [
            name
            for name in order
            if (info := imported.metric(name)) is None or info.higher_is_better is None
        ]
        if undirected and options["direction"] is None:
            raise CommandError(
                f"the files do not say whether higher or lower is better for "
                f"{', '.join(map(repr, undirected))}: give --direction higher|lower, or "
                "--metric to import only metrics the files direct"
            )
        metrics = []
        for name in order:
            info = imported.metric(name)
            higher = info.higher_is_better if info else None
            direction = (
                options["direction"] if higher is None else ("higher" if higher else "lower")
            )
            described = {
                "min_value": info.min_value if info else None,
                "max_value": info.max_value if info else None,
                "unit": info.unit if info else "",
            }
            metrics.append((name, direction, described))
        return benchmark_create(
            slug=slug,
            title=options["title"] or slug,
            metrics=metrics,
            submission_policy=options["policy"],
        )


def _skip_hint(options) -> str:
    if options["on_error"] == "skip":
        return ""
    return "\nnothing was imported; --on-error skip imports the rest and lists these"


def _reader_options(options) -> dict[str, str]:
    """The format's own options the command was given (the others are left unset)."""
    return {name: options[name] for name in ("algorithm", "subsets") if options.get(name)}


def _slug(path: str) -> str:
    return slugify(Path(path).stem)[:80] or "imported"
