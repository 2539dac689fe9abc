"""Prune result versions nobody can cite (policy: estimation/recompute/retention.py, docs/operators.md)."""

from django.core.management.base import BaseCommand

from estimation.core.wording import counted
from estimation.recompute.retention import snapshots_prune


class Command(BaseCommand):
    help = (
        "Delete superseded result versions that were served for less than "
        "PODIUM_SNAPSHOT_COALESCE_SECONDS and never cited (permalink, export or version "
        "URL requested), and failed versions older than PODIUM_SNAPSHOT_FAILED_KEEP_DAYS "
        "that are not the newest. The newest and the served version of every metric are "
        "always kept."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--dry-run", action="store_true", help="say what would be deleted; delete nothing"
        )

    def handle(self, *args, dry_run: bool = False, **options):
        result = snapshots_prune(dry_run=dry_run)
        verb = "would delete" if dry_run else "deleted"
        self.stdout.write(
            f"{verb} {counted(len(result.snapshot_ids), 'version')} ({result.superseded} superseded "
            f"within the coalescing window, {result.failed} old failed; "
            f"{result.section_bytes / 1e6:.1f} MB of sections)"
        )
