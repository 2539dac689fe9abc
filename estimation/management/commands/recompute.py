from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from estimation.models import ResultSnapshot
from estimation.recompute.runs import recompute_here, snapshot_outdated_benchmark_ids
from estimation.requests import recompute_request
from estimation.selectors import recompute_pending, snapshot_status
from leaderboard.models import Benchmark

QUEUE_HELP = "hand the work to the Celery workers instead of computing here"


def queue_refused_without_workers() -> None:
    """Without a broker a queued recompute runs in a thread of this command, which its
    exit would kill half-way: say so instead of pretending it was queued."""
    if settings.RECOMPUTE_IN_THREAD:
        raise CommandError(
            "--queue needs Celery workers (REDIS_URL or CELERY_BROKER_URL, and "
            "PODIUM_RECOMPUTE_IN_THREAD off); without them, leave it out to compute here"
        )


def results_compute(benchmark: Benchmark) -> list[ResultSnapshot]:
    """The versions this command computed (none when every metric was up to date)."""
    return recompute_here(benchmark_id=benchmark.pk, owner=f"command-{benchmark.pk}")


def results_served(benchmark: Benchmark) -> str:
    """What each metric serves now, in a few words."""
    if recompute_pending(benchmark_id=benchmark.pk):
        return "still being computed by another run (see its snapshots/status/)"
    served = []
    for metric in benchmark.metrics.all():
        newest = snapshot_status(benchmark=benchmark, metric=metric).newest
        if newest is None:
            served.append(f"{metric.name}: no accepted scores yet")
        elif newest.status == ResultSnapshot.Status.FAILED:
            served.append(f"{metric.name} v{newest.version} failed: {newest.error}")
        else:
            served.append(f"{metric.name} v{newest.version} {newest.status}")
    return ", ".join(served) or "no metrics"


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
