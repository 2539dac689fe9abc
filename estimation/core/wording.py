"""Counts in sentences: "1 algorithm is", "2 algorithms are".

One rule for every message that counts something (the engine's notes, the importers',
the pages'), so that none says "1 algorithms".
"""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` with its noun in the number ``n`` takes (``plural`` when not noun + "s")."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def agreeing(n: int, singular: str, plural: str) -> str:
    """The verb (or phrase) that agrees with a count of ``n``: ``agreeing(n, "is", "are")``."""
    return singular if n == 1 else plural
