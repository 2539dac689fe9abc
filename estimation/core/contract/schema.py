"""The JSON Schema and the field reference, generated from the dataclasses' field
metadata (``python -m estimation.core.contract`` writes both under docs/)."""

from __future__ import annotations

import json
import sys
import typing
from dataclasses import fields
from typing import Any, Literal

from estimation.core.contract.basics import SCHEMA_VERSION, NotApplicable
from estimation.core.contract.codec import _PRIMITIVES, _hints, _is_dataclass_type, _is_union
from estimation.core.contract.payload import SECTION_TYPES, SnapshotPayload

# --- JSON Schema and the field reference ---------------------------------------------------

SCHEMA_ID = "https://podium.invalid/schemas/snapshot.schema.json"


def _schema_of(tp: Any, defs: dict[str, Any]) -> dict[str, Any]:
    if tp is NotApplicable:
        _define(NotApplicable, defs)
        return {"$ref": "#/$defs/NotApplicable"}
    if _is_union(tp):
        args = typing.get_args(tp)
        primitives = [a for a in args if a in (*_PRIMITIVES, type(None))]
        if len(primitives) == len(args):
            return {"type": [_JSON_TYPES[a] for a in args]}
        return {"anyOf": [_schema_of(a, defs) for a in args]}
    origin = typing.get_origin(tp)
    if origin is Literal:
        return {"enum": list(typing.get_args(tp))}
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": _schema_of(args[0], defs)}
        return {
            "type": "array",
            "prefixItems": [_schema_of(a, defs) for a in args],
            "minItems": len(args),
            "maxItems": len(args),
        }
    if origin is dict:
        return {"type": "object", "additionalProperties": _schema_of(typing.get_args(tp)[1], defs)}
    if _is_dataclass_type(tp):
        _define(tp, defs)
        return {"$ref": f"#/$defs/{tp.__name__}"}
    if tp in _JSON_TYPES:
        return {"type": _JSON_TYPES[tp]}
    raise TypeError(f"no JSON Schema for {tp!r}")


_JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}


def _summary(cls: type) -> str:
    return " ".join((cls.__doc__ or "").strip().split("\n\n")[0].split())


def _field_text(f: Any) -> str:
    text = f.metadata.get("meaning", "")
    if f.metadata.get("units"):
        text += f" [{f.metadata['units']}]"
    if f.metadata.get("null"):
        text += f". Null when: {f.metadata['null']}"
    return text


def _define(cls: type, defs: dict[str, Any]) -> None:
    if cls.__name__ in defs:
        return
    defs[cls.__name__] = {}  # placeholder against recursion
    if cls is NotApplicable:
        defs[cls.__name__] = {
            "description": _summary(cls),
            "type": "object",
            "properties": {"not_applicable": {"type": "string", "minLength": 1}},
            "required": ["not_applicable"],
            "additionalProperties": False,
        }
        return
    hints = _hints(cls)
    properties = {}
    for f in fields(cls):
        schema = _schema_of(hints[f.name], defs)
        properties[f.name] = {**schema, "description": _field_text(f)}
    defs[cls.__name__] = {
        "description": _summary(cls),
        "type": "object",
        "properties": properties,
        "required": [f.name for f in fields(cls)],
        "additionalProperties": False,
    }


def json_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) of a whole payload; each section is a ``$defs`` entry and
    ``#/$defs/sections/<name>`` validates one section alone."""
    defs: dict[str, Any] = {}
    root = _schema_of(SnapshotPayload, defs)
    sections = {name: _schema_of(tp, defs) for name, tp in SECTION_TYPES.items()}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": f"Podium snapshot payload, schema version {SCHEMA_VERSION}",
        "description": _summary(SnapshotPayload),
        **root,
        "$defs": {**dict(sorted(defs.items())), "sections": sections},
    }


def section_schema(name: str) -> dict[str, Any]:
    """A schema that validates one section alone (refers into :func:`json_schema`)."""
    whole = json_schema()
    return {
        "$schema": whole["$schema"],
        "title": f"Podium snapshot section {name!r}, schema version {SCHEMA_VERSION}",
        **whole["$defs"]["sections"][name],
        "$defs": whole["$defs"],
    }


def _type_text(tp: Any) -> str:
    if tp is type(None):
        return "null"
    if _is_union(tp):
        return " or ".join(_type_text(a) for a in typing.get_args(tp))
    origin = typing.get_origin(tp)
    if origin is Literal:
        return " | ".join(f"`{v}`" for v in typing.get_args(tp))
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return f"array of {_type_text(args[0])}"
        return f"[{', '.join(_type_text(a) for a in args)}]"
    if origin is dict:
        return f"object of {_type_text(typing.get_args(tp)[1])}"
    if _is_dataclass_type(tp):
        return f"[{tp.__name__}](#{tp.__name__.lower()})"
    return {str: "string", int: "integer", float: "number", bool: "boolean"}.get(tp, str(tp))


def contract_markdown() -> str:
    """The field reference (``docs/snapshot-contract.md``), generated from the metadata."""
    defs: dict[str, Any] = {}
    _schema_of(SnapshotPayload, defs)
    order = [SnapshotPayload, *(t for t in _dataclasses_in_order() if t is not SnapshotPayload)]
    lines = [
        "# The snapshot contract",
        "",
        "<!-- Generated by `python -m estimation.core.contract`; edit the field metadata in",
        "estimation/core/contract/, not this file. -->",
        "",
        f"Schema version **{SCHEMA_VERSION}**. JSON Schema: `docs/snapshot.schema.json` "
        "(served at `/api/contract/snapshot.schema.json`).",
        "",
        *(line.rstrip() for line in (sys.modules[__package__].__doc__ or "").strip().splitlines()),
        "",
        "Every number is a JSON number or null; NaN and infinities never appear. A view "
        'that does not apply is `{"not_applicable": "<reason>"}` (type NotApplicable).',
        "",
    ]
    for cls in order:
        lines += [f"## {cls.__name__}", "", _summary(cls), ""]
        if cls is NotApplicable:
            lines += [
                "| field | type | meaning |",
                "|---|---|---|",
                "| `not_applicable` | string | why the view does not apply, in words |",
                "",
            ]
            continue
        lines += ["| field | type | units | meaning | null when |", "|---|---|---|---|---|"]
        hints = _hints(cls)
        for f in fields(cls):
            meta = f.metadata
            lines.append(
                f"| `{f.name}` | {_type_text(hints[f.name])} | {meta.get('units', '')} | "
                f"{meta.get('meaning', '')} | {meta.get('null', '')} |"
            )
        lines.append("")
    return "\n".join(lines)


def _dataclasses_in_order() -> list[type]:
    seen: list[type] = []

    def visit(tp: Any) -> None:
        if _is_union(tp) or typing.get_origin(tp) in (tuple, dict):
            for arg in typing.get_args(tp):
                if arg is not Ellipsis:
                    visit(arg)
            return
        if _is_dataclass_type(tp) and tp not in seen:
            seen.append(tp)
            for hint in _hints(tp).values():
                visit(hint)

    visit(SnapshotPayload)
    return seen


def main() -> None:
    """Regenerate docs/snapshot.schema.json and docs/snapshot-contract.md."""
    from pathlib import Path

    docs = Path(sys.argv[1] if len(sys.argv) > 1 else "docs")
    docs.mkdir(exist_ok=True)
    (docs / "snapshot.schema.json").write_text(json.dumps(json_schema(), indent=2) + "\n")
    (docs / "snapshot-contract.md").write_text(contract_markdown())
