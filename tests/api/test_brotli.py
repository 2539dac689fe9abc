"""Brotli where the client asks: stored sections for everyone, pages only where safe.

A section's bytes are compressed once per version (brotli and gzip) and reflect
nothing of the request. Pages get brotli only on anonymous GETs that rendered no CSRF
token (BREACH: brotli output cannot be padded like Django's gzip); otherwise gzip.
"""

import json

import brotli
import pytest

from config.compression import accepts_encoding
from tests.api import test_snapshots
from tests.factories import make_user

BASE = test_snapshots.BASE
computed = test_snapshots.computed

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "header, expected",
    [
        ("br", True),
        ("gzip, deflate, br", True),
        ("gzip;q=1.0, br;q=0.5", True),
        ("br;q=0", False),
        ("BR", True),
        ("*", True),
        ("gzip", False),
        ("", False),
        ("br;q=nonsense", False),
        ("brotli", False),
    ],
)
def test_accept_encoding_is_read_with_its_q_values(header, expected):
    assert accepts_encoding(header, "br") is expected


def test_a_section_is_served_as_brotli_when_asked(client, computed):
    url = f"{BASE}latest/sections/wins/"
    plain = client.get(url)
    first = client.get(url, HTTP_ACCEPT_ENCODING="gzip, br")
    assert first.status_code == 200 and first["Content-Encoding"] == "br"
    assert json.loads(brotli.decompress(first.content)) == plain.json()
    assert "Accept-Encoding" in first["Vary"]
    assert first["ETag"] == plain["ETag"]
    assert client.get(url, HTTP_ACCEPT_ENCODING="gzip")["Content-Encoding"] == "gzip"
    assert client.get(url, HTTP_ACCEPT_ENCODING="br;q=0, gzip")["Content-Encoding"] == "gzip"


@pytest.mark.parametrize("header", ["gzip;q=0", "gzip;q=0, br;q=0", "*;q=0", "identity"])
def test_a_refused_coding_is_not_sent(client, computed, header):
    """Rendered pages (signed in: no brotli) and API answers through Django's gzip: a
    q=0 refusal is honoured, as for brotli."""
    client.force_login(make_user("reader"))
    for url in ("/b/toy/", "/b/toy/charts/", f"{BASE}latest/sections/wins/", "/account/email/"):
        response = client.get(url, HTTP_ACCEPT_ENCODING=header)
        assert response.status_code == 200, url
        assert not response.has_header("Content-Encoding"), (url, response["Content-Encoding"])
        assert "Accept-Encoding" in response["Vary"], url


def test_anonymous_pages_without_a_form_get_brotli(client, computed):
    page = client.get("/b/toy/", HTTP_ACCEPT_ENCODING="gzip, br")
    assert page.status_code == 200 and page["Content-Encoding"] == "br"
    assert b"<html" in brotli.decompress(page.content).lower()
    assert "Accept-Encoding" in page["Vary"]


def test_signed_in_pages_and_forms_stay_gzip(client, computed):
    form = client.get("/account/login/", HTTP_ACCEPT_ENCODING="gzip, br")
    assert form.status_code == 200 and form["Content-Encoding"] == "gzip"  # a CSRF token
    client.force_login(make_user("reader"))
    page = client.get("/b/toy/", HTTP_ACCEPT_ENCODING="gzip, br")
    assert page.status_code == 200 and page["Content-Encoding"] == "gzip"
