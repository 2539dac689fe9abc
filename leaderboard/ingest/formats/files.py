"""Reading the files of an upload: one file, a folder, or a zip unpacked within bounds
(a zip bomb, a tree of millions of files, names that leave the folder are refused)."""

from __future__ import annotations

import io
import os
import re
import stat
import zipfile
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from leaderboard.ingest.formats.common import MAX_PROBLEMS, ResultsImportError, import_problem

# Bounds on an uploaded folder (a zip), shared with .xlsx workbooks: a zip bomb or a tree
# of millions of files is refused before it is unpacked, and unpacking stops at the first
# entry past a bound.
from leaderboard.ingest.zip_bounds import (
    DAMAGED_ZIP_ERRORS,
    MAX_COMPRESSION_RATIO,
    MAX_UNPACKED_BYTES,
    MAX_ZIP_ENTRIES,
    declared_size_problems,
    expansion_limit,
)


def files_from_path(
    path: str | os.PathLike[str], *, max_bytes: int = MAX_UNPACKED_BYTES
) -> dict[str, bytes]:
    """A file, a folder (every file below it) or a zip, as relative path -> bytes."""
    root = Path(path)
    if root.is_dir():
        out: dict[str, bytes] = {}
        total = 0
        for file in sorted(root.rglob("*")):
            if file.is_file() and not file.is_symlink():
                if len(out) >= MAX_ZIP_ENTRIES:
                    raise ResultsImportError(
                        [import_problem(str(root), "", f"more than {MAX_ZIP_ENTRIES} files")]
                    )
                data = file.read_bytes()
                total += len(data)
                if total > max_bytes:
                    raise ResultsImportError(
                        [import_problem(str(root), "", f"more than {max_bytes} bytes")]
                    )
                out[file.relative_to(root).as_posix()] = data
        return out
    return files_from_bytes(root.read_bytes(), name=root.name, max_bytes=max_bytes)


def files_from_bytes(
    content: bytes,
    *,
    name: str,
    max_entries: int = MAX_ZIP_ENTRIES,
    max_bytes: int = MAX_UNPACKED_BYTES,
    max_ratio: float = MAX_COMPRESSION_RATIO,
) -> dict[str, bytes]:
    """One uploaded file: a zip (a folder) is unpacked safely, anything else is one file."""
    if not is_zip(content):
        if len(content) > max_bytes:
            raise ResultsImportError(
                [import_problem(name, "", f"is {len(content)} bytes; at most {max_bytes}")]
            )
        return {name: content}
    return unpack_zip(
        content, name=name, max_entries=max_entries, max_bytes=max_bytes, max_ratio=max_ratio
    )


def is_zip(head: bytes) -> bool:
    """Whether a file starting with ``head`` (4 bytes or more) is a zip."""
    return head[:4] in (b"PK\x03\x04", b"PK\x05\x06")


def unpacked_size(content: bytes | BinaryIO) -> int:
    """The bytes an upload is read as: a zip's members as its central directory declares
    them (read without unpacking anything), anything else its own size.

    A declaration only: :func:`unpack_zip` counts the bytes as it inflates them and stops
    at its bound whatever the directory said. A zip that cannot be read counts its own
    size (unpacking it then says why it is refused). A file object is left at its start.
    """
    source: BinaryIO
    if isinstance(content, bytes):
        size, head, source = len(content), content[:4], io.BytesIO(content)
    else:
        size = content.seek(0, io.SEEK_END)
        content.seek(0)
        head, source = content.read(4), content
        content.seek(0)
    if not is_zip(head):
        return size
    try:
        with zipfile.ZipFile(source) as archive:
            return sum(info.file_size for info in archive.infolist())
    except DAMAGED_ZIP_ERRORS:
        return size
    finally:
        source.seek(0)


def _member_problem(info: zipfile.ZipInfo) -> str | None:
    path = info.filename
    if not path:
        return "has no name"
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode):
        return "is a symbolic link: a zip of results holds plain files only"
    if "\\" in path or path.startswith("/") or re.match(r"^[A-Za-z]:", path):
        return "is an absolute path or uses backslashes: names must be relative"
    if any(part == ".." for part in PurePosixPath(path).parts):
        return "leaves the folder ('..'): names must stay inside it"
    if "\x00" in path:
        return "holds a NUL character"
    if info.flag_bits & 0x1:
        return "is encrypted"
    return None


def unpack_zip(
    content: bytes,
    *,
    name: str,
    max_entries: int = MAX_ZIP_ENTRIES,
    max_bytes: int = MAX_UNPACKED_BYTES,
    max_ratio: float = MAX_COMPRESSION_RATIO,
) -> dict[str, bytes]:
    """Unpack a zip held in memory, refusing bombs and names that leave the folder.

    The declared sizes are checked first, then each member is read in pieces and
    counted as read: a member that lies about its size stops at the bound too.
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(content))
    except DAMAGED_ZIP_ERRORS as exc:
        raise ResultsImportError([import_problem(name, "", f"not a readable zip: {exc}")]) from None
    infos = archive.infolist()
    problems = [
        import_problem(name, member, problem)
        for member, problem in declared_size_problems(
            infos, max_entries=max_entries, max_bytes=max_bytes
        )
    ]
    if len(infos) > max_entries:
        raise ResultsImportError(problems)
    problems = [
        import_problem(name, info.filename[:200], problem)
        for info in infos
        if (problem := _member_problem(info))
    ] + problems
    if problems:
        raise ResultsImportError(problems[:MAX_PROBLEMS], total=len(problems))
    out: dict[str, bytes] = {}
    total = 0
    for info in infos:
        if info.is_dir():
            continue
        limit = expansion_limit(info, max_ratio)
        pieces = []
        size = 0
        try:
            with archive.open(info) as member:
                while chunk := member.read(64 * 1024):
                    size += len(chunk)
                    total += len(chunk)
                    if size > limit:
                        raise ResultsImportError(
                            [
                                import_problem(
                                    name,
                                    info.filename,
                                    f"expands more than {max_ratio:g} times: refused as a zip bomb",
                                )
                            ]
                        )
                    if total > max_bytes:
                        raise ResultsImportError(
                            [import_problem(name, "", f"unpacks to more than {max_bytes} bytes")]
                        )
                    pieces.append(chunk)
        except DAMAGED_ZIP_ERRORS as exc:
            raise ResultsImportError(
                [import_problem(name, info.filename, f"cannot be unpacked: {exc}")]
            ) from None
        out[info.filename] = b"".join(pieces)
    return out
