"""Importers of other tools' results files, one module per format.

Each ``read_<format>(files)`` takes the files of an upload (relative path -> bytes: one
file, or a folder or zip unpacked by :func:`files_from_bytes` / :func:`files_from_path`)
and returns :class:`ImportedResults`, whose ``parsed`` is what the results CSV parser
yields; problems raise :class:`ResultsImportError` naming the file and the key.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from leaderboard.ingest.formats.common import (
    ON_ERROR,
    AlgorithmInfo,
    ImportedResults,
    MetricInfo,
    ResultsImportError,
)
from leaderboard.ingest.formats.eee import read_eee
from leaderboard.ingest.formats.eval_results import read_eval_results
from leaderboard.ingest.formats.files import files_from_bytes, files_from_path, unpacked_size
from leaderboard.ingest.formats.helm import read_helm
from leaderboard.ingest.formats.hf_leaderboard import read_hf_leaderboard
from leaderboard.ingest.formats.lighteval import read_lighteval
from leaderboard.ingest.formats.lm_eval import read_lm_eval
from leaderboard.ingest.formats.mteb import read_mteb
from leaderboard.ingest.formats.openml import read_openml
from leaderboard.ingest.formats.pwc import read_pwc
from leaderboard.ingest.results_csv.records import FORMATS

READERS: Mapping[str, Callable[..., ImportedResults]] = {
    "mteb": read_mteb,
    "lm-eval": read_lm_eval,
    "hf-leaderboard": read_hf_leaderboard,
    "openml": read_openml,
    "helm": read_helm,
    "eee": read_eee,
    "pwc": read_pwc,
    "lighteval": read_lighteval,
    "eval-results": read_eval_results,
}
IMPORT_FORMATS: tuple[str, ...] = tuple(READERS)
# Every format an upload may name: a results CSV's layout or another tool's files.
UPLOAD_FORMATS: tuple[str, ...] = (*FORMATS, *IMPORT_FORMATS)
# What each format's upload is, in the words of a form's choice.
IMPORT_FORMAT_LABELS: Mapping[str, str] = {
    "mteb": "MTEB results (a model's folder as a zip)",
    "lm-eval": "lm-evaluation-harness results_*.json (or a zip of them)",
    "hf-leaderboard": "Hugging Face leaderboard JSON per model (or a zip of them)",
    "openml": "OpenML evaluations per fold (JSON, XML or CSV)",
    "helm": "HELM benchmark_output/runs (a zip)",
    "eee": "Every Eval Ever JSON (or a zip of them)",
    "pwc": "Papers with Code evaluation-tables.json",
    "lighteval": "lighteval / Open LLM Leaderboard v1 results_*.json (or a zip of them)",
    "eval-results": "Hugging Face .eval_results YAML (model folders as a zip)",
}
# The choices a format's reader takes besides the files (``read_imported(**options)``).
READER_OPTIONS: Mapping[str, tuple[str, ...]] = {
    "mteb": ("subsets",),
    "lm-eval": ("algorithm",),
    "eval-results": ("algorithm",),
}


def read_imported(
    files: Mapping[str, bytes],
    *,
    format: str,
    max_results: int | None = None,
    on_error: str = "refuse",
    **options: str,
) -> ImportedResults:
    """The results of ``files`` in ``format`` (one of :data:`IMPORT_FORMATS`); reading
    stops with a :class:`ResultsImportError` at the first result past ``max_results``.

    ``on_error="skip"`` imports what is valid and lists the rest in ``left_out`` (file,
    key, reason); ``"refuse"`` raises naming every problem. Either way a file with no
    valid result is refused. ``options`` are the format's own (:data:`READER_OPTIONS`);
    an option left empty (None or "") takes the reader's default.
    """
    if format not in READERS:
        raise ValueError(f"format must be one of {', '.join(IMPORT_FORMATS)}, got {format!r}")
    if on_error not in ON_ERROR:
        raise ValueError(f"on_error must be one of {', '.join(ON_ERROR)}, got {on_error!r}")
    given = {name: value for name, value in options.items() if value not in (None, "")}
    unknown = sorted(set(given) - set(READER_OPTIONS.get(format, ())))
    if unknown:
        raise ValueError(f"format {format!r} takes no option {', '.join(unknown)}")
    return READERS[format](files, max_results=max_results, on_error=on_error, **given)


__all__ = [
    "IMPORT_FORMATS",
    "IMPORT_FORMAT_LABELS",
    "ON_ERROR",
    "READERS",
    "READER_OPTIONS",
    "AlgorithmInfo",
    "ImportedResults",
    "MetricInfo",
    "ResultsImportError",
    "files_from_bytes",
    "files_from_path",
    "read_imported",
    "unpacked_size",
]
