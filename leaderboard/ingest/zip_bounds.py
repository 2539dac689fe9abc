"""The bounds on a zip an upload is read from (a folder of results, or an ``.xlsx``
workbook, which is a zip of XML): a zip bomb or a tree of millions of files is refused
from its central directory, before anything is unpacked. Pure Python: no Django."""

from __future__ import annotations

import zipfile
import zlib
from collections.abc import Sequence

MAX_ZIP_ENTRIES = 20_000
MAX_UNPACKED_BYTES = 512 * 1024 * 1024
MAX_COMPRESSION_RATIO = 200  # JSON and sheet XML compress 10-30x; a bomb 1000x and more
# A member this small may expand past the ratio (a few bytes of header compress badly).
SMALL_MEMBER_BYTES = 64 * 1024
# What Python's zipfile raises for a damaged archive, besides BadZipFile: a deflate stream
# broken (zlib.error), offsets past either end (ValueError: negative seek; EOFError), a
# version or compression it does not implement (NotImplementedError), a read error.
DAMAGED_ZIP_ERRORS = (
    zipfile.BadZipFile,
    zlib.error,
    ValueError,
    EOFError,
    OSError,
    NotImplementedError,
)


def expansion_limit(info: zipfile.ZipInfo, max_ratio: float = MAX_COMPRESSION_RATIO) -> int:
    """The most bytes a member may unpack to: ``max_ratio`` times its packed size."""
    return max(SMALL_MEMBER_BYTES, int(info.compress_size * max_ratio))


def declared_size_problems(
    infos: Sequence[zipfile.ZipInfo],
    *,
    max_entries: int = MAX_ZIP_ENTRIES,
    max_bytes: int = MAX_UNPACKED_BYTES,
    max_ratio: float | None = None,
) -> list[tuple[str, str]]:
    """What the central directory declares past the bounds, as (member or "", problem):
    more than ``max_entries`` entries, more than ``max_bytes`` unpacked, and with
    ``max_ratio`` a member that would expand more than that many times.

    Python's ``zipfile`` never inflates a member past its declared size (it stops
    there, and the CRC check fails), so a reader of the archive through ``zipfile``
    (openpyxl) unpacks no more than what passed here."""
    if len(infos) > max_entries:
        return [("", f"holds {len(infos)} entries; at most {max_entries}")]
    problems = []
    declared = sum(info.file_size for info in infos)
    if declared > max_bytes:
        problems.append(("", f"unpacks to {declared} bytes; at most {max_bytes}"))
    if max_ratio is not None:
        problems += [
            (info.filename[:200], f"expands more than {max_ratio:g} times: refused as a zip bomb")
            for info in infos
            if info.file_size > expansion_limit(info, max_ratio)
        ]
    return problems
