"""``analyze --json`` written section by section, so that the payload is never held a
second time as one JSON tree and one string (at m = 2000, n = 6 those were 700 MB more
than the engine's own arrays).

The text is the same, byte for byte, as ``json.dumps(payload.to_json(), indent=2,
allow_nan=False)``: each top-level field is converted to plain JSON and encoded alone
(``JSONEncoder.iterencode``, in chunks), its lines indented one level further (JSON's
encoder writes a newline only between tokens, never inside a string, so shifting every
newline is exactly one more level of indentation); only one section's JSON tree exists
at a time, and the text goes out in pieces of about ``CHUNK_CHARS``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import fields

from estimation.core.contract import SnapshotPayload, to_json

INDENT = 2
CHUNK_CHARS = 1 << 20


def payload_json_chunks(payload: SnapshotPayload) -> Iterator[str]:
    """The indented JSON text of ``payload`` in pieces (concatenated: ``json.dumps``)."""
    encoder = json.JSONEncoder(indent=INDENT, allow_nan=False)
    shift = "\n" + " " * INDENT
    names = [f.name for f in fields(payload)]
    yield "{"
    for position, name in enumerate(names):
        yield shift + json.dumps(name) + ": "
        tree = to_json(getattr(payload, name))
        for chunk in encoder.iterencode(tree):
            yield chunk.replace("\n", shift)
        del tree
        if position < len(names) - 1:
            yield ","
    yield "\n}" if names else "}"


def payload_json_write(payload: SnapshotPayload, write: Callable[[str], object]) -> None:
    """Write the text of :func:`payload_json_chunks` in pieces of about ``CHUNK_CHARS``."""
    pending: list[str] = []
    size = 0
    for chunk in payload_json_chunks(payload):
        pending.append(chunk)
        size += len(chunk)
        if size >= CHUNK_CHARS:
            write("".join(pending))
            pending, size = [], 0
    if pending:
        write("".join(pending))
