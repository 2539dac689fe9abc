"""Prometheus metrics (prometheus-client), served at ``/metrics``.

Per request, in every web process: ``podium_http_request_duration_seconds`` (a histogram
by method, view name and status class; its ``_count`` is the request rate). Under
gunicorn each worker writes its samples to files in ``PROMETHEUS_MULTIPROC_DIR``
(config/gunicorn.py sets one) and a scrape adds them up over the live workers.

At scrape time, read from the database and the broker (:class:`StateCollector`): the
broker queues' depths and each queue's live workers, the benchmarks waiting for a
recompute and the oldest change they lack, the stalled ones, versions left computing
with no task, tasks that gave up, the seconds since each worker and beat was last seen,
each served version's age and how long its run took, stored versions by status, and
consecutive recompute failures per benchmark. These describe shared state, so any web
process answers them alike. While the database is down, the queues and heartbeats are
read from Redis (``podium_database_up`` 0), as are the incidents (``podium_incidents_total``
by kind: a worker restarted after an unclean stop, a web worker killed or timed out).

Only public benchmarks are named in labels: an unlisted benchmark's slug is the only
secret that keeps it unlisted, and a private one's name is its maintainers' business.
The others are folded into one series labelled ``benchmark="(not public)"`` (the worst of
them: the oldest, the slowest, the most failures), enough for an alert.
"""

from __future__ import annotations

import ipaddress
import os
import time
from functools import lru_cache

from django.conf import settings
from django.core.signals import setting_changed
from django.db import DatabaseError
from django.db.models import Count
from django.dispatch import receiver
from django.urls import Resolver404, resolve
from prometheus_client import CollectorRegistry, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

from operations.incidents import incident_totals

REQUEST_SECONDS = Histogram(
    "podium_http_request_duration_seconds",
    "Time from the request reaching Django to its response, by view.",
    ["method", "view", "status"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60),
)
METHODS = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}
NOT_PUBLIC = "(not public)"


def _view_name(request) -> str:
    match = getattr(request, "resolver_match", None)
    if match is None:  # answered by a middleware before URL resolution (the fast path)
        return _path_view_name(request.path_info)
    return match.view_name or match._func_path


@lru_cache(maxsize=1024)  # bounded: a path is at most gunicorn's 4 kB request line
def _path_view_name(path: str) -> str:
    """Resolved once per path and process: a cached page's hit would otherwise pay a
    second URL resolution (about a sixth of a badge hit's CPU, profiled)."""
    try:
        match = resolve(path)
    except Resolver404:
        return "unmatched"
    return match.view_name or match._func_path


@receiver(setting_changed)
def _urlconf_changed(*, setting: str, **kwargs) -> None:
    if setting == "ROOT_URLCONF":
        _path_view_name.cache_clear()


class RequestMetricsMiddleware:
    """Times every request Django answers (outermost, so middleware answers count)."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        start = time.perf_counter()
        response = self.get_response(request)
        method = request.method if request.method in METHODS else "other"
        REQUEST_SECONDS.labels(
            method=method, view=_view_name(request), status=f"{response.status_code // 100}xx"
        ).observe(time.perf_counter() - start)
        return response


class StateCollector(Collector):
    """Gauges of the deployment's shared state, read when scraped."""

    def collect(self):
        from estimation.models import RecomputeState, ResultSnapshot
        from leaderboard.models import Benchmark
        from operations.status import (
            operations_status,
            operations_status_without_database,
            served_snapshot_ages,
        )

        try:
            status = operations_status()
            ages = served_snapshot_ages(now=status.now)
            by_status = dict(
                ResultSnapshot.objects.values_list("status").annotate(n=Count("pk")).order_by()
            )
            failing = list(
                RecomputeState.objects.filter(failures__gt=0).values_list(
                    "benchmark__slug", "benchmark__visibility", "failures"
                )
            )
        except DatabaseError as exc:
            # What Redis knows still answers: each queue's workers and depth.
            status = operations_status_without_database(database=type(exc).__name__)
            yield _gauge("podium_database_up", "Whether the database answered.", 0)
            yield from _process_gauges(status)
            return
        yield _gauge("podium_database_up", "Whether the database answered.", 1)
        yield from _process_gauges(status)
        queued = GaugeMetricFamily(
            "podium_recomputes_queued", "Benchmarks whose input changed since their last run."
        )
        queued.add_metric([], status.recomputes_queued)
        yield queued
        wait = GaugeMetricFamily(
            "podium_recompute_oldest_wait_seconds",
            "Since the oldest change the served results lack was asked for (not the "
            "newest's: a steady stream of changes does not reset it).",
        )
        if status.oldest_queued_at is not None:
            wait.add_metric([], (status.now - status.oldest_queued_at).total_seconds())
        yield wait
        yield _gauge(
            "podium_recomputes_stalled",
            "Benchmarks whose recompute no worker runs: a version left computing, or new "
            "input waiting past PODIUM_RECOMPUTE_STALL_SECONDS.",
            len(status.stalled),
        )
        yield _gauge(
            "podium_versions_orphaned",
            "Versions marked computing that no task runs.",
            sum(1 for p in status.problems if p.kind == "orphaned"),
        )
        yield _gauge(
            "podium_task_failures_recent",
            "Background tasks that gave up in the last day (database outages included).",
            len(status.task_failures),
        )
        age = GaugeMetricFamily(
            "podium_snapshot_age_seconds",
            "Since the served version of each benchmark and metric finished.",
            labels=["benchmark", "metric"],
        )
        duration = GaugeMetricFamily(
            "podium_recompute_duration_seconds",
            "How long the run of the served version took (created to finished).",
            labels=["benchmark", "metric"],
        )
        hidden = [row for row in ages if not row.public]
        for row in ages:
            if row.public:
                age.add_metric([row.slug, row.metric], row.age_seconds)
                if row.duration_seconds is not None:
                    duration.add_metric([row.slug, row.metric], row.duration_seconds)
        if hidden:
            age.add_metric([NOT_PUBLIC, ""], max(row.age_seconds for row in hidden))
            if durations := [r.duration_seconds for r in hidden if r.duration_seconds is not None]:
                duration.add_metric([NOT_PUBLIC, ""], max(durations))
        yield age
        yield duration
        stored = GaugeMetricFamily(
            "podium_snapshots", "Stored result versions, by status.", labels=["status"]
        )
        for value in ResultSnapshot.Status.values:
            stored.add_metric([value], by_status.get(value, 0))
        yield stored
        failures = GaugeMetricFamily(
            "podium_recompute_failures",
            "Consecutive runs of a benchmark that could not load or store its results.",
            labels=["benchmark"],
        )
        hidden_failures = 0
        for slug, visibility, count in failing:
            if visibility == Benchmark.Visibility.PUBLIC:
                failures.add_metric([slug], count)
            else:
                hidden_failures = max(hidden_failures, count)
        if hidden_failures:
            failures.add_metric([NOT_PUBLIC], hidden_failures)
        yield failures


def _gauge(name: str, documentation: str, value: float) -> GaugeMetricFamily:
    gauge = GaugeMetricFamily(name, documentation)
    gauge.add_metric([], value)
    return gauge


def _process_gauges(status):
    """The broker's queues and the heartbeats: known with or without the database."""
    depth = GaugeMetricFamily(
        "podium_queue_depth", "Tasks waiting in the broker's queues (absent: unknown)."
    )
    if status.queue_depth is not None:
        depth.add_metric([], status.queue_depth)
    yield depth
    tasks = GaugeMetricFamily(
        "podium_queue_tasks", "Tasks waiting in each broker queue.", labels=["queue"]
    )
    alive = GaugeMetricFamily(
        "podium_queue_workers_alive",
        "Workers consuming each queue seen within three heartbeat intervals (0 on one "
        "queue is a dead worker there, whatever the other queue's workers do).",
        labels=["queue"],
    )
    silence = GaugeMetricFamily(
        "podium_queue_worker_silence_seconds",
        "Since any worker consuming each queue was last seen (absent: never).",
        labels=["queue"],
    )
    for queue in status.queues:
        if queue.depth is not None:
            tasks.add_metric([queue.queue], queue.depth)
        alive.add_metric([queue.queue], queue.alive)
        if queue.seen_at is not None:
            silence.add_metric([queue.queue], (status.now - queue.seen_at).total_seconds())
    yield tasks
    yield alive
    yield silence
    seen = GaugeMetricFamily(
        "podium_heartbeat_age_seconds",
        "Since each Celery worker or beat last recorded its heartbeat.",
        labels=["role", "name"],
    )
    for process in (*status.workers, *status.beats):
        seen.add_metric([process.role, process.name], process.age_seconds)
    yield seen
    incidents = CounterMetricFamily(
        "podium_incidents",
        "Faults over before anyone looked, by kind (a worker restarted after an unclean "
        "stop, a web worker killed or timed out), since Redis last started.",
        labels=["kind"],
    )
    for kind, count in (incident_totals() or {}).items():
        incidents.add_metric([kind], count)
    yield incidents


# Headers a proxy adds when it relays a request (Caddy and nginx set X-Forwarded-For).
_RELAYED = ("X-Forwarded-For", "Forwarded", "X-Real-IP")


def metrics_peer_allowed(request) -> bool:
    """Whether ``request`` comes straight from ``PODIUM_METRICS_NETWORKS``.

    A relayed request never does: behind a proxy on that network (Caddy on compose's)
    the peer is the proxy, whoever its client is.
    """
    networks = settings.PODIUM_METRICS_NETWORKS
    if not networks or any(header in request.headers for header in _RELAYED):
        return False
    try:
        peer = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    if isinstance(peer, ipaddress.IPv6Address) and peer.ipv4_mapped is not None:
        peer = peer.ipv4_mapped  # a dual-stack socket's view of an IPv4 client
    return any(peer in ipaddress.ip_network(network) for network in networks)


def metrics_exposition() -> bytes:
    """The text format of every metric: this process's (or all gunicorn workers')
    request histograms, and the shared state's gauges."""
    registry = CollectorRegistry(auto_describe=False)
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        MultiProcessCollector(registry)
    else:
        registry.register(_ThisProcess())
    registry.register(StateCollector())
    return generate_latest(registry)


class _ThisProcess(Collector):
    """Only this module's request histogram from the default registry (no process or
    platform collectors, which multiprocess mode cannot add up either)."""

    def collect(self):
        yield from REQUEST_SECONDS.collect()
