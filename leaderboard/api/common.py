"""Pieces the catalogue's API views share: idempotency keys, strict input serializers,
score values, 404s for submissions a user may not read. (The base view, query
parameters and error bodies every app's API uses are common/rest.py; the catalogue's
lookups for any app's API are leaderboard/lookups.py.)"""

from __future__ import annotations

import difflib
from collections.abc import Mapping

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.utils import html

from common.rest import BoundedJSONParser, boolean_text_problem, length_problem
from leaderboard.models import Benchmark, Submission
from leaderboard.selectors import submission_get_visible
from leaderboard.services import Problem, ValidationFailed, text_problem, user_is_maintainer

IDEMPOTENCY_HEADER = "Idempotency-Key"
# Room for the "#<index>" the services append for a file's i-th algorithm (max_length 100).
IDEMPOTENCY_KEY_MAX = 80

idempotency_parameter = OpenApiParameter(
    IDEMPOTENCY_HEADER,
    # Printable ASCII (space to tilde) but "#".
    {"type": "string", "maxLength": IDEMPOTENCY_KEY_MAX, "pattern": '^[ -"$-~]*$'},
    OpenApiParameter.HEADER,
    required=False,
    description="Send one with every script's submission. Retrying with the same key "
    "(after a dropped connection, or a 503 with Retry-After) returns the submissions "
    "stored the first time (200 instead of 201) instead of storing them twice. At most "
    "80 printable ASCII characters, without '#'.",
)

# JSON types each kind of input field takes (subclasses first: a URLField is a CharField).
_JSON_TYPES: tuple[tuple[type[serializers.Field], tuple[type, ...], str], ...] = (
    (serializers.BooleanField, (bool,), "Must be a valid boolean (true or false)."),
    (serializers.IntegerField, (int,), "A valid integer is required."),
    (serializers.FloatField, (int, float), "A valid number is required."),
    (serializers.CharField, (str,), "Not a valid string."),
    (serializers.ChoiceField, (str,), "Not a valid string."),
    (serializers.ListSerializer, (list,), "Expected a list."),
    (serializers.Serializer, (dict,), "Expected an object."),
)


# Sent by a browser's form beside the fields (the browsable API's forms).
FORM_EXTRAS = frozenset({"csrfmiddlewaretoken"})


def unknown_field_problem(name: str, known: list[str]) -> str:
    """The refusal of a field the input does not take, with the closest known name."""
    close = difflib.get_close_matches(name.lower(), known, n=1, cutoff=0.6)
    close = close or [k for k in known if name in _FIELD_SYNONYMS.get(k, ())]
    hint = f"did you mean {close[0]!r}? " if close else ""
    return f"unknown field: {hint}The fields are {', '.join(known)}."


# Names sent for a field that are not spelt like it (``"score"`` for ``value``).
_FIELD_SYNONYMS: dict[str, tuple[str, ...]] = {
    "value": ("score", "result", "val"),
    "dataset": ("data", "task"),
    "algorithm": ("model", "method", "name"),
}


class StrictInput:
    """Input serializers take each field in the type their schema documents, and no
    field they do not know (a misspelt optional field was dropped silently).

    DRF coerces: ``0`` passes as the string "0" or as false, ``"5"`` as an integer, and
    in a form an empty value reads as "not given". What the OpenAPI schema says is what
    is accepted instead (Schemathesis checks both ways): in JSON each value must have
    the documented type; in a form, where every value is text, a boolean is exactly
    ``true`` or ``false`` (in a query too) and a field that takes no blank may not be
    sent empty. A text field's ``max_length`` (the schema's maxLength) holds for the value as sent: DRF trims the
    whitespace around it first, so 200 characters and a space passed a limit of 200.
    """

    def to_internal_value(self, data):
        if isinstance(data, Mapping):
            errors = {}
            form = html.is_html_input(data)
            known = [n for n, f in self.fields.items() if not f.read_only]  # type: ignore[attr-defined]
            for name in data:
                if name not in self.fields and not (form and name in FORM_EXTRAS):  # type: ignore[attr-defined]
                    errors[str(name)[:50]] = [unknown_field_problem(str(name), known)]
            for name, field in self.fields.items():  # type: ignore[attr-defined]
                if field.read_only or name not in data:
                    continue
                if problem := _type_problem(field, data[name], form=form):
                    errors[name] = [problem]
            if errors:
                raise serializers.ValidationError(self._with_other_errors(data, errors))
        return super().to_internal_value(data)  # type: ignore[misc]

    def _with_other_errors(self, data, errors: dict) -> dict:
        """Type errors beside every other problem of the input, in field order."""
        fields = self.fields  # type: ignore[attr-defined]
        if hasattr(data, "copy") and hasattr(data, "pop"):
            rest = data.copy()
            for name in list(rest):
                if name in errors or name not in fields:
                    rest.pop(name, None)
        else:
            rest = {k: v for k, v in data.items() if k not in errors and k in fields}
        others: dict = {}
        try:
            super().to_internal_value(rest)  # type: ignore[misc]
        except serializers.ValidationError as exc:
            if isinstance(exc.detail, dict):
                others = dict(exc.detail)
        merged = {
            name: errors.get(name, others.get(name))
            for name in self.fields  # type: ignore[attr-defined]
            if name in errors or name in others
        }
        merged.update({k: v for k, v in others.items() if k not in merged})
        merged.update({k: v for k, v in errors.items() if k not in merged})
        return merged


# Texts that may span lines (leaderboard.services.text_problem with prose=True); every
# other text field is one line, without control or invisible characters.
PROSE_FIELDS = frozenset({"description", "citation", "note"})


def is_prose(field: serializers.Field) -> bool:
    return field.field_name in PROSE_FIELDS


def _text_problem(field: serializers.Field, value) -> str | None:
    """The services' rule on texts, for what DRF trims before they see it: a one-line
    name ending in a newline or a tab was stored. (The services name the field of any
    other control character themselves.)"""
    if not (isinstance(field, serializers.CharField) and isinstance(value, str)):
        return None
    trimmed = value.strip() if field.trim_whitespace else value
    if trimmed == value:
        return None
    prose = is_prose(field)
    problem = text_problem(value, prose=prose)
    return problem if problem and not text_problem(trimmed, prose=prose) else None


def _type_problem(field: serializers.Field, value, *, form: bool) -> str | None:
    if value is None:
        return None  # the field's own allow_null decides
    if problem := length_problem(field, value) or _text_problem(field, value):
        return problem
    if form:
        if value == "" and not getattr(field, "allow_blank", False):
            return "may not be empty: give a value, or leave the field out"
        return boolean_text_problem(field, value)
    for kind, types, message in _JSON_TYPES:
        if isinstance(field, kind):
            if isinstance(value, types) and not (isinstance(value, bool) and bool not in types):
                return None
            return message
    return None


class NonFiniteJSONParser(BoundedJSONParser):
    """Reads NaN and Infinity as numbers, so that the services name the score at fault."""

    strict = False


@extend_schema_field(OpenApiTypes.NUMBER)
class ScoreValueField(serializers.Field):
    """Passes the value to the services unchanged: they decide what a valid score is."""

    default_error_messages = {"invalid": "A number is required, got a boolean."}

    def to_internal_value(self, data):
        if isinstance(data, bool):
            self.fail("invalid")
        return data

    def to_representation(self, value):
        return value


def submission_or_404(*, benchmark: Benchmark, user, submission_id: int) -> Submission:
    try:
        return submission_get_visible(
            benchmark=benchmark,
            user=user,
            is_maintainer=user_is_maintainer(user=user, benchmark=benchmark),
            submission_id=submission_id,
        )
    except Submission.DoesNotExist:
        raise NotFound(f"No submission {submission_id} in {benchmark.slug!r}.") from None


def idempotency_key_from(request) -> str:
    key = request.headers.get(IDEMPOTENCY_HEADER, "").strip()
    # "#" is the services' separator for a file's i-th algorithm ("key#1"); a key holding
    # it could replay another upload's part.
    if len(key) > IDEMPOTENCY_KEY_MAX or "#" in key or not (key.isascii() and key.isprintable()):
        raise ValidationFailed(
            [
                Problem(
                    f"at most {IDEMPOTENCY_KEY_MAX} printable ASCII characters, without '#'",
                    IDEMPOTENCY_HEADER,
                )
            ]
        )
    return key
