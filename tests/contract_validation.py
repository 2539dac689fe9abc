"""Validate payloads and stored sections against the committed JSON Schema.

``tests/conftest.py`` hooks :func:`validate_sections` into every snapshot a test writes,
so each stored section of the suite is checked against docs/snapshot.schema.json.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import jsonschema

SCHEMA_FILE = Path(__file__).resolve().parents[1] / "docs" / "snapshot.schema.json"
# jsonschema walks every number: a section larger than this (thousands of algorithms) is
# checked by its typed round trip only, to keep the suite fast.
MAX_VALIDATED_BYTES = 2_000_000


@cache
def committed_schema() -> dict:
    return json.loads(SCHEMA_FILE.read_text())


@cache
def _validator(section: str | None):
    schema = committed_schema()
    if section is not None:
        schema = {
            "$schema": schema["$schema"],
            **schema["$defs"]["sections"][section],
            "$defs": schema["$defs"],
        }
    return jsonschema.Draft202012Validator(schema)


def validate(payload: dict) -> None:
    """Raise ``jsonschema.ValidationError`` unless ``payload`` (a whole analysis) fits."""
    _validator(None).validate(payload)


def validate_section(name: str, data) -> None:
    _validator(name).validate(data)


def validate_sections(bodies: dict[str, tuple[str, str]]) -> None:
    """``bodies`` as ``estimation.services.section_bodies`` returns them."""
    from estimation.core.contract import section_from_json, section_to_json

    for name, (body, _etag) in bodies.items():
        data = json.loads(body)
        if len(body) <= MAX_VALIDATED_BYTES:
            validate_section(name, data)
        assert section_to_json(name, section_from_json(name, data)) == data, name
