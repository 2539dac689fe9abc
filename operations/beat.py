"""Beat's scheduler, recording a heartbeat from its own loop (``CELERY_BEAT_SCHEDULER``)."""

from __future__ import annotations

import socket
import time

from celery.beat import PersistentScheduler
from django.utils import timezone

from operations.heartbeats import heartbeat_record_quietly, heartbeat_seconds
from operations.models import Heartbeat


class HeartbeatScheduler(PersistentScheduler):
    """Celery's default scheduler, plus a heartbeat at most every heartbeat interval.

    ``tick`` runs whenever beat wakes up, at the latest when the next entry is due
    (the recompute sweep, every ``PODIUM_RECOMPUTE_SWEEP_SECONDS``); the value it returns
    (how long to sleep) is capped so that the heartbeat keeps its interval.
    """

    def __init__(self, *args, **kwargs) -> None:
        self._heartbeat_name = f"beat@{socket.gethostname()}"
        self._heartbeat_started = timezone.now()
        self._heartbeat_next = 0.0
        super().__init__(*args, **kwargs)

    def tick(self, *args, **kwargs) -> float:
        interval = heartbeat_seconds()
        if interval > 0 and time.monotonic() >= self._heartbeat_next:
            heartbeat_record_quietly(
                role=Heartbeat.Role.BEAT,
                name=self._heartbeat_name,
                started_at=self._heartbeat_started,
            )
            self._heartbeat_next = time.monotonic() + interval
        sleep = super().tick(*args, **kwargs)
        return min(sleep, interval) if interval > 0 else sleep
