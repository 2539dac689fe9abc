"""The caching rules of ``snapshots/latest/`` in one place: its conditional GET (304),
its body serialised once per ETag, and the entry shared by anonymous readers, which
answers them from one cache read and no query (estimation/latest_cache.py).

The view decides who may read and what the validators are; everything after that
(which answer, from where, and what is kept) is here. Throttling is DRF's, as for
every view: the shared entry is read inside the view, after DRF's checks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import HttpResponse
from rest_framework.request import Request
from rest_framework.response import Response

from estimation.api.bodies import (
    CompressedBody,
    encoded_response,
    json_body_cached,
    not_modified_response,
    with_validators,
)
from estimation.latest_cache import (
    LatestEntry,
    latest_entry_get,
    latest_entry_put,
    latest_generation,
)


@dataclass(frozen=True)
class SharedAs:
    """An anonymous JSON answer of a public benchmark, kept for the next anonymous
    reader under the benchmark's ``slug`` and the ``metric`` as the client spelt it
    (``""``: the primary one). ``generation`` was read before the database."""

    slug: str
    metric: str
    generation: str | None


@dataclass(frozen=True)
class LatestAnswer:
    """What the view decided: the validators, whether the body may be kept (not while
    a newer version computes: its progress is in the body), where it is kept, and how
    to build it."""

    etag: str
    last_modified: datetime
    cacheable: bool
    body_key: str
    data: Callable[[], object]


def shared_metric(request: Request) -> str | None:
    """The metric under which this request's answer is shared with anonymous readers,
    or None: only for an anonymous JSON GET whose query holds nothing but ``metric``
    (DRF has checked its value by then)."""
    if request.method != "GET" or request.user.is_authenticated:
        return None
    if getattr(request.accepted_renderer, "format", None) != "json":
        return None
    if any(key != "metric" for key in request.query_params):
        return None
    return request.query_params.get("metric", "")


def shared_generation(request: Request, *, slug: str) -> SharedAs | None:
    """Read before the database: the benchmark's generation, for :func:`latest_respond`
    to store the answer only if nothing changed meanwhile (None: not shared)."""
    metric = shared_metric(request)
    if metric is None:
        return None
    return SharedAs(slug=slug, metric=metric, generation=latest_generation(slug=slug))


def latest_shared_response(request: Request, *, slug: str) -> HttpResponse | None:
    """The shared entry's answer (304 or 200), or None: then the view reads the database.
    The entry was made by the view for an anonymous request of a public benchmark, and is
    dropped whenever a snapshot, the benchmark or a metric changes."""
    metric = shared_metric(request)
    if metric is None or not _credential_free(request):
        return None
    entry = latest_entry_get(slug=slug, metric=metric)
    if entry is None:
        return None
    try:
        if entry.origin != request.build_absolute_uri("/"):
            return None  # the body's URLs name another host: the view builds this one's
    except DisallowedHost:
        return None
    return _answer(request, entry.etag, entry.last_modified, entry.body)


def latest_respond(
    request: Request, *, answer: LatestAnswer, shared: SharedAs | None
) -> HttpResponse:
    """304 when the client's validators match, else the body (from the cache when it may
    be kept); a body that may be shared is stored for the next anonymous reader, on a
    304 too, so that clients that only poll with If-None-Match are answered from it."""
    keep = shared is not None and answer.cacheable
    not_modified = not_modified_response(request, answer.etag, answer.last_modified)
    if not_modified is not None and not keep:
        return not_modified  # no section is read
    if not answer.cacheable:
        return with_validators(Response(answer.data()), answer.etag, answer.last_modified)
    body = json_body_cached(answer.body_key, answer.data)
    if shared is not None:
        latest_entry_put(
            slug=shared.slug,
            metric=shared.metric,
            generation=shared.generation,
            entry=LatestEntry(
                etag=answer.etag,
                last_modified=answer.last_modified,
                origin=request.build_absolute_uri("/"),
                body=body,
            ),
        )
    return _answer(request, answer.etag, answer.last_modified, body)


def _credential_free(request: Request) -> bool:
    """No Authorization header and no session cookie: a request that carries one (even
    of no session) is answered by the view, as a signed-in reader's would be."""
    return (
        "HTTP_AUTHORIZATION" not in request.META
        and settings.SESSION_COOKIE_NAME not in request.COOKIES
    )


def _answer(
    request: Request, etag: str, last_modified: datetime, body: CompressedBody
) -> HttpResponse:
    """304 or the encoded body, with the validators: the same bytes from either path."""
    return not_modified_response(request, etag, last_modified) or with_validators(
        encoded_response(request, body), etag, last_modified
    )
