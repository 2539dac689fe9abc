import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from leaderboard.ingest.formats import AlgorithmInfo, MetricInfo
from leaderboard.ingest.formats.eee import eee_documents
from leaderboard.models import Benchmark
from leaderboard.selectors import accepted_score_rows, algorithms_public


class Command(BaseCommand):
    help = (
        "Write a benchmark's accepted results as Every Eval Ever documents (one JSON file "
        "per algorithm: the mean over folds as the score, the folds in its details) into "
        "a folder, which `import_results --format eee` reads back."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("slug", help="the benchmark to export (its /b/SLUG/ address)")
        parser.add_argument("folder", help="where to write the files (created if missing)")
        parser.add_argument("--source", help="the source name written (default: the slug)")

    def handle(self, *args, **options) -> None:
        benchmark = Benchmark.objects.filter(slug=options["slug"]).first()
        if benchmark is None:
            raise CommandError(f"no benchmark {options['slug']!r}")
        metrics = list(benchmark.metrics.all())
        results: dict[str, list[tuple[str, str, float, list[float] | None]]] = {}
        for metric in metrics:
            cells: dict[tuple[str, str], dict[int | None, float]] = {}
            for dataset, algorithm, fold, value in accepted_score_rows(
                benchmark=benchmark, metric=metric
            ):
                cells.setdefault((algorithm, dataset), {}).setdefault(fold, value)
            for (algorithm, dataset), by_fold in sorted(cells.items()):
                values = [by_fold[f] for f in sorted(by_fold, key=lambda f: -1 if f is None else f)]
                folds = values if len(values) > 1 or None not in by_fold else None
                results.setdefault(algorithm, []).append(
                    (dataset, metric.name, sum(values) / len(values), folds)
                )
        algorithms = [
            AlgorithmInfo(
                name=a.name,
                family=a.family,
                parameters=a.parameters,
                licence=a.licence,
                url=a.url,
                revision=a.revision or a.version,
                precision=a.precision,
                open_weights=a.open_weights,
            )
            for a in algorithms_public(benchmark.algorithms.all()).order_by("name")
            if a.name in results
        ]
        documents = eee_documents(
            source=options["source"] or benchmark.slug,
            retrieved=timezone.now().replace(microsecond=0).isoformat(),
            metrics=[
                MetricInfo(m.name, m.higher_is_better, m.min_value, m.max_value, m.unit)
                for m in metrics
            ],
            algorithms=algorithms,
            results=results,
        )
        folder = Path(options["folder"])
        folder.mkdir(parents=True, exist_ok=True)
        for name, document in documents.items():
            (folder / name).write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        self.stdout.write(
            f"{benchmark.slug}: wrote {len(documents)} Every Eval Ever files to {folder}"
        )
