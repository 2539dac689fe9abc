"""Fixture folders of the importers, as files and as zips."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from leaderboard.ingest.formats import files_from_path

FIXTURES = Path(__file__).parent / "fixtures"
FOLDER = {
    "mteb": "mteb",
    "lm-eval": "lm-eval",
    "hf-leaderboard": "hf-leaderboard",
    "openml": "openml",
    "helm": "helm",
    "eee": "eee",
    "pwc": "pwc",
}


def fixture_files(format: str) -> dict[str, bytes]:
    return files_from_path(FIXTURES / FOLDER[format])


def zipped(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()
