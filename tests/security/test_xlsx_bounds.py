"""An ``.xlsx`` workbook is a zip of XML: a small one could unpack to gigabytes inside
openpyxl. Its zip is bounded as an uploaded folder is (``leaderboard.ingest.zip_bounds``:
entries, unpacked bytes, expansion per part), from the central directory, before
openpyxl opens it."""

from __future__ import annotations

import io
import tracemalloc
import zipfile

import openpyxl
import pytest

from leaderboard.ingest.results_csv import ResultsCsvError
from leaderboard.ingest.results_csv.sheets import tidy_results_table
from leaderboard.ingest.zip_bounds import MAX_UNPACKED_BYTES, MAX_ZIP_ENTRIES

SHEET = "xl/worksheets/sheet1.xml"


def workbook() -> bytes:
    book = openpyxl.Workbook()
    book.active.append(["dataset", "algorithm", "score"])
    book.active.append(["CIFAR-10", "ResNet-50", 0.953])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def rewritten(
    content: bytes, replace: dict[str, bytes], *, add: dict[str, bytes] | None = None, extra=0
) -> bytes:
    """The workbook with parts replaced, parts added, and ``extra`` more (empty) entries."""
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(content)) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target,
    ):
        for info in source.infolist():
            target.writestr(info.filename, replace.get(info.filename, source.read(info)))
        for name, data in (add or {}).items():
            target.writestr(name, data)
        for k in range(extra):
            target.writestr(f"xl/padding/{k}.xml", b"")
    return out.getvalue()


@pytest.fixture
def openpyxl_never_opens(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("openpyxl opened a workbook past the bounds")

    monkeypatch.setattr(openpyxl, "load_workbook", refuse)


def test_a_workbook_within_the_bounds_is_read():
    table = tidy_results_table(workbook(), filename="results.xlsx")
    assert table.text.splitlines()[1] == '"CIFAR-10","ResNet-50","0.953"'


def test_a_sheet_that_expands_like_a_zip_bomb_is_refused_unread(openpyxl_never_opens):
    """64 MiB of sheet in a zip of some 70 KiB (about 1000x): refused from the
    directory, and reading the directory costs a small part of what unpacking would."""
    sheet = zipfile.ZipFile(io.BytesIO(workbook())).read(SHEET)
    padded = sheet.replace(b"<sheetData>", b"<sheetData>" + b" " * (64 * 1024 * 1024))
    bomb = rewritten(workbook(), {SHEET: padded})
    assert len(bomb) < 200 * 1024
    tracemalloc.start()
    try:
        with pytest.raises(ResultsCsvError) as refused:
            tidy_results_table(bomb, filename="bomb.xlsx")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    (error,) = refused.value.errors
    assert error.message == (
        f"the .xlsx workbook part {SHEET!r} expands more than 200 times: refused as a zip bomb"
    )
    assert peak < 8 * 1024 * 1024  # nothing was unpacked (the sheet alone is 64 MiB)


def test_a_workbook_of_more_entries_than_a_folder_may_hold_is_refused(openpyxl_never_opens):
    many = rewritten(workbook(), {}, extra=MAX_ZIP_ENTRIES)
    with pytest.raises(ResultsCsvError) as refused:
        tidy_results_table(many, filename="many.xlsx")
    (error,) = refused.value.errors
    assert f"entries; at most {MAX_ZIP_ENTRIES}" in error.message


def test_a_workbook_that_declares_more_than_the_unpacked_bound_is_refused(openpyxl_never_opens):
    """A part whose directory entry says it is larger than the bound (Python's zipfile,
    which openpyxl reads through, would inflate it up to what it declares)."""
    noise = bytes(range(256)) * 390 + b"x" * 151
    real = len(noise)  # 99_991: a size no other field of the zip holds
    data = bytearray(rewritten(workbook(), {}, add={"xl/media/noise.bin": noise}))
    before, after = real.to_bytes(4, "little"), (MAX_UNPACKED_BYTES + 1).to_bytes(4, "little")
    assert data.count(before) == 2  # the local header and the directory
    content = bytes(data.replace(before, after))
    with pytest.raises(ResultsCsvError) as refused:
        tidy_results_table(content, filename="large.xlsx")
    messages = [e.message for e in refused.value.errors]
    assert messages[0].startswith("the .xlsx workbook unpacks to 5")
    assert messages[0].endswith(f" bytes; at most {MAX_UNPACKED_BYTES}")
