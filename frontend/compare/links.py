"""Links to a pair's head-to-head page, many at a time (a p-value grid has m² cells)."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import quote, urlencode

from django.urls import reverse
from django.utils.http import RFC3986_SUBDELIMS

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
