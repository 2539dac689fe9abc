import argparse
import contextlib
import json
import math

from django.core.management.base import BaseCommand, CommandError

from estimation.console_progress import ConsoleProgress
from estimation.core.analysis import MIN_BOOTSTRAP, Analysis, AnalysisSettings, analyze
from estimation.core.registry import ESTIMATOR_KEYS
from estimation.report import render_report
from estimation.results_csv import FORMATS, ResultsCsvError, parse_results_csv


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds >= 0")
    return value


def _integer(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


def _replicates(text: str) -> int:
    value = _integer(text)
    if value is None or value < 0 or 0 < value < MIN_BOOTSTRAP:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give 0 (no bootstrap bands) or at least {MIN_BOOTSTRAP} replicates"
        )
    return value


def _seed(text: str) -> int:
    value = _integer(text)
    if value is None or value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a non-negative integer seed")
    return value


class Command(BaseCommand):
    help = (
        "Analyse a results CSV without a server: the same numbers the website shows. "
        "Formats: long dataset,algorithm,score[,fold][,metric]; wide dataset,<alg>,...; "
        "ranking dataset,algorithm,rank (1 = best, may list only the top K)."
    )
    # Runs on a laptop with no database: skip the checks that would touch one.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser) -> None:
        parser.add_argument("path", help="results file (CSV)")
        parser.add_argument("--format", choices=FORMATS, help="default: detect from the header")
        parser.add_argument("--lower-is-better", action="store_true", help="e.g. error, log loss")
        parser.add_argument("--k", type=int, default=3, help="top positions used (default 3)")
        parser.add_argument("--alpha", type=float, default=0.05)
        parser.add_argument("--correction", choices=["holm", "bonferroni"], default="holm")
        parser.add_argument(
            "--bootstrap",
            type=_replicates,
            default=1000,
            help="replicates: 0 skips the bands, else at least 100 (default 1000)",
        )
        parser.add_argument(
            "--seed", type=_seed, default=0, help="non-negative integer seed (default 0)"
        )
        parser.add_argument("--missing", choices=["complete", "worst"], default="complete")
        parser.add_argument("--min-coverage", type=float, default=0.5)
        parser.add_argument("--tie-tol", type=float, default=0.0)
        parser.add_argument("--metric", help="metric to analyse in a multi-metric long file")
        parser.add_argument(
            "--estimator",
            default=AnalysisSettings().default_estimator,
            choices=ESTIMATOR_KEYS,
            help="headline estimator of the report",
        )
        parser.add_argument(
            "--json",
            action="store_true",
            help="print the snapshot payload (docs/snapshot-contract.md)",
        )
        parser.add_argument("--quiet", action="store_true", help="no progress on standard error")
        parser.add_argument(
            "--progress-after",
            type=_seconds,
            default=1.5,
            metavar="SECONDS",
            help="show the stage and fraction on standard error once a run lasts this long "
            "(default 1.5; 0 shows it from the start)",
        )

    def handle(self, *args, **options) -> None:
        quiet = options["quiet"] or options["verbosity"] == 0
        with self._progress(quiet=quiet, delay=options["progress_after"]) as progress:
            analysis = self._analyze(options, progress)
        if options["json"]:
            self.stdout.write(json.dumps(analysis.to_json(), indent=2, allow_nan=False))
        else:
            self.stdout.write(render_report(analysis.payload, source=options["path"]), ending="")

    def _progress(
        self, *, quiet: bool, delay: float
    ) -> ConsoleProgress | contextlib.nullcontext[None]:
        """Stage and fraction on standard error, never on standard output (--json stays clean)."""
        if quiet:
            return contextlib.nullcontext()

        def write(text: str) -> None:
            self.stderr.write(text, style_func=str, ending="")
            self.stderr.flush()

        return ConsoleProgress(write, terminal=self.stderr.isatty(), delay=delay)

    def _analyze(self, options: dict, progress: ConsoleProgress | None) -> Analysis:
        path = options["path"]
        try:
            parsed = parse_results_csv(path, format=options["format"])
            table = parsed.to_table(
                metric=options["metric"], higher_is_better=not options["lower_is_better"]
            )
        except ResultsCsvError as exc:
            raise CommandError(f"{path}: {exc}") from None
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc.strerror or exc}") from None
        except ValueError as exc:  # e.g. a metric that is not in the file
            raise CommandError(f"{path}: {exc}") from None
        try:
            settings = AnalysisSettings(
                missing=options["missing"],
                min_coverage=options["min_coverage"],
                tie_tol=options["tie_tol"],
                k=options["k"],
                alpha=options["alpha"],
                correction=options["correction"],
                bootstrap=options["bootstrap"],
                seed=options["seed"],
                default_estimator=options["estimator"],
            )
            return analyze(table, settings, progress=progress)
        except ValueError as exc:
            raise CommandError(f"{path}: {exc}") from None
