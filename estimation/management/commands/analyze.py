import argparse
import contextlib
import dataclasses
import math
import sys

from django.core.management.base import BaseCommand, CommandError

from estimation.console_progress import ConsoleProgress
from estimation.core.analysis import Analysis, AnalysisSettings, analyze
from estimation.core.registry import ESTIMATOR_KEYS
from estimation.core.uncertainty_sections import MIN_BOOTSTRAP
from estimation.payload_stream import payload_json_write
from estimation.report import render_report
from leaderboard.ingest.formats import IMPORT_FORMATS, files_from_path, read_imported
from leaderboard.ingest.results_csv import (
    FORMATS,
    INCOMPLETE,
    INCOMPLETE_FOLDS,
    ParsedResults,
    ResultsCsvError,
    parse_results_csv,
)

DROP_HINT = (
    "To analyse the file without them, run again with --incomplete drop: each such "
    "algorithm's results on that dataset are left out and count as missing (see --missing)."
)


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


def _setting_help(name: str) -> str:
    """The help of an analysis option: its meaning as ``AnalysisSettings`` documents it."""
    setting = next(f for f in dataclasses.fields(AnalysisSettings) if f.name == name)
    units = f", {setting.metadata['units']}" if setting.metadata["units"] else ""
    return f"{setting.metadata['meaning']} (default {setting.default}{units})"


def _seed(text: str) -> int:
    value = _integer(text)
    if value is None or value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a non-negative integer seed")
    return value


def _imported(path: str, options: dict) -> tuple[ParsedResults, bool]:
    """Another tool's results, and the chosen metric's direction: the file's where it
    states one (a contradicting --lower-is-better is refused), else the option's."""
    imported = read_imported(files_from_path(path), format=options["format"])
    for note in imported.notes:
        sys.stderr.write(f"{path}: {note}\n")
    parsed = imported.parsed
    name = options["metric"] or (parsed.metrics[0] if len(parsed.metrics) == 1 else None)
    info = imported.metric(name) if name else None
    if info is None or info.higher_is_better is None:
        return parsed, not options["lower_is_better"]
    if options["lower_is_better"] and info.higher_is_better:
        raise CommandError(
            f"{path}: --lower-is-better, but the files say metric {name!r} is higher-is-better"
        )
    return parsed, info.higher_is_better


class Command(BaseCommand):
    help = (
        "Analyse a results CSV without a server: the same numbers the website shows. "
        "Formats: long dataset,algorithm,score[,fold][,metric]; wide dataset,<alg>,...; "
        "ranking dataset,algorithm,rank (1 = best, may list only the top K). Fields are "
        "separated by commas, or by semicolons with decimal commas (0,95)."
    )
    # Runs on a laptop with no database: skip the checks that would touch one.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "path", help="results file (CSV), or another tool's file, folder or zip (--format)"
        )
        parser.add_argument(
            "--format",
            choices=(*FORMATS, *IMPORT_FORMATS),
            help="CSV: default detect from the header; another tool's results: "
            + ", ".join(IMPORT_FORMATS),
        )
        parser.add_argument("--lower-is-better", action="store_true", help="e.g. error, log loss")
        parser.add_argument("--k", type=int, default=3, help="top positions used (default 3)")
        parser.add_argument("--alpha", type=float, default=0.05, help=_setting_help("alpha"))
        parser.add_argument(
            "--correction",
            choices=["holm", "bonferroni"],
            default="holm",
            help=_setting_help("correction"),
        )
        parser.add_argument(
            "--bootstrap",
            type=_replicates,
            default=1000,
            help="replicates: 0 skips the bands, else at least 100 (default 1000)",
        )
        parser.add_argument(
            "--seed", type=_seed, default=0, help="non-negative integer seed (default 0)"
        )
        parser.add_argument(
            "--missing",
            choices=["complete", "worst"],
            default="complete",
            help=_setting_help("missing"),
        )
        parser.add_argument(
            "--incomplete",
            choices=INCOMPLETE,
            default="refuse",
            help="an algorithm that lacks, on a dataset, folds other algorithms have there: "
            "refuse the file (default, naming each) or drop its results on that dataset, "
            "which then count as missing (see --missing)",
        )
        parser.add_argument(
            "--min-coverage", type=float, default=0.5, help=_setting_help("min_coverage")
        )
        parser.add_argument("--tie-tol", type=float, default=0.0, help=_setting_help("tie_tol"))
        parser.add_argument(
            "--rope",
            type=float,
            default=None,
            metavar="X",
            help=_setting_help("rope").replace("(default None", "(default: none")
            + "; with it every pair gets P(better), P(equivalent) from the Bayesian "
            "signed-rank test",
        )
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
            # Streamed: no second copy of the payload (estimation/payload_stream.py).
            payload_json_write(analysis.payload, lambda text: self.stdout.write(text, ending=""))
            self.stdout.write("")
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

    def _report_dropped(self, parsed: ParsedResults) -> None:
        """What --incomplete drop left out, on standard error (standard output is the report)."""
        if not parsed.n_dropped:
            return
        n = parsed.n_dropped
        lines = [f"--incomplete drop left out {n} result{'s' if n != 1 else ''} lacking folds:"]
        lines += [f"  {error}" for error in parsed.dropped]
        if parsed.n_dropped > len(parsed.dropped):
            lines.append(f"  ... and {parsed.n_dropped - len(parsed.dropped)} more")
        self.stderr.write("\n".join(lines), style_func=str)

    def _analyze(self, options: dict, progress: ConsoleProgress | None) -> Analysis:
        path = options["path"]
        try:
            if options["format"] in IMPORT_FORMATS:
                parsed, higher_is_better = _imported(path, options)
            else:
                parsed = parse_results_csv(
                    path, format=options["format"], incomplete=options["incomplete"]
                )
                higher_is_better = not options["lower_is_better"]
            table = parsed.to_table(metric=options["metric"], higher_is_better=higher_is_better)
        except ResultsCsvError as exc:
            incomplete = any(error.kind == INCOMPLETE_FOLDS for error in exc.errors)
            raise CommandError(
                f"{path}: {exc}" + (f"\n{DROP_HINT}" if incomplete else "")
            ) from None
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc.strerror or exc}") from None
        except ValueError as exc:  # e.g. a metric that is not in the file
            raise CommandError(f"{path}: {exc}") from None
        if options["verbosity"] > 0:
            self._report_dropped(parsed)
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
                rope=options["rope"],
            )
            return analyze(table, settings, progress=progress)
        except ValueError as exc:
            raise CommandError(f"{path}: {exc}") from None
