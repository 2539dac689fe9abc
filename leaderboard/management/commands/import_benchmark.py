import io
from collections.abc import Mapping
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from estimation.command_results import (
    QUEUE_HELP,
    queue_refused_without_workers,
    results_after_import,
)
from estimation.core.wording import counted
from leaderboard.ingest.results_csv import (
    FORMATS,
    INCOMPLETE,
    ParsedResults,
    ResultsCsvError,
    parse_results_csv,
    parse_results_csv_partial,
    parse_results_csv_text,
)
from leaderboard.ingest.results_csv.sheets import (
    needs_tidying,
    parse_columns,
    relocated_error,
    results_table,
)
from leaderboard.models import Benchmark, Metric, Submission
from leaderboard.services import ValidationFailed, benchmark_create, problems_text
from leaderboard.services.uploads import UploadInput, UploadRead, submissions_upload
from leaderboard.uploads import upload_limits

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
        parser.add_argument(
            "--columns",
            help="the file's own column names: role=column pairs, e.g. "
            "dataset=task,algorithm=framework,score=result (other columns are left out)",
        )
        parser.add_argument(
            "--models-as-rows",
            action="store_true",
            help="the file has one row per model (its first column) and one column per dataset",
        )
        parser.add_argument(
            "--nan",
            choices=("refuse", "missing"),
            default="refuse",
            help="a NaN score (pandas' NaN or <NA>, R's NA) or, in a long file, an empty "
            "one: refused as not a number (default), or read as a missing result and listed",
        )
        parser.add_argument(
            "--on-error",
            choices=("refuse", "skip"),
            default="refuse",
            help="refuse (default): a bad row refuses the file, every problem listed; skip: "
            "the valid rows are imported and each row left out is listed with its problem",
        )
        parser.add_argument(
            "--incomplete",
            choices=INCOMPLETE,
            default="refuse",
            help="an algorithm lacking, on a dataset, folds that others have there: refuse "
            "the file (default) or drop its results there, each listed",
        )
        parser.add_argument("--maintainer", help="username to make a maintainer")
        parser.add_argument("--queue", action="store_true", help=QUEUE_HELP)

    def handle(self, *args, **options) -> None:
        if options["queue"]:
            queue_refused_without_workers()
        try:
            parsed, notes, named = _parsed(options)
        except ResultsCsvError as exc:
            raise CommandError(f"{options['csv']}: {exc}{_skip_hint(options, exc)}") from None
        except ValueError as exc:  # --columns naming what the file lacks
            raise CommandError(f"{options['csv']}: {exc}") from None
        except OSError as exc:
            raise CommandError(f"cannot read {options['csv']}: {exc.strerror}") from None
        for note in notes:
            self.stderr.write(f"{options['csv']}: {note}", style_func=str)
        try:
            with transaction.atomic():
                benchmark = self._benchmark(
                    options, ranking_only=parsed.kind == "rank", metrics=parsed.metrics
                )
                outcome = submissions_upload(
                    benchmark=benchmark,
                    submitter=None,
                    upload=UploadInput(b"", filename=options["csv"], format=options["format"]),
                    source=Submission.Source.IMPORT,
                    background=False,
                    limits=upload_limits(background=True),
                    read=UploadRead(parsed, named=named),
                )
        except ResultsCsvError as exc:  # more results than an upload may hold
            raise CommandError(f"{options['csv']}: {exc}") from None
        except ValidationFailed as exc:
            raise CommandError(f"nothing was imported:\n{problems_text(exc.problems)}") from None
        self.stdout.write(
            self.style.SUCCESS(
                f"{benchmark.slug}: imported {counted(outcome.n_scores, 'result')} of "
                f"{counted(len(outcome.submissions), 'algorithm')} on "
                f"{counted(len(parsed.datasets), 'dataset')}"
            )
        )
        self.stdout.write(results_after_import(benchmark, queued=options["queue"]))

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


def _parsed(options) -> tuple[ParsedResults, tuple[str, ...], Mapping[str, str]]:
    """The file parsed as it is, or first tidied (a workbook, a pandas index column, NaN
    cells, mapped columns, models as rows), problems then at the file's own lines and
    columns; with ``--on-error skip`` the rows refused are left out, each listed in the
    notes. Last, the mapping's {role: the file's column} (TidyTable.named)."""
    path = Path(options["csv"])
    columns = parse_columns(options["columns"]) if options["columns"] else None
    content = path.read_bytes()
    nan_missing = options["nan"] == "missing"
    incomplete = options["incomplete"]
    skip = options["on_error"] == "skip"
    tidied = columns or needs_tidying(
        content,
        filename=path.name,
        models_as_rows=options["models_as_rows"],
        nan_missing=nan_missing,
    )
    if not tidied and not skip:
        parsed = parse_results_csv(
            io.BytesIO(content), format=options["format"], incomplete=incomplete
        )
        return parsed, _dropped(parsed.dropped, parsed.n_dropped), {}
    if not tidied:
        try:
            text = content.decode("utf-8-sig")
        except UnicodeDecodeError:  # the parser words it, at its line
            return (
                parse_results_csv(
                    io.BytesIO(content), format=options["format"], incomplete=incomplete
                ),
                (),
                {},
            )
        parsed, skipped = parse_results_csv_partial(
            text, format=options["format"], incomplete=incomplete
        )
        return parsed, (*_left_out(skipped), *_dropped(parsed.dropped, parsed.n_dropped)), {}
    table = results_table(
        content,
        filename=path.name,
        columns=columns,
        models_as_rows=options["models_as_rows"],
        nan_missing=nan_missing,
    )
    try:
        if skip:
            parsed, skipped = parse_results_csv_partial(
                table.text, format=options["format"], incomplete=incomplete
            )
        else:
            parsed, skipped = (
                parse_results_csv_text(table.text, format=options["format"], incomplete=incomplete),
                (),
            )
    except ResultsCsvError as exc:
        raise relocated_error(exc, table) from None
    if skipped:
        skipped = relocated_error(ResultsCsvError(skipped), table).errors
    dropped = relocated_error(ResultsCsvError(parsed.dropped), table).errors
    notes = (*table.notes, *_left_out(skipped), *_dropped(dropped, parsed.n_dropped))
    return parsed, notes, table.named


def _skip_hint(options, exc: ResultsCsvError) -> str:
    """A way on when only rows are at fault (not the header, not the whole file)."""
    if options["on_error"] == "skip" or any(error.line <= 1 for error in exc.errors):
        return ""
    return "\nnothing was imported; --on-error skip imports the valid rows and lists the rest"


def _dropped(dropped, n_dropped: int) -> tuple[str, ...]:
    """What --incomplete drop left out, each at its line."""
    if not n_dropped:
        return ()
    more = (f"  ... and {n_dropped - len(dropped)} more",) if n_dropped > len(dropped) else ()
    return (
        f"--incomplete drop left out {n_dropped} algorithms' results on datasets where "
        "they lack folds (line, column: what):",
        *(f"  {error}" for error in dropped),
        *more,
    )


def _left_out(skipped) -> tuple[str, ...]:
    if not skipped:
        return ()
    lines = {error.line for error in skipped}
    return (
        f"left out {len(lines)} rows (line, column: problem):",
        *(f"  {error}" for error in skipped),
    )


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
