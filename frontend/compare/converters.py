"""A URL path segment that carries any algorithm name, slashes included.

Servers decode ``%2F`` before Django routes a request, so a name with a ``/`` cannot
sit in a segment as it is. ``to_url`` escapes ``%`` and ``/`` (and a name of dots only,
which browsers would resolve as ``.`` or ``..``) once more; ``reverse`` then quotes the
``%`` itself, the server undoes that layer, and ``to_python`` undoes ours.
"""

from __future__ import annotations

import re

_ESCAPED = re.compile(r"%(2[5Ff]|2[Ee])")
_DECODED = {"25": "%", "2f": "/", "2e": "."}


class AlgorithmNameConverter:
    regex = "[^/]+"

    def to_python(self, value: str) -> str:
        return _ESCAPED.sub(lambda match: _DECODED[match.group(1).lower()], value)

    def to_url(self, value: str) -> str:
        text = str(value)
        if not text:
            raise ValueError("an algorithm name is never empty")
        text = text.replace("%", "%25").replace("/", "%2F")
        if set(text) == {"."}:
            text = text.replace(".", "%2E")
        return text
