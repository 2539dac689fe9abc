"""Published tables for the reference-value tests: the shipped ones and the external ones.

Shipped (always there): ``data/published/`` in the repository, see
``leaderboard.published``. External (licence unknown, so not shipped): the folder named by
``PODIUM_SHARED_DATA``, or else ``shared/data/real`` beside the checkout. A test that needs
an external table is marked ``@pytest.mark.external_data("<folder>")`` and receives the
folder through the ``external_data`` fixture (tests/conftest.py); nothing here reads a
table or fails at import, so collection never depends on optional data.

Where the folder is missing such a test is skipped with a one-line reason, except on CI
(``CI`` set) or when ``PODIUM_REQUIRE_REFERENCE_DATA=1``: there it fails, so CI never
passes by skipping.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from leaderboard.published import PUBLISHED_DATA

__all__ = [
    "PUBLISHED_DATA",
    "REPO_ROOT",
    "ExternalData",
    "external_data_lookup",
    "reference_data_required",
]

REPO_ROOT = Path(__file__).resolve().parent.parent
FOLDER_VARIABLE = "PODIUM_SHARED_DATA"
REQUIRE_VARIABLE = "PODIUM_REQUIRE_REFERENCE_DATA"
BESIDE_THE_CHECKOUT = Path("..") / "shared" / "data" / "real"
"""Where the shared folder sits by convention, relative to the repository root."""

_FALSE = {"", "0", "false", "no", "off"}


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in _FALSE


def reference_data_required() -> bool:
    """True on CI (``CI`` set to anything but false/0) or with PODIUM_REQUIRE_REFERENCE_DATA=1."""
    return _flag("CI") or _flag(REQUIRE_VARIABLE)


@dataclass(frozen=True)
class ExternalData:
    """The outcome of looking for one external table folder."""

    study: str
    path: Path | None
    problem: str = ""


def external_data_lookup(study: str) -> ExternalData:
    """Find ``<shared folder>/<study>``; when absent, say in one line how to provide it.

    A set ``PODIUM_SHARED_DATA`` is the only place looked at (a wrong value is reported,
    never silently replaced by the default).
    """
    configured = os.environ.get(FOLDER_VARIABLE, "").strip()
    if configured:
        base, origin = Path(configured).expanduser(), f"{FOLDER_VARIABLE}={configured}"
    else:
        base, origin = (
            REPO_ROOT / BESIDE_THE_CHECKOUT,
            f"{BESIDE_THE_CHECKOUT.as_posix()} from the checkout",
        )
    folder = base / study
    if folder.is_dir():
        return ExternalData(study, folder)
    return ExternalData(
        study,
        None,
        f"needs {study}/ from the shared folder of published tables, "
        f"not found under {origin}; set {FOLDER_VARIABLE} to that folder "
        "(shared/data/real) to run it",
    )
