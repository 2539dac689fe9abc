"""``{% load compare %}``: number formats of the comparison pages."""

from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def pvalue(value: float | None) -> str:
    """A p-value as people read it: "< 0.001", else three decimals; "–" when absent."""
    if value is None:
        return "–"
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


@register.filter
def signed(value: float | None, digits: int = 3) -> str:
    """A difference with its sign ("+0.120"); "–" when absent."""
    return "–" if value is None else f"{value:+.{int(digits)}f}"
