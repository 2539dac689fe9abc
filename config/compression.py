"""Response compression: brotli where the client asks and it is safe, else gzip.

:class:`CompressionMiddleware` replaces Django's ``GZipMiddleware``. Brotli (``br``)
compresses JSON and HTML 15-25 % smaller than gzip, but unlike Django's gzip it cannot
pad its output with random bytes ("Heal The Breach"), so it is used only where BREACH
has nothing to find: responses to anonymous GET/HEAD requests that set no cookie (so
rendered no CSRF token; no secret of the reader's in the body). Everything else over 200 bytes is
gzip-ed by Django's middleware as before. The API's stored snapshot sections are
compressed once per version (``estimation/api/snapshots.py``), brotli included: their
bytes are the same for every reader and reflect nothing from the request. A signed-in
reader's cached page comes gzip-ed already, joined from pieces compressed apart
(:func:`gzip_joined`, frontend/page_cache.py), and is left alone here.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable

import brotli
from django.middleware.gzip import GZipMiddleware
from django.utils.cache import patch_vary_headers
from django.utils.text import compress_string

MIN_BYTES = 200
BROTLI_QUALITY = 5  # per response: about gzip -6's speed, smaller output
GZIP_LEVEL = 6  # Django's (compress_string)
# What follows the 10-byte header (and its name) in Django's gzip member of nothing: the
# deflate stream of no bytes, then CRC32 and ISIZE.
_EMPTY_GZIP_TAIL = len(compress_string(b"")) - 10
_DEFLATE_END = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS).flush()


def accepts_encoding(header: str, coding: str) -> bool:
    """Whether an ``Accept-Encoding`` header takes ``coding`` (``q=0`` refuses it)."""
    for part in header.split(","):
        name, _, params = part.strip().partition(";")
        if name.strip().lower() not in (coding, "*"):
            continue
        q = params.strip().lower()
        if q.startswith("q="):
            try:
                return float(q[2:]) > 0
            except ValueError:
                return False
        return True
    return False


def brotli_compress(data: bytes, quality: int = BROTLI_QUALITY) -> bytes:
    return brotli.compress(data, quality=quality)


def deflated_piece(data: bytes) -> bytes:
    """``data`` as raw deflate blocks of its own: no history from before it, no final
    block, ending byte aligned (a full flush), so that pieces compressed apart join, in
    any order, into one deflate stream (:func:`gzip_joined`)."""
    compressor = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
    return compressor.compress(data) + compressor.flush(zlib.Z_FULL_FLUSH)


def gzip_joined(pieces: Iterable[bytes], *, crc: int, size: int) -> bytes:
    """One gzip member of ``pieces`` (each from :func:`deflated_piece`, in order);
    ``crc`` and ``size``: the CRC32 and length of the uncompressed pieces in order. Its
    header is Django's, padded with a random-length file name as GZipMiddleware pads
    every answer (taken from Django's own ``compress_string`` of nothing)."""
    empty = compress_string(b"", max_random_bytes=GZipMiddleware.max_random_bytes)
    trailer = (crc & 0xFFFFFFFF).to_bytes(4, "little") + (size & 0xFFFFFFFF).to_bytes(4, "little")
    return b"".join((empty[:-_EMPTY_GZIP_TAIL], *pieces, _DEFLATE_END, trailer))


def crc32_shift(length: int) -> tuple[int, ...]:
    """What ``length`` bytes do to a CRC-32 before them: ``zlib.crc32(data, crc)`` is
    ``crc32_shifted(crc, crc32_shift(len(data))) ^ zlib.crc32(data)`` for any ``data``
    (the CRC's register is linear over GF(2), so its change over ``length`` bytes is one
    32 x 32 bit matrix, kept as the images of the 32 bits). A page's spans that every
    reader shares are then never scanned again for the CRC of their gzip member."""
    zeros = bytes(length)
    base = zlib.crc32(zeros)
    return tuple(zlib.crc32(zeros, 1 << bit) ^ base for bit in range(32))


def crc32_shifted(crc: int, shift: tuple[int, ...]) -> int:
    """``crc`` carried over the bytes :func:`crc32_shift` measured."""
    shifted = 0
    for image in shift:
        if crc & 1:
            shifted ^= image
        crc >>= 1
        if not crc:
            break
    return shifted


def _public(request, response) -> bool:
    """An anonymous GET whose answer sets no cookie: a rendered CSRF token renews the
    CSRF cookie (CsrfViewMiddleware, which runs before this on the way out), and a
    session cookie means state of the reader's own."""
    user = getattr(request, "user", None)
    return (
        request.method in ("GET", "HEAD")
        and not response.cookies
        and not (user is not None and user.is_authenticated)
    )


class CompressionMiddleware(GZipMiddleware):
    def process_response(self, request, response):
        accepted = request.META.get("HTTP_ACCEPT_ENCODING", "")
        if (
            response.streaming
            or len(response.content) < MIN_BYTES
            or response.has_header("Content-Encoding")
        ):
            return self._gzip(request, response, accepted)
        patch_vary_headers(response, ("Accept-Encoding",))
        if not (accepts_encoding(accepted, "br") and _public(request, response)):
            return self._gzip(request, response, accepted)
        compressed = brotli_compress(response.content)
        if len(compressed) >= len(response.content):
            return response
        response.content = compressed
        response.headers["Content-Length"] = str(len(compressed))
        etag = response.get("ETag")
        if etag and etag.startswith('"'):  # a strong ETag names the identity bytes
            response.headers["ETag"] = "W/" + etag
        response.headers["Content-Encoding"] = "br"
        return response

    def _gzip(self, request, response, accepted: str):
        """Django's gzip where the client takes it: GZipMiddleware reads "gzip;q=0" (a
        refusal) as taking it."""
        if accepts_encoding(accepted, "gzip"):
            return super().process_response(request, response)
        if not response.has_header("Content-Encoding") and (
            response.streaming or len(response.content) >= MIN_BYTES
        ):
            patch_vary_headers(response, ("Accept-Encoding",))
        return response
