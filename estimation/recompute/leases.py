"""One run per benchmark at a time, across threads, processes and hosts: a lease in the
benchmark's RecomputeState row, renewed by a heartbeat while the run computes; a run
whose lease expired stops (LeaseLost) and saves nothing more."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import datetime, timedelta

from django.conf import settings as django_settings
from django.db import IntegrityError, connection
from django.db.models import Q
from django.utils import timezone

from common.outages import is_database_outage, outage_summary
from estimation.models import RecomputeState
from estimation.recompute.commits import derived_atomic

logger = logging.getLogger(__name__)


class LeaseLost(Exception):
    """This run no longer owns its benchmark (its lease expired and another run took it,
    or that run abandoned this one's snapshot): it stops and saves nothing more."""


def lease_seconds() -> int:
    return django_settings.RECOMPUTE_LEASE_SECONDS


def lease_acquire(
    *, benchmark_id: int, owner: str, state_exists: bool = False, now: datetime | None = None
) -> bool:
    """One conditional UPDATE: race-free between any number of workers. ``state_exists``:
    the caller has just read the benchmark's state row, so it is not made first (a row
    deleted since, with its benchmark, matches nothing: no lease). ``now`` (the clock's
    time by default) lets a test ask at a moment of its choosing, however slow the
    machine."""
    now = now or timezone.now()
    if not state_exists:
        try:
            RecomputeState.objects.get_or_create(benchmark_id=benchmark_id)
        except IntegrityError:  # the benchmark was deleted after its recompute was queued
            return False
    with derived_atomic():  # a lease lost with the database went with its sessions
        taken = (
            RecomputeState.objects.filter(pk=benchmark_id)
            .filter(Q(lease_owner="") | Q(lease_owner=owner) | Q(lease_expires_at__lt=now))
            .update(lease_owner=owner, lease_expires_at=now + timedelta(seconds=lease_seconds()))
        )
    return taken == 1


def lease_renew(*, benchmark_id: int, owner: str) -> bool:
    """Push the expiry on; False when ``owner`` no longer holds the lease."""
    renewed = RecomputeState.objects.filter(pk=benchmark_id, lease_owner=owner).update(
        lease_expires_at=timezone.now() + timedelta(seconds=lease_seconds())
    )
    return renewed == 1


def lease_release(*, benchmark_id: int, owner: str) -> None:
    RecomputeState.objects.filter(pk=benchmark_id, lease_owner=owner).update(
        lease_owner="", lease_expires_at=None
    )


class LeaseHeartbeat:
    """Renews a run's lease every third of its length from a thread of its own, whatever
    the analysis is doing (one long stage renews nothing), so the lease can be short
    and a dead worker's benchmark is taken over soon. ``lost`` is set when the renewal
    finds another owner; the run checks it at its next progress report.
    """

    def __init__(
        self, *, benchmark_id: int, owner: str, on_beat: Callable[[], None] | None = None
    ) -> None:
        self.benchmark_id = benchmark_id
        self.owner = owner
        self.on_beat = on_beat
        self.interval = max(lease_seconds() / 3, 0.2)
        self.lost = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._beat, name=f"podium-lease-{benchmark_id}", daemon=True
        )

    def __enter__(self) -> LeaseHeartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._stop.set()
        self._thread.join(timeout=self.interval + 10)

    def _beat(self) -> None:
        try:
            while not self._stop.wait(self.interval):
                try:
                    if not lease_renew(benchmark_id=self.benchmark_id, owner=self.owner):
                        self.lost.set()
                        return
                    if self.on_beat is not None:
                        self.on_beat()
                except Exception as exc:  # the database blinked: the next beat tries again
                    if not is_database_outage(exc):
                        logger.warning("lease heartbeat of %s failed", self.owner, exc_info=True)
                        continue
                    summary = outage_summary(exc)
                    logger.warning("lease heartbeat of %s failed: %s", self.owner, summary)
        finally:
            connection.close()


def lease_heartbeat(
    *, benchmark_id: int, owner: str, on_beat: Callable[[], None] | None = None
) -> LeaseHeartbeat | None:
    """A heartbeat, unless the run sits inside its caller's transaction: its lease row is
    then invisible to other connections (no other worker can take it either).
    ``on_beat``: called after each renewal (the task's lane slot: estimation/recompute/lanes.py)."""
    if connection.in_atomic_block:
        return None
    return LeaseHeartbeat(benchmark_id=benchmark_id, owner=owner, on_beat=on_beat)
