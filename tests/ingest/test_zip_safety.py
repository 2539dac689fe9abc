"""A folder uploaded as a zip is unpacked within bounds: no bombs, no paths out of it."""

from __future__ import annotations

import io
import stat
import zipfile

import pytest

from leaderboard.ingest.formats import ResultsImportError, files_from_bytes, read_imported
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
