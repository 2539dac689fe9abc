"""Rules for the free text and the URLs a user gives: lengths, control and invisible
characters, schemes; one definition for every entry point."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import URLValidator

from leaderboard.ingest.results_csv import control_character_problem
from leaderboard.services.errors import Problem, ValidationFailed

MAX_TEXT_LENGTH = 20_000  # a description, citation or note: pages of text, not a data store
# Benchmark fields shown on one line (titles, table cells) and those that are prose.
_ONE_LINE_FIELDS = ("title", "licence", "control_algorithm")
_PROSE_FIELDS = ("description", "citation")
# In prose, line breaks and tabs are text; other C0 controls, DEL and lone surrogates
# (which UTF-8 and PostgreSQL cannot hold) are not.
_PROSE_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")


def text_problem(text: str, *, prose: bool = False, max_length: int | None = None) -> str | None:
    """Why ``text`` cannot be stored, or None: the one rule for every user text.

    One-line texts (names, titles, token names) follow
    :func:`~leaderboard.ingest.results_csv.control_character_problem` (no control or invisible
    characters); prose (descriptions, citations, notes) may hold line breaks and tabs,
    and at most ``MAX_TEXT_LENGTH`` characters unless ``max_length`` says otherwise.
    """
    if not isinstance(text, str):
        return "must be text"
    limit = max_length if max_length is not None else (MAX_TEXT_LENGTH if prose else None)
    if limit is not None and len(text) > limit:
        return f"is {len(text)} characters long; the limit is {limit}"
    if not prose:
        return control_character_problem(text)
    if found := _PROSE_CONTROL.search(text):
        return (
            f"contains the control character U+{ord(found.group()):04X} at position "
            f"{found.start() + 1}"
        )
    return None


def text_field_problems(
    values: Mapping[str, object], *, prose: Collection[str] = ()
) -> list[Problem]:
    """:func:`text_problem` of each text in ``values`` (field name to value; those named
    in ``prose`` are prose), reported on its field; values that are not text are skipped."""
    return [
        Problem(f"{name} {problem}", name)
        for name, value in values.items()
        if isinstance(value, str) and (problem := text_problem(value, prose=name in prose))
    ]


def benchmark_text_problems(fields: dict) -> list[Problem]:
    """Benchmark texts: one-line fields without control or invisible characters, prose
    within MAX_TEXT_LENGTH (lengths of one-line fields are the model's)."""
    texts = {
        name: value
        for name, value in fields.items()
        if name in _ONE_LINE_FIELDS or name in _PROSE_FIELDS
    }
    return text_field_problems(texts, prose=_PROSE_FIELDS)


def full_clean(instance) -> None:
    """Model validation, reported like every other refused input."""
    try:
        instance.full_clean()
    except DjangoValidationError as exc:
        raise ValidationFailed(
            [
                Problem(message, None if name == "__all__" else name)
                for name, messages in exc.message_dict.items()
                for message in messages
            ]
        ) from None


MAX_URL_LENGTH = 200  # Submission.algorithm_url and Algorithm.url
_URL_VALIDATOR = URLValidator(schemes=["http", "https"])
# RFC 3986: unreserved and reserved characters, and "%" only before two hex digits.
_URI_CHARACTERS = re.compile(r"(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*")


def url_problem(url: str) -> str | None:
    """Why ``url`` is not a link Podium publishes (an absolute http(s) URI), or None.

    Only ASCII: the API's schema promises ``format: uri`` (RFC 3986), which an
    internationalised address breaks; percent-encode it instead. Django's URLValidator
    takes any printable character in the path, RFC 3986 does not: ``{ } | \\ ^ ` " < >``
    and a "%" without two hex digits are refused here too.
    """
    if len(url) > MAX_URL_LENGTH:
        return f"is longer than {MAX_URL_LENGTH} characters"
    if not url.isascii() or any(c.isspace() or not c.isprintable() for c in url):
        return "must be an http(s) URL of printable ASCII characters (percent-encode the rest)"
    if not _URI_CHARACTERS.fullmatch(url):
        return (
            "must be a URI (RFC 3986): percent-encode characters such as spaces, "
            '{ } | \\ ^ ` " < > and a "%" not followed by two hex digits'
        )
    try:
        _URL_VALIDATOR(url)
    except DjangoValidationError:
        return f"must be an absolute http:// or https:// URL, got {url[:60]!r}"
    return None
