"""One import of generated files in a fresh interpreter (``bench.suite_import_formats``):
``python -m bench.import_formats_child <reader> <folder>`` prints one JSON line with the
CPU and wall seconds of the import, the peak memory it added (``ru_maxrss`` after the
files were read into memory, against the peak after) and the results it read."""

from __future__ import annotations

import io
import json
import sys
import time
from pathlib import Path

from bench.common import max_rss_mib


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*.*"))}


def main(argv: list[str]) -> None:
    reader, folder = argv[0], Path(argv[1])
    from leaderboard.ingest.formats import files_from_bytes, read_imported
    from leaderboard.ingest.results_csv import parse_results_csv
    from leaderboard.ingest.results_csv.sheets import results_table

    files = _files(folder)
    (only,) = files.values() if reader in ("csv", "pandas-csv", "zip") else (b"",)
    before = max_rss_mib()
    cpu, wall = time.process_time(), time.perf_counter()
    if reader == "csv":
        n = parse_results_csv(io.BytesIO(only)).n_records
    elif reader == "pandas-csv":  # the upload's reading: tidied row by row, then parsed
        table = results_table(only, filename="results.csv", nan_missing=True)
        n = parse_results_csv(io.BytesIO(table.content)).n_records
    elif reader == "zip":  # the upload as it comes: unpacked within bounds, then read
        n = read_imported(files_from_bytes(only, name="results.zip"), format="lm-eval")
        n = n.parsed.n_records
    else:
        n = read_imported(files, format=reader).parsed.n_records
    print(
        json.dumps(
            {
                "cpu": time.process_time() - cpu,
                "wall": time.perf_counter() - wall,
                "peak_added_mib": max_rss_mib() - before,
                "results": n,
                "input_mib": sum(map(len, files.values())) / 2**20,
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1:])
