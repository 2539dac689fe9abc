"""Account pages rendered by views that are not ours (allauth's): the error summary
of a form, the sign-in providers offered."""

from __future__ import annotations

from django import template

from frontend.accounts.social import SignInProvider, configured_providers
from frontend.contribute.form_errors import form_summary

register = template.Library()


@register.inclusion_tag("frontend/accounts/_error_summary.html")
def error_summary(form) -> dict:
    return {"errors": form_summary(form) if form is not None else []}


@register.simple_tag
def sign_in_providers() -> list[SignInProvider]:
    return configured_providers()
