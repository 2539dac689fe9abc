"""Errors shown twice: in a summary at the top of the page and next to their field.

The summary links to each field by its id; every widget with errors names its error
message in ``aria-describedby`` so that a screen reader reads it with the field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django import forms
from django.core.exceptions import NON_FIELD_ERRORS

from leaderboard.services import Problem


@dataclass(frozen=True)
class SummaryError:
    text: str
    href: str = ""


# For the type checker, the mixin is a form (it is mixed into forms only).
if TYPE_CHECKING:
    _Form = forms.BaseForm
else:
    _Form = object


class AccessibleErrorsMixin(_Form):
    """Point every invalid widget at its error message (``<auto_id>_error``)."""

    def full_clean(self) -> None:
        super().full_clean()
        describe_errors(self)


def describe_errors(form: forms.BaseForm) -> None:
    for name in form.errors:
        if name not in form.fields:
            continue
        bound = form[name]
        described_by = [f"{bound.auto_id}_error"]
        if bound.help_text:
            described_by.insert(0, f"{bound.auto_id}_helptext")
        form.fields[name].widget.attrs["aria-describedby"] = " ".join(described_by)


def form_summary(form: forms.BaseForm) -> list[SummaryError]:
    """The form's errors in field order, each linking to its field (non-field ones first)."""
    summary = [SummaryError(str(message)) for message in form.non_field_errors()]
    for name, messages in form.errors.items():
        if name == NON_FIELD_ERRORS or name not in form.fields:
            continue
        bound = form[name]
        summary.extend(
            SummaryError(f"{bound.label}: {message}", f"#{bound.id_for_label}")
            for message in messages
        )
    return summary


def add_problems(form: forms.BaseForm, problems: list[Problem] | tuple[Problem, ...]) -> None:
    """A service's problems as form errors: on the named field when the form has it."""
    for problem in problems:
        field = problem.field if problem.field in form.fields else None
        form.add_error(field, problem.message)
    describe_errors(form)
