from django.core.management.base import BaseCommand, CommandError

from estimation.command_results import (
    QUEUE_HELP,
    queue_refused_without_workers,
    results_compute,
    results_served,
)
from estimation.recompute.runs import snapshot_outdated_benchmark_ids
from estimation.requests import recompute_request
from estimation.selectors import recompute_pending
from leaderboard.models import Benchmark


class Command(BaseCommand):
    help = (
        "Recompute the results of one benchmark (by slug), of all of them, or (--stale) of "
        "those whose results an older engine computed (run it after upgrading Podium). "
        "Computes every metric whose accepted input no ready snapshot matches."
    )

    def add_arguments(self, parser) -> None:
        target = parser.add_mutually_exclusive_group(required=True)
        target.add_argument("slug", nargs="?", help="benchmark slug")
        target.add_argument("--all", action="store_true", help="every benchmark")
        target.add_argument(
            "--stale",
            action="store_true",
            help="benchmarks served by an older ENGINE_VERSION or snapshot schema",
        )
        parser.add_argument("--queue", action="store_true", help=QUEUE_HELP)

    def handle(self, *args, slug=None, all=False, stale=False, queue=False, **options) -> None:
        if queue:
            queue_refused_without_workers()
        if all:
            benchmarks = Benchmark.objects.all()
        elif stale:
            benchmarks = Benchmark.objects.filter(pk__in=snapshot_outdated_benchmark_ids())
        else:
            benchmarks = Benchmark.objects.filter(slug=slug)
            if not benchmarks.exists():
                raise CommandError(f"no benchmark with slug {slug!r}")
        if stale and not benchmarks.exists():
            self.stdout.write("every benchmark is served by the current engine")
        for benchmark in benchmarks.order_by("slug"):
            if queue:
                recompute_request(benchmark_id=benchmark.pk)
                self.stdout.write(f"{benchmark.slug}: queued")
                continue
            created = results_compute(benchmark)
            if created:
                line = ", ".join(f"{s.metric.name} v{s.version} {s.status}" for s in created)
            elif recompute_pending(benchmark_id=benchmark.pk):
                line = results_served(benchmark)  # another run is still at it
            else:
                line = f"already up to date ({results_served(benchmark)})"
            self.stdout.write(f"{benchmark.slug}: {line}")
