"""The broker's queue as Redis holds it: how many tasks wait for a worker."""

from __future__ import annotations

import redis
from django.conf import settings

from config.cache import CACHE_ERRORS
from config.queues import all_queues

# kombu's Redis transport keeps one list per priority step: the queue's name, and the
# name + "\x06\x16" + step for steps 3, 6 and 9 (kombu.transport.redis.PRIORITY_STEPS).
PRIORITY_SUFFIXES = ("", "\x06\x163", "\x06\x166", "\x06\x169")


def broker_client() -> redis.Redis | None:
    url = settings.CELERY_BROKER_URL
    if not url.startswith(("redis://", "rediss://", "unix://")):
        return None
    return redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1)


def queue_depth(queue: str | None = None) -> int | None:
    """Tasks waiting in ``queue`` (else in the default and the bulk queue together);
    None without a Redis broker or when it cannot be reached."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return None
    client = broker_client()
    if client is None:
        return None
    names = [queue] if queue else all_queues()
    try:
        with client.pipeline(transaction=False) as pipe:
            for name in names:
                for suffix in PRIORITY_SUFFIXES:
                    pipe.llen(name + suffix)
            return sum(pipe.execute())
    except CACHE_ERRORS:
        return None
    finally:
        client.close()
