"""A signed-in reader who takes gzip gets the cached page as one gzip member joined from
pieces (frontend/page_cache.py, config/compression.py): it decodes, with any decoder, to
the identity answer; it holds this reader's part and nobody else's; its header keeps
Django's random padding; and per request only the reader's regions are compressed, the
shared page never again."""

from __future__ import annotations

import gzip
import hashlib
import re
import zlib
from unittest import mock

import pytest
from django.test import Client

from frontend.page_cache import CUT_PAGES_KEPT, PageEntry, _cut_page, _cut_pages
from frontend.page_shell import PAGE_ACTIONS, SITE_NAV
from leaderboard.models import Benchmark
from tests.factories import make_benchmark, make_user
from tests.frontend.test_readers_support import large_payload, store_snapshot

pytestmark = pytest.mark.django_db

PAGES = ["/b/{slug}/", "/b/{slug}/v1/", "/b/{slug}/charts/"]
BROWSER = "gzip, deflate, br"
TOKEN = re.compile(rb'name="csrfmiddlewaretoken" value="([^"]+)"')
REGION = re.compile(rb"<!--podium:([a-z-]+)-->(.*?)<!--/podium:\1-->", re.S)


@pytest.fixture
def board():
    benchmark = make_benchmark("gzip-shared")
    store_snapshot(benchmark, large_payload(5))
    return benchmark


@pytest.fixture
def readers():
    """Two signed-in readers; Ada maintains the board (a second region of her own)."""
    ada, bob = make_user("ada-gzip-maintainer"), make_user("bob-gzip-reader")
    Benchmark.objects.get(slug="gzip-shared").maintainers.add(ada)
    clients = {ada.username: Client(), bob.username: Client()}
    clients[ada.username].force_login(ada)
    clients[bob.username].force_login(bob)
    return clients


def _one_member(content: bytes) -> bytes:
    """The body of a single gzip member, decoded by both of Python's decoders."""
    decoded = gzip.decompress(content)
    decoder = zlib.decompressobj(16 + zlib.MAX_WBITS)
    assert decoder.decompress(content) == decoded
    assert decoder.eof and decoder.unused_data == b""  # nothing after the first member
    return decoded


def _masked(body: bytes) -> bytes:
    return TOKEN.sub(b'name="csrfmiddlewaretoken" value="masked"', body)


@pytest.mark.parametrize("page", PAGES)
def test_the_gzip_answer_is_the_identity_answer_in_one_member(board, readers, page):
    path = page.format(slug=board.slug)
    for name, client in readers.items():
        plain = client.get(path)
        zipped = client.get(path, HTTP_ACCEPT_ENCODING=BROWSER)
        assert plain.status_code == zipped.status_code == 200
        assert "Content-Encoding" not in plain
        assert zipped["Content-Encoding"] == "gzip"
        assert "Accept-Encoding" in zipped["Vary"]
        assert "private" in zipped["Cache-Control"]
        assert "ETag" not in zipped and "Last-Modified" not in zipped
        assert int(zipped["Content-Length"]) == len(zipped.content) < len(plain.content)
        body = _one_member(zipped.content)
        assert len(TOKEN.findall(body)) == 1, name  # the log-out form's own token
        assert _masked(body) == _masked(plain.content), name


@pytest.mark.parametrize("page", PAGES)
def test_each_reader_gets_their_own_name_and_token_and_nobody_elses(board, readers, page):
    path = page.format(slug=board.slug)
    bodies = {
        name: _one_member(client.get(path, HTTP_ACCEPT_ENCODING=BROWSER).content)
        for name, client in readers.items()
    }
    for name, body in bodies.items():
        [token] = TOKEN.findall(body)
        assert name.encode() in body
        for other, theirs in bodies.items():
            if other != name:
                assert name.encode() not in theirs and token not in theirs, (name, other)


def test_refusing_gzip_gets_the_identity_answer(board, readers):
    client = readers["bob-gzip-reader"]
    path = f"/b/{board.slug}/charts/"
    for accept in ("", "identity", "br"):
        response = client.get(path, HTTP_ACCEPT_ENCODING=accept)
        assert "Content-Encoding" not in response, accept
        assert b"bob-gzip-reader" in response.content


def test_the_header_is_padded_with_a_random_length_name(board, readers):
    client = readers["bob-gzip-reader"]
    path = f"/b/{board.slug}/"
    lengths, bodies = set(), set()
    for _ in range(8):
        content = client.get(path, HTTP_ACCEPT_ENCODING=BROWSER).content
        assert content[:4] == b"\x1f\x8b\x08" + bytes([gzip.FNAME])  # Django's header
        name_end = content.index(b"\x00", 10)
        assert set(content[10:name_end]) <= {ord("a")}  # the padding, as Django pads
        lengths.add(len(content))
        bodies.add(_masked(_one_member(content)))
    assert len(bodies) == 1
    assert len(lengths) > 1  # 8 draws of 0..99 bytes all alike: 1e-14


@pytest.mark.parametrize("page", PAGES)
def test_a_shell_pages_etag_is_its_bodys_hash(board, page):
    """The compressed pieces of an entry are kept under its ETag: a shell's view must set
    none of its own, so that the entry's is the hash of its body."""
    response = Client().get(page.format(slug=board.slug))
    assert response["ETag"] == '"' + hashlib.sha256(response.content).hexdigest()[:32] + '"'


class _Compressed:
    """Counts the bytes handed to zlib to compress (one-shot or streamed) while on."""

    def __init__(self):
        self.bytes = 0
        self._compressobj, self._compress = zlib.compressobj, zlib.compress

    def __enter__(self):
        def compressobj(*args, **kwargs):
            return _CountingCompressor(self, self._compressobj(*args, **kwargs))

        def compress(data, *args, **kwargs):
            self.bytes += len(data)
            return self._compress(data, *args, **kwargs)

        self._patches = [
            mock.patch("zlib.compressobj", compressobj),
            mock.patch("zlib.compress", compress),
        ]
        for patch in self._patches:
            patch.start()
        return self

    def __exit__(self, *exc):
        for patch in self._patches:
            patch.stop()


class _CountingCompressor:
    def __init__(self, counter: _Compressed, compressor):
        self._counter, self._compressor = counter, compressor

    def compress(self, data):
        self._counter.bytes += len(data)
        return self._compressor.compress(data)

    def flush(self, *args):
        return self._compressor.flush(*args)


@pytest.mark.parametrize("page", PAGES)
def test_per_request_only_the_readers_regions_are_compressed(board, readers, page):
    """After the first gzip answer (which compresses the shared page once), each answer
    compresses the reader's own regions and nothing else; compressing the whole page per
    request (what the compression middleware did) compresses all of it."""
    path = page.format(slug=board.slug)
    for name, client in readers.items():
        client.get(path, HTTP_ACCEPT_ENCODING=BROWSER)  # the entry and its pieces
        for _ in range(3):
            with _Compressed() as compressed:
                response = client.get(path, HTTP_ACCEPT_ENCODING=BROWSER)
            body = _one_member(response.content)
            maintains = name.startswith("ada") and page == PAGES[0]  # her links: the board only
            drawn = {SITE_NAV, PAGE_ACTIONS} if maintains else {SITE_NAV}
            own = sum(
                len(inside) for region, inside in REGION.findall(body) if region.decode() in drawn
            )
            assert 0 < own < len(body) / 10
            assert compressed.bytes == own, (name, compressed.bytes, own, len(body))


def test_the_compressed_pieces_kept_are_bounded():
    for number in range(CUT_PAGES_KEPT + 5):
        body = b"<p>%d</p><!--podium:site-nav-->nav<!--/podium:site-nav-->" % number
        entry = PageEntry(f"gen-{number}", "", (), (), f'"{number}"', 0, body, digest=f"d{number}")
        assert len(_cut_page(entry).deflated) == 3  # before, inside, after the region
    assert len(_cut_pages) == CUT_PAGES_KEPT
