"""Reader pages from one cache read, dropped with the snapshot.

A page whose view is decorated :func:`page_cached` or one of its variants (the
leaderboard, its fragments and permalinks, exports, charts, badges, the embed) is
answered, for a GET of a public benchmark, from a cache entry that holds the finished response of an earlier
request: status, headers, the body raw and compressed once (gzip, brotli), its ETag and
Last-Modified. An anonymous hit skips sessions, authentication, CSRF, the view and the
template; only the outer middleware (security headers, CSP) still runs. Every answer made or
served here is a conditional one: ``If-None-Match`` (weakly compared) or
``If-Modified-Since`` give 304.

What may be cached, and for whom:

- Only answers to requests with no cookie but the CSRF one and no ``Authorization``: the
  page is the same for every such reader (anonymous pages render no CSRF token and no
  session state). A miss of a reader with a session or a token is filled by the same
  request with its cookies and credentials taken away, so every entry is an anonymous
  rendering by construction.
- Whom an entry answers depends on the view's mark. :func:`page_cached`: anonymous
  readers only (a reader with a session gets the view). :func:`page_cached_for_every_reader`
  (the badge, exports, board fragments, the embed: their bytes depend on nothing of the
  reader, only on the benchmark being readable, and an entry exists only for a public
  benchmark, which everyone may read): every reader gets the entry.
  :func:`page_cached_with_shell` (the leaderboard, a permalink, the charts page): a
  signed-in reader gets the entry with their own regions (navigation, maintainer links)
  drawn for them by the view's shell, after sessions, authentication and CSRF ran
  (frontend/page_shell.py); that answer is never stored.
- Only a 200 that sets no cookie, is not ``Cache-Control: private``/``no-store``, and
  belongs to a *public* benchmark (checked in the database when the entry is written): a
  private or unlisted benchmark never has an entry, so no cache can leak it.
- A view may refuse one answer with :func:`page_cache_refuse` (the live page while a
  recompute runs: its progress moves without a signal).

Invalidation: an entry carries the benchmark's generation token (estimation/latest_cache:
replaced whenever a snapshot, the benchmark, a metric or an algorithm of it changes, now
and after commit), read with the entry in one round trip before the view runs; an entry
of another generation is never served, so a new snapshot version drops every page of the
benchmark at once, and a reader that rendered from the old rows stores it under the
old, dead token. Entries also expire after ``ENTRY_SECONDS``. Each coding (identity,
gzip, brotli) is its own entry, so a hit moves only the bytes it sends. The cache fails open (config/cache.py): Redis down means
every request renders.

A signed-in reader who takes gzip (every browser) gets one gzip member joined from
pieces: the entry's identity body cut at its region markers (frontend/page_regions.py),
each span compressed once per process as raw deflate with no history and no final block
(:func:`_cut_page`), and only this reader's regions compressed per request
(config/compression.py: ``deflated_piece``, ``gzip_joined``). BREACH: the reader's
secret (the CSRF token of the log-out form, in the navigation region) and anything the
request reflects sit in deflate pieces that share no history with the rest of the page,
so no guess in one piece can shorten another, and the length of a region's piece says
only what its own text compresses to; the header keeps Django's random-length padding
(GZipMiddleware, "Heal The Breach"). Brotli is never used for a signed-in answer.

Cache busting: an entry is keyed by the query parameters reader pages read
(``READER_PARAMETERS``), in a canonical order; any other parameter is dropped from the
request before the view runs, so junk in the query string reaches the same entry as
none at all. What a miss costs (a full render and three stored codings) is bounded per
client address: beyond ``PODIUM_THROTTLE_PAGE_MISS`` an anonymous miss is answered 429.
Entries live in the "pages" cache, apart from the counters of the default cache
(config/cache.py), so that filling it evicts no throttle or sign-up limit.

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
import math
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache, wraps
from urllib.parse import parse_qsl, urlencode

from django.conf import settings
from django.core.handlers.wsgi import WSGIRequest
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified, QueryDict
from django.urls import Resolver404, resolve
from django.utils.cache import get_conditional_response, patch_cache_control, patch_vary_headers
from django.utils.http import http_date

from config.cache import PAGES_ALIAS, pages_cache
from config.compression import (
    MIN_BYTES,
    accepts_encoding,
    brotli_compress,
    crc32_shift,
    crc32_shifted,
    deflated_piece,
    gzip_joined,
)
from config.sessions import prefetch_names, prefetched_keep
from estimation.latest_cache import benchmark_generation, generation_cache_key
from frontend.page_regions import drawn_insides, page_spans, regions_of, spans_replaced
from leaderboard.throttling import page_miss_wait

logger = logging.getLogger(__name__)

ENTRY_SECONDS = 600
MAX_QUERY_LENGTH = 1000  # a longer query string (of reader parameters) is never cached
# Every query parameter a cached view reads (readers/views.py, readers/table_filters.py,
# explore/views.py, templatetags/charts.py); a cached view sees only these.
READER_PARAMETERS = frozenset(
    {
        "metric", "estimator", "control", "page", "all", "sort", "order",
        "q", "family", "licence", "precision", "open_weights", "size_min", "size_max",
        "cols", "ds", "headers",
    }
)  # fmt: skip
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
_SHARED = "_page_cache_shared"  # the anonymous entry a shell view draws around


@dataclass(frozen=True)
class PageEntry:
    """One coding of a cached answer (``coding``: "br", "gzip" or "" for identity), with
    the generation it was rendered under."""

    generation: str
    coding: str
    headers: tuple[tuple[str, str], ...]
    attributes: tuple[tuple[str, object], ...]
    etag: str
    last_modified: int
    body: bytes
    # Every header of the answer (the view's, ETag, Last-Modified, Content-Encoding,
    # Vary), built once when the entry is made, not per hit.
    http_headers: tuple[tuple[str, str], ...] = ()
    # The headers a 304 keeps (RFC 9110 15.4.5, and Last-Modified), also built once: a
    # conditional hit costs no more than a plain one.
    not_modified_headers: tuple[tuple[str, str], ...] = ()
    # The identity body's hash, which names it in a process's cuts (_cut_page).
    digest: str = ""


CODINGS = ("br", "gzip", "")
HEAD = "head"
"""The identity entry without its body, which a signed-in reader's request reads: the
process that holds the body's cuts (:func:`_cut_page`, by the entry's ``digest``) sends
no page through Redis (a charts page is 456 kB)."""


def page_cached(view):
    """Mark a view whose anonymous answers :class:`PageCacheMiddleware` may keep; its URL
    must have a ``slug`` (the benchmark). A signed-in reader gets the view."""

    @wraps(view)
    def marked(*args, **kwargs):
        return view(*args, **kwargs)

    marked.page_cached = True  # type: ignore[attr-defined]
    return marked


def page_cached_for_every_reader(view):
    """:func:`page_cached`, and its entry answers readers with a session or a token as
    well: only for a view whose answer for a public benchmark is the same whoever asks
    (it reads the reader for nothing but whether the benchmark is readable)."""
    marked = page_cached(view)
    marked.page_cached_every_reader = True
    return marked


Shell = Callable[..., Mapping[str, str]]


def page_cached_with_shell(shell: Shell):
    """:func:`page_cached`, and a signed-in reader gets the anonymous entry with their own
    regions drawn by ``shell(request, generation=..., **view_kwargs)`` (frontend/page_shell.py:
    each region's HTML by name; ``generation`` is the benchmark's generation token the
    entry was made under). The view runs when the page lacks one of them (a template
    changed)."""

    def decorate(view):
        @wraps(view)
        def marked(request, *args, **kwargs):
            shared = getattr(request, _SHARED, None)
            if shared is not None:
                drawings = shell(request, generation=shared.generation, **kwargs)
                answer = _shell_answer(request, shared, drawings)
                if answer is not None:
                    return answer
            return view(request, *args, **kwargs)

        marked.page_cached = True  # type: ignore[attr-defined]
        marked.page_cached_shell = True  # type: ignore[attr-defined]
        return marked

    return decorate


def _shell_answer(
    request: HttpRequest, shared: PageEntry, drawings: Mapping[str, str]
) -> HttpResponse | None:
    """A signed-in reader's page, gzip-ed from pieces when they take gzip: the entry's
    headers, without its validators (the body is this reader's), and private (a shared
    cache must not keep it). None when the page lacks one of the reader's regions."""
    accept = request.META.get("HTTP_ACCEPT_ENCODING", "")
    gzipped = accepts_encoding(accept, "gzip") and len(shared.body) >= MIN_BYTES
    body = _gzip_drawn(shared, drawings) if gzipped else _drawn(shared, drawings)
    if body is None:
        return None
    response = _with_attributes(HttpResponse(body, headers=dict(shared.headers)), shared)
    if gzipped:  # the compression middleware leaves an encoded answer alone
        response["Content-Encoding"] = "gzip"
        response["Content-Length"] = str(len(body))
    patch_vary_headers(response, ("Accept-Encoding",))
    patch_cache_control(response, private=True)
    return response


class _CutPage:
    """An entry's identity body cut at its regions (frontend/page_regions.py), and each
    span compressed on its own (config/compression.deflated_piece) the first time a
    reader takes gzip."""

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.regions = regions_of(body)
        self.spans = page_spans(body, self.regions)

    @cached_property
    def deflated(self) -> tuple[bytes, ...]:
        return tuple(deflated_piece(self.body[start:end]) for start, end in self.spans)

    @cached_property
    def crcs(self) -> tuple[tuple[int, tuple[int, ...]], ...]:
        """Each span's CRC-32 and what its length does to one before it."""
        view = memoryview(self.body)
        return tuple(
            (zlib.crc32(view[start:end]), crc32_shift(end - start)) for start, end in self.spans
        )


CUT_PAGES_KEPT = 32  # per process; each holds its body (a charts page: 456 kB) and pieces
_cut_pages: OrderedDict[str, _CutPage] = OrderedDict()
_cut_pages_lock = threading.Lock()


def _kept_cut_page(digest: str) -> _CutPage | None:
    """The cuts of the identity body whose hash is ``digest``, if this process holds
    them (most recently used kept)."""
    with _cut_pages_lock:
        page = _cut_pages.get(digest)
        if page is not None:
            _cut_pages.move_to_end(digest)
        return page


def _cut_page(shared: PageEntry) -> _CutPage:
    """``shared``'s identity body cut once per process, named by its hash. A signed-in
    reader's page then scans no marker."""
    key = shared.digest
    if not key:  # nothing names the body: cut for this request only
        return _CutPage(shared.body)
    page = _kept_cut_page(key)
    if page is not None:
        return page
    page = _CutPage(shared.body)
    with _cut_pages_lock:
        _cut_pages[key] = page
        while len(_cut_pages) > CUT_PAGES_KEPT:
            _cut_pages.popitem(last=False)
    return page


def _drawn(shared: PageEntry, drawings: Mapping[str, str]) -> bytes | None:
    """:func:`regions_replaced` of the entry's body, from its cuts."""
    if not drawings:  # a cookie of no session, or a reader with nothing of their own
        return shared.body
    page = _cut_page(shared)
    insides = drawn_insides(page.regions, drawings)
    if insides is None:
        return None
    return spans_replaced(shared.body, page.spans, insides)


def _gzip_drawn(shared: PageEntry, drawings: Mapping[str, str]) -> bytes | None:
    """:func:`regions_replaced`'s page gzip-ed as one member whose shared spans were
    compressed once: per request only the reader's regions are compressed."""
    page = _cut_page(shared)
    insides = drawn_insides(page.regions, drawings)
    if insides is None:
        return None
    crc, size, pieces = 0, 0, []
    for index, ((start, end), (span_crc, shift)) in enumerate(
        zip(page.spans, page.crcs, strict=True)
    ):
        inside = insides.get(index)
        if inside is None:  # shared: its CRC carried over, not computed again
            crc = crc32_shifted(crc, shift) ^ span_crc
            size += end - start
            pieces.append(page.deflated[index])
        else:
            crc = zlib.crc32(inside, crc)
            size += len(inside)
            pieces.append(deflated_piece(inside))
    return gzip_joined(pieces, crc=crc, size=size)


def page_cache_refuse(response: HttpResponse) -> HttpResponse:
    """Keep this one answer out of the cache."""
    setattr(response, _REFUSED, True)
    return response


def _anonymous(request: HttpRequest) -> bool:
    cookies = set(request.COOKIES) - {settings.CSRF_COOKIE_NAME}
    return not cookies and "HTTP_AUTHORIZATION" not in request.META


def _entry_key(slug: str, url: str, coding: str) -> str:
    # "v4": entries made before PageEntry gained ``digest`` are never read.
    return f"page:v4:{slug}:{hashlib.sha256(url.encode()).hexdigest()[:32]}:{coding}"


def _request_identity(request: HttpRequest) -> str:
    """What the body can depend on, from the request as it came: scheme, the host
    headers, path and query. Raw, not validated: an entry is stored only after the view
    answered 200, which it does only for an allowed host (CommonMiddleware's check), so
    a request naming another host finds no entry and goes to that check."""
    meta = request.META
    parts = (
        request.scheme,
        meta.get("HTTP_X_FORWARDED_HOST", ""),
        meta.get("HTTP_HOST", ""),
        meta.get("SERVER_NAME", ""),
        meta.get("SERVER_PORT", ""),
        request.path,
        meta.get("QUERY_STRING", ""),  # canonical by now (_reader_query)
    )
    return "\x1f".join(str(part) for part in parts)


def _reader_query(query_string: str) -> str:
    """The reader parameters of a query string, sorted by name (each name's values in
    their order: ``ds`` lists are ordered), re-encoded; every other parameter dropped."""
    kept = [
        (name, value)
        for name, value in parse_qsl(query_string, keep_blank_values=True)
        if name in READER_PARAMETERS
    ]
    return urlencode(sorted(kept, key=lambda pair: pair[0]))


def _too_many_misses(request: HttpRequest, wait: float) -> HttpResponse:
    response = HttpResponse(
        "Too many pages asked for that are not in the cache; try again in a minute.\n",
        status=429,
        content_type="text/plain; charset=utf-8",
    )
    response["Retry-After"] = str(math.ceil(wait))
    return response


def _coding(request: HttpRequest) -> str:
    accept = request.META.get("HTTP_ACCEPT_ENCODING", "")
    return next((name for name in ("br", "gzip") if accepts_encoding(accept, name)), "")


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


def _entries_of(response: HttpResponse, generation: str, *, shell: bool) -> dict[str, PageEntry]:
    """The answer in each coding (compressed once here, not per request), and for a
    page with a reader's part (``shell``) its head."""
    raw = response.content
    digest = hashlib.sha256(raw).hexdigest()[:32]
    etag = response.get("ETag") or f'"{digest}"'
    bodies = {"": raw}
    if len(raw) >= MIN_BYTES:
        bodies["gzip"] = gzip.compress(raw, compresslevel=6, mtime=0)
        bodies["br"] = brotli_compress(raw, quality=BROTLI_QUALITY)
    headers = tuple(
        (name, value) for name, value in response.items() if name.lower() not in _SKIPPED_HEADERS
    )
    attributes = tuple(
        (name, getattr(response, name)) for name in _CSP_ATTRIBUTES if hasattr(response, name)
    )
    now = int(time.time())
    entries = {}
    for coding in CODINGS:
        entry = PageEntry(
            generation=generation,
            coding=coding if coding in bodies else "",
            headers=headers,
            attributes=attributes,
            etag=etag.removeprefix("W/"),
            last_modified=now,
            body=bodies.get(coding, raw),
            digest=digest,
        )
        http_headers = _http_headers(entry)
        entries[coding] = replace(
            entry,
            http_headers=http_headers,
            not_modified_headers=tuple(
                (name, value) for name, value in http_headers if name.lower() in _KEPT_BY_304
            ),
        )
    if shell:
        entries[HEAD] = replace(entries[""], body=b"")
    return entries


def _http_headers(entry: PageEntry) -> tuple[tuple[str, str], ...]:
    response = HttpResponse()
    del response["Content-Type"]
    for name, value in entry.headers:
        response[name] = value
    response["ETag"] = "W/" + entry.etag if entry.coding else entry.etag
    response["Last-Modified"] = http_date(entry.last_modified)
    if entry.coding:
        response["Content-Encoding"] = entry.coding
    patch_vary_headers(response, ("Accept-Encoding",))
    return tuple(response.items())


# What a 304 keeps of the 200's headers (django.utils.cache._not_modified's list).
_KEPT_BY_304 = frozenset(
    {"cache-control", "content-location", "date", "etag", "expires", "last-modified", "vary"}
)
_CONDITIONAL = (
    "HTTP_IF_NONE_MATCH",
    "HTTP_IF_MODIFIED_SINCE",
    "HTTP_IF_MATCH",
    "HTTP_IF_UNMODIFIED_SINCE",
)


def _with_attributes(response: HttpResponse, entry: PageEntry) -> HttpResponse:
    for attribute, setting in entry.attributes:
        setattr(response, attribute, setting)
    return response


def _answer(request: HttpRequest, entry: PageEntry) -> HttpResponse:
    meta = request.META
    asked = meta.get("HTTP_IF_NONE_MATCH")
    if asked is not None and "HTTP_IF_MATCH" not in meta and "HTTP_IF_UNMODIFIED_SINCE" not in meta:
        # The conditional hit (a poller revalidating): If-None-Match decides alone (RFC
        # 9110 13.2.2: If-Modified-Since is then ignored), compared weakly; the 304 is
        # made from headers built with the entry, and no 200 is built first.
        tags = {tag.strip().removeprefix("W/") for tag in asked.split(",")}
        if entry.etag in tags or "*" in tags:
            revalidated = HttpResponseNotModified(headers=dict(entry.not_modified_headers))
            return _with_attributes(revalidated, entry)
        return _with_attributes(HttpResponse(entry.body, headers=dict(entry.http_headers)), entry)
    response = _with_attributes(HttpResponse(entry.body, headers=dict(entry.http_headers)), entry)
    if not any(name in meta for name in _CONDITIONAL):
        return response  # nothing to compare: the 200 (most hits)
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
        slug, url, reader = self._cacheable(request)
        if slug is None:
            return self.get_response(request)
        anonymous = _anonymous(request)
        shelled = reader == SHELL and not anonymous
        # A shell draws into the identity body (and gzips it from pieces: _shell_answer),
        # which its head names.
        coding = HEAD if shelled else _coding(request)
        generation_key = generation_cache_key(slug=slug)
        key = _entry_key(slug, url, coding)
        # The reader's session, read in the same round trip (config/sessions.py).
        session_names = prefetch_names(request, PAGES_ALIAS) if shelled else None
        found = pages_cache.get_many([generation_key, key, *(session_names or ())])
        generation = found.get(generation_key)
        entry = found.get(key)
        if generation is None:
            generation = benchmark_generation(slug=slug)
            entry = None
        elif not (isinstance(entry, PageEntry) and entry.generation == generation):
            entry = None
        elif shelled:
            entry = _identity_entry(slug, url, entry)
        if entry is not None and session_names is not None:
            # A hit answers now; a miss renders first, and its session is read afterwards.
            prefetched_keep(request, session_names, found)
        if entry is None and anonymous:
            wait = page_miss_wait(request)
            if wait is not None:
                return _too_many_misses(request, wait)
            response = self.get_response(request)
            if not _storable(response) or not _public(slug):
                return response
            stored = self._store(response, slug, url, generation, shell=reader == SHELL)
            return _answer(request, stored[coding])
        if entry is None:
            entries = self._fill(request, slug, url, generation, shell=reader == SHELL)
            if entries is None:
                return self.get_response(request)  # the view, for this reader
            entry = entries["" if shelled else coding]
        if not shelled:
            return _answer(request, entry)
        setattr(request, _SHARED, entry)  # the view draws this reader's part around it
        return self.get_response(request)

    @staticmethod
    def _store(
        response: HttpResponse, slug: str, url: str, generation: str, *, shell: bool
    ) -> dict[str, PageEntry]:
        """Every coding of the answer, and a shell page's head, stored."""
        entries = _entries_of(response, generation, shell=shell)
        pages_cache.set_many(
            {_entry_key(slug, url, name): value for name, value in entries.items()},
            timeout=ENTRY_SECONDS,
        )
        return entries

    def _fill(
        self, request: HttpRequest, slug: str, url: str, generation: str, *, shell: bool
    ) -> dict[str, PageEntry] | None:
        """The entry a signed-in reader missed, made by the same request with its cookies
        and credentials taken away (so the stored page is the anonymous one by
        construction); None (the view answers the reader) for a benchmark not public,
        an answer that is not stored, or past the address's miss limit."""
        if not isinstance(request, WSGIRequest) or not _public(slug):
            return None
        if page_miss_wait(request) is not None:
            return None
        response = self.get_response(_anonymous_copy(request))
        if not _storable(response):
            return None
        return self._store(response, slug, url, generation, shell=shell)

    @staticmethod
    def _cacheable(request: HttpRequest) -> tuple[str | None, str, str]:
        if request.method != "GET":
            return None, "", ""
        page = _cached_page(request.path_info)
        if page is None:
            return None, "", ""
        slug, reader = page
        if reader == ANONYMOUS and not _anonymous(request):
            return None, "", ""
        # The view sees the request as its entry is keyed: reader parameters only.
        query = _reader_query(request.META.get("QUERY_STRING", ""))
        request.META["QUERY_STRING"] = query
        request.GET = QueryDict(query)
        if len(query) > MAX_QUERY_LENGTH:
            return None, "", ""
        return slug, _request_identity(request), reader


def _identity_entry(slug: str, url: str, head: PageEntry) -> PageEntry | None:
    """The identity entry ``head`` heads: its body from this process's cuts when it holds
    them, else from the cache (None: gone, or replaced since the head was read)."""
    page = _kept_cut_page(head.digest)
    if page is not None:
        return replace(head, body=page.body)
    entry = pages_cache.get(_entry_key(slug, url, ""))
    if isinstance(entry, PageEntry) and entry.digest == head.digest:
        _cut_page(entry)  # kept: the next reader of this page reads only its head
        return entry
    return None


def _anonymous_copy(request: WSGIRequest) -> WSGIRequest:
    """``request`` as a reader with no cookie and no ``Authorization`` would send it."""
    environ = {
        name: value
        for name, value in request.environ.items()
        if name not in ("HTTP_COOKIE", "HTTP_AUTHORIZATION")
    }
    return WSGIRequest(environ)


# Who an entry answers (_cached_page): anonymous readers only; every reader the same
# bytes; every reader, a signed-in one with their own part drawn around it.
ANONYMOUS, EVERY_READER, SHELL = "anonymous", "every reader", "shell"


@lru_cache(maxsize=4096)
def _cached_page(path: str) -> tuple[str, str] | None:
    """The benchmark slug of a path whose view is :func:`page_cached`, and whom its entry
    answers (``ANONYMOUS``, ``EVERY_READER``, ``SHELL``), else None (resolved once per
    path and process; dropped when the URLconf setting changes)."""
    try:
        match = resolve(path)
    except Resolver404:
        return None
    slug = match.kwargs.get("slug")
    if not getattr(match.func, "page_cached", False) or not isinstance(slug, str):
        return None
    if getattr(match.func, "page_cached_every_reader", False):
        return slug, EVERY_READER
    if getattr(match.func, "page_cached_shell", False):
        return slug, SHELL
    return slug, ANONYMOUS


@receiver(setting_changed)
def _urlconf_changed(*, setting: str, **kwargs) -> None:
    if setting == "ROOT_URLCONF":
        _cached_page.cache_clear()
