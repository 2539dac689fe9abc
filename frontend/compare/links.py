"""Links to a pair's head-to-head page, many at a time (a p-value grid has m² cells), and
the options of the selects that pick a pair."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from urllib.parse import quote, urlencode

from django.urls import reverse
from django.utils.html import format_html_join
from django.utils.http import RFC3986_SUBDELIMS
from django.utils.safestring import SafeString, mark_safe

from frontend.compare.converters import AlgorithmNameConverter

PairHref = Callable[[str, str], str]


def pair_url_maker(slug: str, metric_name: str | None = None) -> PairHref:
    """``(a, b) -> reverse("compare-pair", ...)`` (plus ``?metric=`` when given) without a
    ``reverse`` per pair: the same converter and quoting as Django's."""
    path = reverse("compare-pair", kwargs={"slug": slug, "a": "a", "b": "b"})
    prefix = path[: -len("a/b/")]
    safe = RFC3986_SUBDELIMS + "/~:@"
    converter = AlgorithmNameConverter()
    query = f"?{urlencode({'metric': metric_name})}" if metric_name else ""

    def href(a: str, b: str) -> str:
        first = quote(converter.to_url(a), safe=safe)
        second = quote(converter.to_url(b), safe=safe)
        return f"{prefix}{first}/{second}/{query}"

    return href


def select_options(names: Sequence[str], selected: str = "") -> SafeString:
    """``<option>``s of a select, built once here (a template loop costs ~0.1 ms an option,
    and a board may list thousands); every name escaped."""
    return format_html_join(
        "",
        '<option value="{}"{}>{}</option>',
        ((name, mark_safe(" selected") if name == selected else "", name) for name in names),
    )
