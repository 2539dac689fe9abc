"""The stored payloads of two demos that pin the numbers to ``ENGINE_VERSION``.

``tests/core/data/golden/<demo>.json`` holds a demo's whole payload as the engine of its
``engine_version`` computed it. The golden test compares a fresh payload with it: every
key, string, integer and flag to the letter, every float within
:data:`~tests.core.references.ITERATIVE` (the payload carries bootstrap intervals of
iterative fits), so the test holds on any CPU and still fails on a changed number.

After a change to a number or to the payload's shape, bump ``ENGINE_VERSION``
(estimation/core/analysis.py), then write the references anew and record their digests
under the new version in ``tests/core/test_golden.py``::

    DJANGO_SETTINGS_MODULE=config.settings.test .venv/bin/python -m tests.core.golden
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

DEMOS = ("demsar", "simulated")
REFERENCE_DIR = Path(__file__).parent / "data" / "golden"


def reference_path(demo: str) -> Path:
    return REFERENCE_DIR / f"{demo}.json"


def reference_text(payload: dict[str, Any]) -> str:
    return json.dumps(payload, indent=1, sort_keys=True, allow_nan=False) + "\n"


def reference_digest(demo: str) -> str:
    """SHA-256 of the stored reference file (what ``GOLDEN`` records per version)."""
    return hashlib.sha256(reference_path(demo).read_bytes()).hexdigest()


def load_reference(demo: str) -> dict[str, Any]:
    return json.loads(reference_path(demo).read_text(encoding="utf-8"))


def write_references() -> dict[str, str]:
    from tests.core.demo_tables import demo_analysis

    REFERENCE_DIR.mkdir(parents=True, exist_ok=True)
    for demo in DEMOS:
        text = reference_text(demo_analysis(demo).to_json())
        reference_path(demo).write_text(text, encoding="utf-8")
    return {demo: reference_digest(demo) for demo in DEMOS}


if __name__ == "__main__":
    import django

    django.setup()
    for demo, digest in write_references().items():
        print(f'"{demo}": "{digest}",')
