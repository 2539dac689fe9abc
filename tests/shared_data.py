"""Where the published reference tables live: ``shared/data/real`` beside the checkout.

They are read in place, never copied into the project. A clone elsewhere can point
``PODIUM_SHARED_DATA`` at them; the workplace's own copy is the last resort.
"""

import os
from pathlib import Path

_CANDIDATES = [
    os.environ.get("PODIUM_SHARED_DATA", ""),
    str(Path(__file__).resolve().parents[2] / "shared" / "data" / "real"),
    "/work/shared/data/real",
]


def shared_data_dir() -> Path:
    for candidate in _CANDIDATES:
        if candidate and (Path(candidate) / "demsar2006").is_dir():
            return Path(candidate)
    raise FileNotFoundError(
        "the reference tables (shared/data/real) were not found; set PODIUM_SHARED_DATA to "
        f"their folder (looked in {[c for c in _CANDIDATES if c]})"
    )


SHARED_DATA = shared_data_dir()
