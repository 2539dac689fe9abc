"""Reader pages for anonymous readers from one cache read, dropped with the snapshot.

A page whose view is decorated :func:`page_cached` (the leaderboard, its fragments and
permalinks, exports, charts, badges, the embed) is answered, for an anonymous GET of a
public benchmark, from a cache entry that holds the finished response of an earlier
request: status, headers, the body raw and compressed once (gzip, brotli), its ETag and
Last-Modified. A hit skips sessions, authentication, CSRF, the view and the template;
only the outer middleware (security headers, CSP) still runs. Every answer made or
served here is a conditional one: ``If-None-Match`` (weakly compared) or
``If-Modified-Since`` give 304.

What may be cached, and for whom:

- Only requests with no cookie but the CSRF one and no ``Authorization``: the page is the
  same for every such reader (anonymous pages render no CSRF token and no session
  state). A reader with a session always gets the view.
- Only a 200 that sets no cookie, is not ``Cache-Control: private``/``no-store``, and
  belongs to a *public* benchmark (checked in the database when the entry is written): a
  private or unlisted benchmark never has an entry, so no cache can leak it.
- A view may refuse one answer with :func:`page_cache_refuse` (the live page while a
  recompute runs: its progress moves without a signal).

Invalidation: the key carries the benchmark's generation token (estimation/latest_cache:
replaced whenever a snapshot, the benchmark, a metric or an algorithm of it changes, now
and after commit), read before the view runs; an entry of an older generation is never
read again, so a new snapshot version drops every page of the benchmark at once, and a
reader that rendered from the old rows stores under the old, dead token. Entries also
expire after ``ENTRY_SECONDS``. The cache fails open (config/cache.py): Redis down means
every request renders.

The ETag is the body's SHA-256 (the view's own, such as the badge's, is kept); the body
of a page is a function of the snapshot version it shows, so the ETag changes exactly
when the version (or anything else the page shows) does. Last-Modified is when the
entry was made (an upper bound of the change it reflects; If-None-Match, which browsers
send with it, decides first).
"""

from __future__ import annotations

import gzip
import hashlib
import logging
import time
from dataclasses import dataclass
from functools import wraps

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponse
from django.urls import Resolver404, resolve
from django.utils.cache import get_conditional_response, patch_vary_headers
from django.utils.http import http_date

from config.compression import MIN_BYTES, accepts_encoding, brotli_compress
from estimation.latest_cache import benchmark_generation

logger = logging.getLogger(__name__)

ENTRY_SECONDS = 600
MAX_QUERY_LENGTH = 1000  # a longer query string is rendered, never cached
BROTLI_QUALITY = 9  # once per entry: smaller than the per-response quality
_SKIPPED_HEADERS = frozenset({"content-length", "content-encoding", "etag", "last-modified"})
# Attributes django-csp reads from a response (decorators such as ``csp_replace``).
_CSP_ATTRIBUTES = (
    "_csp_exempt",
    "_csp_exempt_ro",
    "_csp_config",
    "_csp_config_ro",
    "_csp_update",
    "_csp_update_ro",
    "_csp_replace",
    "_csp_replace_ro",
)
_REFUSED = "_page_cache_refused"


@dataclass(frozen=True)
class PageEntry:
    headers: tuple[tuple[str, str], ...]
    attributes: tuple[tuple[str, object], ...]
    etag: str
    last_modified: int
    raw: bytes
    gzip: bytes | None
    br: bytes | None


def page_cached(view):
    """Mark a view whose anonymous answers :class:`PageCacheMiddleware` may keep; its URL
    must have a ``slug`` (the benchmark)."""

    @wraps(view)
    def marked(*args, **kwargs):
        return view(*args, **kwargs)

    marked.page_cached = True  # type: ignore[attr-defined]
    return marked


def page_cache_refuse(response: HttpResponse) -> HttpResponse:
    """Keep this one answer out of the cache."""
    setattr(response, _REFUSED, True)
    return response


def _anonymous(request: HttpRequest) -> bool:
    cookies = set(request.COOKIES) - {settings.CSRF_COOKIE_NAME}
    return not cookies and "HTTP_AUTHORIZATION" not in request.META


def _entry_key(slug: str, generation: str, url: str) -> str:
    return f"page:{slug}:{generation}:{hashlib.sha256(url.encode()).hexdigest()[:32]}"


def _public(slug: str) -> bool:
    from leaderboard.models import Benchmark

    return Benchmark.objects.filter(slug=slug, visibility=Benchmark.Visibility.PUBLIC).exists()


def _storable(response: HttpResponse) -> bool:
    if response.status_code != 200 or response.streaming or response.cookies:
        return False
    if getattr(response, _REFUSED, False):
        return False
    control = response.get("Cache-Control", "").lower()
    return "private" not in control and "no-store" not in control


def _entry_of(response: HttpResponse) -> PageEntry:
    raw = response.content
    etag = response.get("ETag") or '"' + hashlib.sha256(raw).hexdigest()[:32] + '"'
    big = len(raw) >= MIN_BYTES
    return PageEntry(
        headers=tuple(
            (name, value)
            for name, value in response.items()
            if name.lower() not in _SKIPPED_HEADERS
        ),
        attributes=tuple(
            (name, getattr(response, name)) for name in _CSP_ATTRIBUTES if hasattr(response, name)
        ),
        etag=etag.removeprefix("W/"),
        last_modified=int(time.time()),
        raw=raw,
        gzip=gzip.compress(raw, compresslevel=6, mtime=0) if big else None,
        br=brotli_compress(raw, quality=BROTLI_QUALITY) if big else None,
    )


def _answer(request: HttpRequest, entry: PageEntry) -> HttpResponse:
    accept = request.META.get("HTTP_ACCEPT_ENCODING", "")
    coding = next(
        (
            name
            for name, body in (("br", entry.br), ("gzip", entry.gzip))
            if body is not None and accepts_encoding(accept, name)
        ),
        None,
    )
    content = {"br": entry.br, "gzip": entry.gzip}.get(coding or "", entry.raw)
    response = HttpResponse(content)
    for name, value in entry.headers:
        response[name] = value
    for attribute, setting in entry.attributes:
        setattr(response, attribute, setting)
    response["ETag"] = entry.etag if coding is None else "W/" + entry.etag
    response["Last-Modified"] = http_date(entry.last_modified)
    if coding is not None:
        response["Content-Encoding"] = coding
    patch_vary_headers(response, ("Accept-Encoding",))
    not_modified = get_conditional_response(
        request, etag=entry.etag, last_modified=entry.last_modified, response=response
    )
    return not_modified if not_modified is not None else response


class PageCacheMiddleware:
    """Sits inside compression (its bodies come compressed) and outside sessions,
    authentication and CSRF (a hit needs none of them)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        slug, url = self._cacheable(request)
        if slug is None:
            return self.get_response(request)
        generation = benchmark_generation(slug=slug)
        key = _entry_key(slug, generation, url)
        entry = cache.get(key)
        if isinstance(entry, PageEntry):
            return _answer(request, entry)
        response = self.get_response(request)
        if not _storable(response) or not _public(slug):
            return response
        entry = _entry_of(response)
        cache.set(key, entry, timeout=ENTRY_SECONDS)
        return _answer(request, entry)

    @staticmethod
    def _cacheable(request: HttpRequest) -> tuple[str | None, str]:
        if request.method != "GET" or not _anonymous(request):
            return None, ""
        if len(request.META.get("QUERY_STRING", "")) > MAX_QUERY_LENGTH:
            return None, ""
        try:
            match = resolve(request.path_info)
            url = request.build_absolute_uri()
        except (Resolver404, DisallowedHost):
            return None, ""
        slug = match.kwargs.get("slug")
        if not getattr(match.func, "page_cached", False) or not isinstance(slug, str):
            return None, ""
        return slug, url
