"""The two Celery queues and which task goes to which (issue 26: fairness).

The default queue (``CELERY_TASK_DEFAULT_QUEUE``) carries what a person waits for: each
account's next recompute, the sweeps, the mails. The bulk queue carries uploads and the
recomputes of an account that already has its share on the default queue
(``estimation/recompute/lanes.py``), so one account's flood queues behind itself, never in front
of another benchmark's recompute. Each queue has its own workers (docker-compose.yml's
``worker`` and ``worker-bulk``); a single worker may consume both. On either queue a served version's
completion (bootstrap, evaluation, advisor) waits at the lowest priority
(``estimation.requests.COMPLETION_PRIORITY``): a worker takes every waiting recompute
first, so each waiting benchmark is served before any completion work (issue 41).

Fairness (issue 26) holds by design when the default queue has more worker processes
than one account's share (compose: two processes, a share of one): a flooding account
then never holds every default process, so another account's recompute starts at once
instead of waiting behind one of the flood's, and only shares the cores with it
(tests/security/test_fairness.py checks that order; the latency is measured, not bounded).
"""

from __future__ import annotations

import os
from typing import Any

from django.conf import settings

UPLOAD_TASK = "leaderboard.process_upload"


def default_queue() -> str:
    return settings.CELERY_TASK_DEFAULT_QUEUE


def bulk_queue() -> str:
    """``PODIUM_BULK_QUEUE``, or the default queue's name + "-bulk" when unset."""
    return settings.PODIUM_BULK_QUEUE or f"{default_queue()}-bulk"


def all_queues() -> list[str]:
    return [default_queue(), bulk_queue()]


def route_task(name: str, args: Any, kwargs: Any, options: Any, task: Any = None, **kw: Any):
    """Celery's router (``CELERY_TASK_ROUTES``): uploads to the bulk queue; an explicit
    ``queue=`` (a recompute's lane) wins over this."""
    if name == UPLOAD_TASK:
        return {"queue": bulk_queue()}
    return None


def bulk_worker_yield(sender: Any = None, instance: Any = None, **kwargs: Any) -> None:
    """``celeryd_after_setup``: a worker that consumes only the bulk queue lowers its CPU
    priority by ``PODIUM_BULK_WORKER_NICE`` before its pool starts (the children inherit
    it), so on shared cores a flood's work yields to the default queue's."""
    nice = settings.PODIUM_BULK_WORKER_NICE
    try:
        consumed = set(instance.app.amqp.queues.consume_from)
    except AttributeError:
        return
    if nice > 0 and consumed and consumed <= {bulk_queue()}:
        os.nice(nice)
