from django.core.management.base import BaseCommand, CommandError

from estimation.services import recompute_request, recompute_run
from leaderboard.models import Benchmark


class Command(BaseCommand):
    help = "Recompute the results of one benchmark (by slug) or of all of them."

    def add_arguments(self, parser) -> None:
        target = parser.add_mutually_exclusive_group(required=True)
        target.add_argument("slug", nargs="?", help="benchmark slug")
        target.add_argument("--all", action="store_true", help="every benchmark")
        parser.add_argument(
            "--queue",
            action="store_true",
            help="hand the work to the Celery workers instead of computing here",
        )

    def handle(self, *args, slug=None, all=False, queue=False, **options) -> None:
        benchmarks = Benchmark.objects.all() if all else Benchmark.objects.filter(slug=slug)
        if not all and not benchmarks.exists():
            raise CommandError(f"no benchmark with slug {slug!r}")
        for benchmark in benchmarks.order_by("slug"):
            recompute_request(benchmark_id=benchmark.pk)
            if queue:
                self.stdout.write(f"{benchmark.slug}: queued")
                continue
            snapshots = recompute_run(benchmark_id=benchmark.pk, owner=f"command-{benchmark.pk}")
            done = ", ".join(f"{s.metric.name} v{s.version} {s.status}" for s in snapshots)
            self.stdout.write(f"{benchmark.slug}: {done or 'already up to date'}")
