"""The services' rules on texts, written as JSON-schema patterns for the OpenAPI schema.

One-line texts (names, titles, query parameters) may not hold a control or invisible
character (:func:`leaderboard.ingest.results_csv.control_character_problem`); prose
(descriptions, citations, notes) may hold line breaks and tabs but no other C0 control
or DEL (:func:`leaderboard.services.text_problem`). A text that may not be blank needs
a character other than whitespace, which DRF trims.

The patterns name the ASCII part of the rules only: the C0 controls and DEL, and the
space. The non-ASCII characters the API also refuses in names (C1 controls, format
characters such as U+200B or U+FEFF, line and paragraph separators) are not in them:
Schemathesis 4.32 compiles a pattern with ``re.ASCII`` (as an ECMA engine reads ``\\d``)
and Hypothesis then refuses a character class with a non-ASCII member, which left
every such parameter without a value it could draw (it sent an empty one). The API's
refusal of such a character names it and its position.
"""

from __future__ import annotations

_ONE_LINE_EXCLUDED = "\\u0000-\\u001f\\u007f"
_PROSE_EXCLUDED = "\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f"
_SPACE = " "


def text_pattern(*, prose: bool = False, blank: bool = True, separators: str = "") -> str:
    """A pattern for a one-line text (or ``prose``); ``blank=False``: not whitespace only
    (nor ``separators`` only, such as the commas of a list)."""
    bad = _PROSE_EXCLUDED if prose else _ONE_LINE_EXCLUDED
    if blank:
        return f"^[^{bad}]*$"
    return f"^[^{bad}]*[^{_ONE_LINE_EXCLUDED}{_SPACE}{separators}][^{bad}]*$"
