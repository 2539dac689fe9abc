"""The published tables that ship with Podium: ``data/published/`` (licences and provenance there).

One place for the folder, read by the demo benchmarks and by the reference-value tests.
No Django here, so the numerical tests can import it.
"""

from pathlib import Path

PUBLISHED_DATA = Path(__file__).resolve().parent.parent / "data" / "published"


def published_table(study: str, name: str) -> Path:
    """Path of one shipped table, e.g. ``published_table("demsar2006", "..._auc.csv")``."""
    return PUBLISHED_DATA / study / name
