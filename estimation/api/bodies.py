"""A JSON answer's body serialised and compressed once per ETag (then served from the
cache), sent in the encoding the client takes, with its validators and 304s."""

from __future__ import annotations

import gzip
import logging
from collections.abc import Callable
from dataclasses import dataclass

from django.http import HttpRequest, HttpResponse
from django.utils.cache import get_conditional_response, patch_cache_control, patch_vary_headers
from django.utils.http import http_date
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request

from config.cache import pages_cache
from config.compression import accepts_encoding, brotli_compress

logger = logging.getLogger(__name__)

BODY_CACHE_SECONDS = 3600  # bodies are keyed by their ETag: this only bounds the memory
# Compressed once per body; 5 keeps the first request of a large section quick.
BODY_BROTLI_QUALITY = 5


@dataclass(frozen=True)
class CompressedBody:
    raw: bytes
    gzip: bytes
    br: bytes


def json_body_cached(key: str, data: Callable[[], object]) -> CompressedBody:
    """A response body serialised and compressed once, then served from the cache.

    The key carries the ETag, so a cached body is never stale; a cache outage only
    costs the serialisation. (A JSON API answer carries no secret, so compressing it
    once is BREACH-safe.)
    """
    key = f"b2:{key}"  # b2: bodies with brotli
    try:
        cached = pages_cache.get(key)
    except Exception:  # the cache is an optimisation: a broken one must not break the API
        logger.warning("API body cache unavailable", exc_info=True)
        cached = None
    if cached is not None:
        return cached
    value = data()
    raw = value if isinstance(value, bytes) else JSONRenderer().render(value)
    body = CompressedBody(
        raw=raw,
        gzip=gzip.compress(raw, compresslevel=6, mtime=0),
        br=brotli_compress(raw, quality=BODY_BROTLI_QUALITY),
    )
    try:
        pages_cache.set(key, body, timeout=BODY_CACHE_SECONDS)
    except Exception:
        logger.warning("API body cache unavailable", exc_info=True)
    return body


def encoded_response(request: HttpRequest | Request, body: CompressedBody) -> HttpResponse:
    """The brotli or gzip bytes when the client takes them, else the plain ones."""
    accept = request.META.get("HTTP_ACCEPT_ENCODING", "")
    coding = next((c for c in ("br", "gzip") if accepts_encoding(accept, c)), None)
    content = {"br": body.br, "gzip": body.gzip, None: body.raw}[coding]
    response = HttpResponse(content, content_type="application/json")
    if coding:
        response["Content-Encoding"] = coding
    patch_vary_headers(response, ("Accept", "Accept-Encoding"))
    return response


def not_modified_response(
    request: HttpRequest | Request, etag: str, last_modified
) -> HttpResponse | None:
    """304 when the client's validators still match (If-None-Match wins, weakly compared)."""
    timestamp = int(last_modified.timestamp()) if last_modified else None
    response = get_conditional_response(request, etag=etag, last_modified=timestamp)
    if response is not None:
        with_validators(response, etag, last_modified)
    return response


def with_validators(response: HttpResponse, etag: str, last_modified) -> HttpResponse:
    response["ETag"] = etag
    if last_modified:
        response["Last-Modified"] = http_date(last_modified.timestamp())
    # Always revalidate; private because what a user may see depends on who asks.
    patch_cache_control(response, private=True, no_cache=True)
    return response
