"""The text rule of every name and one-line text (datasets, algorithms, metrics,
titles, tokens, query parameters): no control or invisible character. Shared plumbing:
imports nothing of the project."""

from __future__ import annotations

import re
import unicodedata

# C0 controls and DEL: never part of a name, and PostgreSQL text cannot hold NUL.
_CONTROL = re.compile("[\x00-\x1f\x7f]")
# Beyond ASCII, the Unicode categories a name may not hold: controls (C1), format
# characters (bidi overrides that reorder what a reader sees, zero-width spaces and
# joiners that make two names look alike, the BOM), lone surrogates (not encodable in
# UTF-8: PostgreSQL refuses them), and line/paragraph separators.
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def control_character_problem(name: str) -> str | None:
    """Why ``name`` cannot be stored (a control or invisible character), or None.

    The one rule for every name and one-line text (datasets, algorithms, metrics,
    titles, tokens, query parameters). ASCII names take one regex; others are checked
    character by character only when ``str.isprintable`` (C speed) finds something.
    """
    if name.isascii():
        found = _CONTROL.search(name)
        if found is None:
            return None
        position, char = found.start(), found.group()
    else:
        if name.isprintable():
            return None  # no Cc, Cf, Cs, Zl or Zp (isprintable is False for each)
        hits = (
            (i, c) for i, c in enumerate(name) if unicodedata.category(c) in _INVISIBLE_CATEGORIES
        )
        position, char = next(hits, (-1, ""))
        if position < 0:
            return None  # only spaces such as U+00A0, or private-use characters
    label = "control" if unicodedata.category(char) == "Cc" else "invisible"
    return (
        f"contains the {label} character U+{ord(char):04X} at position "
        f"{position + 1}: names may not hold control or invisible characters"
    )
