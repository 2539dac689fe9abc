"""A folder uploaded as a zip is unpacked within bounds: no bombs, no paths out of it."""

from __future__ import annotations

import io
import stat
import zipfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from leaderboard.ingest.formats import (
    ResultsImportError,
    files_from_bytes,
    read_imported,
    unpacked_size,
)
from tests.ingest.helpers import fixture_files, zipped


def _zip(entries: list[tuple[zipfile.ZipInfo | str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for info, data in entries:
            archive.writestr(info, data)
    return buffer.getvalue()


def _refused(content: bytes, **limits) -> str:
    with pytest.raises(ResultsImportError) as caught:
        files_from_bytes(content, name="upload.zip", **limits)
    return str(caught.value)


def test_a_zipped_folder_reads_as_the_folder():
    files = fixture_files("mteb")
    assert files_from_bytes(zipped(files), name="mteb.zip") == files
    imported = read_imported(files_from_bytes(zipped(files), name="mteb.zip"), format="mteb")
    assert len(imported.parsed.algorithms) == 3


def test_a_plain_file_is_one_file():
    assert files_from_bytes(b'{"a": 1}', name="x.json") == {"x.json": b'{"a": 1}'}


@pytest.mark.parametrize(
    "name", ["../evil.json", "a/../../evil.json", "/etc/passwd", "C:/evil.json", "a\\..\\evil.json"]
)
def test_paths_that_leave_the_folder_are_refused(name):
    message = _refused(_zip([(name, b"{}")]))
    assert "upload.zip" in message and ("relative" in message or "inside" in message)


def test_a_symbolic_link_is_refused():
    link = zipfile.ZipInfo("results/link.json")
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    assert "symbolic link" in _refused(_zip([(link, b"/etc/passwd")]))


def test_a_zip_bomb_is_refused_by_its_ratio():
    bomb = _zip([("bomb.json", b"0" * 5_000_000)])  # about 1000:1
    assert len(bomb) < 20_000
    assert "zip bomb" in _refused(bomb)


def test_a_zip_that_unpacks_beyond_the_bound_is_refused_before_unpacking():
    content = _zip([(f"f{i}.json", bytes(range(256)) * 40) for i in range(10)])
    assert "at most 50000" in _refused(content, max_bytes=50_000)


def test_a_member_lying_about_its_size_stops_at_the_bound():
    """A header that declares a small size while the data inflate to more."""
    honest = _zip([("big.json", b"x" * 2_000_000)])
    # Patch the declared uncompressed size in both headers to 10 bytes.
    archive = zipfile.ZipFile(io.BytesIO(honest))
    info = archive.infolist()[0]
    data = bytearray(honest)
    size = (2_000_000).to_bytes(4, "little")
    for start in range(len(data) - 4):
        if data[start : start + 4] == size:
            data[start : start + 4] = (10).to_bytes(4, "little")
    assert info.file_size == 2_000_000
    message = _refused(bytes(data))
    assert "zip bomb" in message or "cannot be unpacked" in message


def test_too_many_entries_are_refused_before_unpacking():
    content = _zip([(f"f{i}.json", b"{}") for i in range(30)])
    assert "holds 30 entries; at most 20" in _refused(content, max_entries=20)


def test_an_unreadable_zip_is_named():
    assert "not a readable zip" in _refused(b"PK\x03\x04garbage")


MTEB_ZIP = zipped(fixture_files("mteb"))


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    damage=st.lists(
        st.tuples(st.integers(0, len(MTEB_ZIP) - 1), st.integers(0, 255)), min_size=1, max_size=16
    ),
    cut=st.one_of(st.none(), st.integers(4, len(MTEB_ZIP) - 1)),
)
def test_a_damaged_zip_is_a_problem_never_a_crash(damage, cut):
    """Bytes changed anywhere (a member's deflate stream: zlib.error; an offset past the
    start: ValueError; a version zipfile does not implement: NotImplementedError), or the
    file cut short: its size is read and the upload refused by name, or read."""
    content = bytearray(MTEB_ZIP)
    for at, byte in damage:
        content[at] = byte
    content = bytes(content[:cut])
    assert unpacked_size(content) >= 0
    try:
        read_imported(files_from_bytes(content, name="upload.zip"), format="mteb")
    except ResultsImportError:
        pass


_END = MTEB_ZIP.rfind(b"PK\x05\x06")  # the end of central directory record
_DIRECTORY = int.from_bytes(MTEB_ZIP[_END + 16 : _END + 20], "little")


@pytest.mark.parametrize(
    ("offset", "byte", "said"),
    [
        # the first member's extra field said 255 bytes long: its data read from within
        # its deflate stream (zlib.error)
        (28, 0xFF, "cannot be unpacked"),
        (_DIRECTORY + 6, 0xFF, "not a readable zip: zip file version"),  # NotImplementedError
        (_DIRECTORY + 46, 0x00, "has no name"),  # a name cut at a NUL (IndexError in zipfile)
        (_END + 16, 0xFF, "cannot be unpacked"),  # the directory before the start (ValueError)
    ],
)
def test_each_error_zipfile_passes_on_is_named(offset, byte, said):
    """Single bytes of a zip's structure, each a crash (a 500) before."""
    content = bytearray(MTEB_ZIP)
    content[offset] = byte
    assert said in _refused(bytes(content))
