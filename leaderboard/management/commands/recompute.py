from django.core.management.base import BaseCommand, CommandError

from estimation.services import recompute_request, recompute_run, snapshot_outdated_benchmark_ids
from leaderboard.models import Benchmark


class Command(BaseCommand):
    help = (
        "Recompute the results of one benchmark (by slug), of all of them, or (--stale) of "
        "those whose results an older engine computed (run it after upgrading Podium)."
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
        parser.add_argument(
            "--queue",
            action="store_true",
            help="hand the work to the Celery workers instead of computing here",
        )

    def handle(self, *args, slug=None, all=False, stale=False, queue=False, **options) -> None:
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
            recompute_request(benchmark_id=benchmark.pk)
            if queue:
                self.stdout.write(f"{benchmark.slug}: queued")
                continue
            snapshots = recompute_run(benchmark_id=benchmark.pk, owner=f"command-{benchmark.pk}")
            done = ", ".join(f"{s.metric.name} v{s.version} {s.status}" for s in snapshots)
            self.stdout.write(f"{benchmark.slug}: {done or 'already up to date'}")
