"""The published tables that ship with Podium: ``data/published/`` (licences and provenance there).

One place for the folder and its readers, used by the demo benchmarks, the reference-value
tests and the coverage bench.
No Django here, so the numerical tests can import it.
"""

import csv
from pathlib import Path

PUBLISHED_DATA = Path(__file__).resolve().parent.parent / "data" / "published"


def published_table(study: str, name: str) -> Path:
    """Path of one shipped table, e.g. ``published_table("demsar2006", "..._auc.csv")``."""
    return PUBLISHED_DATA / study / name


def tabzilla_full_scores() -> dict[str, dict[str, tuple[float, float]]]:
    """{algorithm: {dataset: (accuracy, log loss)}} from the TabZilla repository's table.

    Accuracy is the published ``Accuracy__test_mean``. The table gives log loss min-max
    scaled per dataset with the range beside it; the mean log loss is
    ``min + normalized * (max - min)`` (PROVENANCE.md), exact up to rounding.
    """
    scores: dict[str, dict[str, tuple[float, float]]] = {}
    with open(
        published_table("tabzilla_full", "tuned_aggregated_results.csv"),
        newline="",
        encoding="utf-8",
    ) as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        low = float(row["Log Loss__test_mean_min"])
        high = float(row["Log Loss__test_mean_max"])
        log_loss = low + float(row["normalized_Log Loss__test_mean"]) * (high - low)
        scores.setdefault(row["alg_name"], {})[row["dataset_name"]] = (
            float(row["Accuracy__test_mean"]),
            log_loss,
        )
    return scores


# TabZilla's own algorithm types (``alg_type``), in a reader's words.
TABZILLA_TYPES = {
    "gbdt": "gradient-boosted trees",
    "neural": "neural network",
    "baseline": "baseline",
}


def tabzilla_algorithm_families() -> dict[str, str]:
    """{algorithm: family} as the TabZilla repository's table types its 18 algorithms
    (``alg_type``: gbdt, neural, baseline; PROVENANCE.md)."""
    with open(
        published_table("tabzilla_full", "tuned_aggregated_results.csv"),
        newline="",
        encoding="utf-8",
    ) as handle:
        return {
            row["alg_name"]: TABZILLA_TYPES.get(row["alg_type"], row["alg_type"])
            for row in csv.DictReader(handle)
        }
