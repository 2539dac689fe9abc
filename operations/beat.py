"""Beat's scheduler, recording a heartbeat from its own loop (``CELERY_BEAT_SCHEDULER``)
and sending again, at its next tick, what it could not send when due."""

from __future__ import annotations

import logging
import socket
import time

from celery.beat import PersistentScheduler
from django.utils import timezone

from operations.heartbeats import heartbeat_record_quietly, heartbeat_seconds
from operations.models import Heartbeat

logger = logging.getLogger(__name__)

UNSENT_KEY = "podium_unsent"  # in beat's schedule file, with Celery's own entries


class HeartbeatScheduler(PersistentScheduler):
    """Celery's default scheduler, plus a heartbeat at most every heartbeat interval, and
    entries that run late rather than never.

    ``tick`` runs whenever beat wakes up, at the latest when the next entry is due
    (the recompute sweep, every ``PODIUM_RECOMPUTE_SWEEP_SECONDS``); the value it returns
    (how long to sleep) is capped so that the heartbeat keeps its interval.

    Celery's scheduler logs a due entry it cannot send (the broker, Redis, is down) with
    a traceback and moves on to its next due time: a prune due every five minutes that
    fell into an outage was dropped until the next one. Here such an entry is remembered
    (in the schedule file too, so a restart of beat keeps it) and sent again at each
    tick until the broker takes it; one line is logged per failed send.
    """

    def __init__(self, *args, **kwargs) -> None:
        self._heartbeat_name = f"beat@{socket.gethostname()}"
        self._heartbeat_started = timezone.now()
        self._heartbeat_next = 0.0
        self._unsent: set[str] = set()
        super().__init__(*args, **kwargs)

    def setup_schedule(self) -> None:
        super().setup_schedule()
        self._unsent = set(self._store.get(UNSENT_KEY, ()))

    @property
    def unsent(self) -> frozenset[str]:
        """Names of the entries due and not sent yet."""
        return frozenset(self._unsent)

    def _unsent_set(self, name: str, unsent: bool) -> None:
        before = set(self._unsent)
        if unsent:
            self._unsent.add(name)
        else:
            self._unsent.discard(name)
        if self._unsent != before:
            self._store[UNSENT_KEY] = sorted(self._unsent)
            self.sync()

    def apply_entry(self, entry, producer=None) -> None:
        try:
            self.apply_async(entry, producer=producer, advance=False)
        except Exception as exc:  # the broker client raises many unrelated types
            cause = exc.__cause__ or exc
            logger.warning(
                "beat could not send %s (%s: %s); sent again at the next tick",
                entry.name,
                type(cause).__name__,
                " ".join(str(cause).split())[:200],
            )
            self._unsent_set(entry.name, True)
        else:
            self._unsent_set(entry.name, False)

    def _send_unsent(self) -> None:
        for name in sorted(self._unsent):
            entry = self.schedule.get(name)
            if entry is None:  # no longer scheduled
                self._unsent_set(name, False)
                continue
            self.apply_entry(entry, producer=self.producer)
            if name in self._unsent:
                return  # the broker is still away: the next tick tries again

    def tick(self, *args, **kwargs) -> float:
        interval = heartbeat_seconds()
        if interval > 0 and time.monotonic() >= self._heartbeat_next:
            heartbeat_record_quietly(
                role=Heartbeat.Role.BEAT,
                name=self._heartbeat_name,
                started_at=self._heartbeat_started,
            )
            self._heartbeat_next = time.monotonic() + interval
        if self._unsent:
            self._send_unsent()
        sleep = super().tick(*args, **kwargs)
        if self._unsent:  # come back soon, not at the next entry's due time
            sleep = min(sleep, max(interval, 1.0))
        return min(sleep, interval) if interval > 0 else sleep
