"""The services' rules on texts, written as JSON-schema patterns for the OpenAPI schema.

One-line texts (names, titles, query parameters) may not hold a control or invisible
character (:func:`estimation.results_csv.control_character_problem`: Unicode categories
Cc, Cf, Cs, Zl and Zp); prose (descriptions, citations, notes) may hold line breaks
and tabs but no other C0 control or DEL (:func:`leaderboard.services.text_problem`).
A text that may not be blank needs a character other than whitespace, which DRF trims.

The patterns are built from the same Unicode data as the checks, as ``\\uXXXX`` ranges
an ECMA regex reads without flags. Two kinds of character are refused by the checks but
not named by the patterns: lone surrogates (Cs), which neither UTF-8 nor JSON text can
carry, and the few invisible characters beyond the Basic Multilingual Plane (Cf: tags
U+E0001 and U+E0020-E007F, and some format controls), which such a regex cannot name
(Schemathesis 4.32 also rewrites them into Python's ``\\U`` escapes, which its own
validator then refuses).
"""

from __future__ import annotations

import functools
import unicodedata

_ONE_LINE_EXCLUDED = ("Cc", "Cf", "Zl", "Zp")
_PROSE_EXCLUDED = "\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f"


def _class(codes: list[int]) -> str:
    """The inside of a regex character class matching ``codes`` (ascending) of the Basic
    Multilingual Plane."""
    bmp = [code for code in codes if code <= 0xFFFF]
    parts = []
    start = previous = bmp[0]
    for code in [*bmp[1:], -1]:
        if code == previous + 1:
            previous = code
            continue
        parts.append(
            f"\\u{start:04x}" if start == previous else f"\\u{start:04x}-\\u{previous:04x}"
        )
        start = previous = code
    return "".join(parts)


@functools.cache
def _one_line_excluded() -> tuple[int, ...]:
    return tuple(
        code
        for code in range(0x10000)
        if not 0xD800 <= code <= 0xDFFF and unicodedata.category(chr(code)) in _ONE_LINE_EXCLUDED
    )


@functools.cache
def text_pattern(*, prose: bool = False, blank: bool = True, separators: str = "") -> str:
    """A pattern for a one-line text (or ``prose``); ``blank=False``: not whitespace only
    (nor ``separators`` only, such as the commas of a list)."""
    excluded = _one_line_excluded()
    bad = _PROSE_EXCLUDED if prose else _class(list(excluded))
    if blank:
        return f"^[^{bad}]*$"
    gone = set(excluded)
    spaces = [c for c in range(0x10000) if chr(c).isspace() and c not in gone]
    return f"^[^{bad}]*[^{bad}{_class(spaces)}{separators}][^{bad}]*$"
