"""Suite ``import_formats`` (issue 42): about a million results through each importer
format that can hold that many, against the long CSV upload, in one run.

The same scores (``M`` models x ``N`` tasks, one metric; no folds) are written as a long
CSV (``dataset,algorithm,score``), as pandas' ``to_csv`` writes it (its index as a first
unnamed column, one more row whose score is ``NaN``, read with NaN as missing: the
streamed tidying of uploads), as lm-evaluation-harness result files (one per model,
``results.<task>.acc,none``), as Every Eval Ever documents (one per model, written by
the project's own exporter ``eee_documents``), as Open LLM Leaderboard files
(``hf-leaderboard``) and as a zip of the lm-eval files (unpacked within the upload
bounds, then read). Writing them is not timed. Each is then read in a fresh interpreter
(``bench.import_formats_child``): CPU and wall seconds of the read, and the peak memory
it added over the files held in memory, each also as a ratio to the CSV's.
"""

from __future__ import annotations

import json
import tempfile
import zipfile
from pathlib import Path

from bench.common import Options, fmt_seconds, markdown_table, run_child, synthetic_scores

SIZE = (100, 10_000)  # models, tasks: 1,000,000 results
QUICK_SIZE = (10, 200)
READERS = ("csv", "pandas-csv", "lm-eval", "eee", "hf-leaderboard", "zip")


def _models(m: int) -> list[str]:
    return [f"org-{j % 7}/model-{j:04d}" for j in range(m)]


def _tasks(n: int) -> list[str]:
    return [f"task_{i:05d}" for i in range(n)]


def write_inputs(root: Path, m: int, n: int, seed: int) -> dict[str, Path]:
    """The same m x n scores in each format, a folder per reader."""
    from leaderboard.ingest.formats.common import AlgorithmInfo, MetricInfo
    from leaderboard.ingest.formats.eee import eee_documents

    scores, _ = synthetic_scores(m, n, seed=seed)  # (n, m)
    models, tasks = _models(m), _tasks(n)
    folders = {reader: root / reader for reader in READERS}
    for folder in folders.values():
        folder.mkdir(parents=True)
    with (folders["csv"] / "results.csv").open("w") as out:
        out.write("dataset,algorithm,score\n")
        for j, model in enumerate(models):
            out.writelines(f"{tasks[i]},{model},{scores[i, j]:.6f}\n" for i in range(n))
    with (folders["pandas-csv"] / "results.csv").open("w") as out:
        out.write(",dataset,algorithm,score\n")
        for j, model in enumerate(models):
            out.writelines(f"{j * n + i},{tasks[i]},{model},{scores[i, j]:.6f}\n" for i in range(n))
        out.write(f"{m * n},{tasks[0]},failed-run,NaN\n")  # left out as missing
    for j, model in enumerate(models):
        column = [round(float(scores[i, j]), 6) for i in range(n)]
        lm_eval = {
            "results": {t: {"alias": t, "acc,none": v} for t, v in zip(tasks, column, strict=True)},
            "higher_is_better": {t: {"acc": True} for t in tasks},
            "config": {"model_args": f"pretrained={model},dtype=float16", "model_dtype": "fp16"},
            "model_name": model,
        }
        name = f"{model.replace('/', '__')}/results_2024-05-01T10-00-00.json"
        (folders["lm-eval"] / name).parent.mkdir(parents=True, exist_ok=True)
        (folders["lm-eval"] / name).write_text(json.dumps(lm_eval))
        hf = {
            "config": {"model_name": model, "model_dtype": "torch.float16"},
            "results": {t: {"acc": v} for t, v in zip(tasks, column, strict=True)},
        }
        (folders["hf-leaderboard"] / f"{model.replace('/', '__')}.json").write_text(json.dumps(hf))
    for j, model in enumerate(models):  # one model at a time: a million dicts at once is GBs
        documents = eee_documents(
            source="bench",
            retrieved="2026-12-05T00:00:00+00:00",
            metrics=[MetricInfo("acc", True)],
            algorithms=[AlgorithmInfo(model)],
            results={model: [(t, "acc", float(scores[i, j]), None) for i, t in enumerate(tasks)]},
        )
        for name, document in documents.items():
            (folders["eee"] / name).write_text(json.dumps(document))
    with zipfile.ZipFile(folders["zip"] / "results.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted((folders["lm-eval"]).rglob("*.json")):
            archive.write(path, path.relative_to(folders["lm-eval"]).as_posix())
    return folders


def run(options: Options) -> str:
    m, n = QUICK_SIZE if options.quick else SIZE
    with tempfile.TemporaryDirectory(prefix="podium-import-formats-") as tmp:
        folders = write_inputs(Path(tmp), m, n, options.seed)
        measured = {
            reader: run_child("bench.import_formats_child", reader, str(folder), timeout=1800)
            for reader, folder in folders.items()
        }
    csv = measured["csv"]
    rows = []
    for reader, got in measured.items():
        rows.append(
            [
                reader,
                f"{got['results']:,}",
                f"{got['input_mib']:.0f} MiB",
                f"{fmt_seconds(got['cpu'])} ({got['cpu'] / csv['cpu']:.1f}x)",
                f"{fmt_seconds(got['wall'])} ({got['wall'] / csv['wall']:.1f}x)",
                f"{got['peak_added_mib']:.0f} MiB ({got['peak_added_mib'] / max(csv['peak_added_mib'], 1):.1f}x)",
            ]
        )
    all_read = all(got["results"] == m * n for got in measured.values())
    return "\n\n".join(
        [
            f"### import_formats ({m * n:,} results = {m} models x {n} tasks, one metric; "
            "each read once in a fresh interpreter)",
            markdown_table(
                ["reader", "results", "files", "CPU (x CSV)", "wall (x CSV)", "peak added (x CSV)"],
                rows,
            ),
            f"Every reader read all {m * n:,} results: {'yes' if all_read else 'NO'}.",
        ]
    )
