"""The sources' own orders (:class:`~leaderboard.models.PublishedOrder`): kept from an
import by the benchmark's maintainer or an operator, never from a stranger's upload (an
order beside the board is a claim about the whole board, not one submitter's result)."""

from __future__ import annotations

import math
from collections.abc import Mapping

from django.db import transaction

from leaderboard.models import Benchmark, PublishedOrder
from leaderboard.services.access import user_is_maintainer
from leaderboard.services.entries import MAX_NAME_LENGTH
from leaderboard.services.text import text_problem

MAX_PUBLISHED_ORDERS = 20  # a benchmark's aggregates worth showing beside its board
MAX_ORDER_LENGTH = 20_000  # algorithms in one order


def published_orders_store(
    *,
    benchmark: Benchmark,
    published: Mapping[str, Mapping[str, float]],
    source_format: str,
    user=None,
    by_operator: bool = False,
) -> list[PublishedOrder]:
    """Keep ``published`` (order name -> algorithm -> value) for ``benchmark``, replacing
    orders of the same name; nothing unless ``user`` maintains it or ``by_operator`` (a
    command run on the server). Names that are not clean text and non-finite values are
    dropped; at most :data:`MAX_PUBLISHED_ORDERS` orders are kept a benchmark."""
    if not published or not (by_operator or user_is_maintainer(user=user, benchmark=benchmark)):
        return []
    kept = []
    with transaction.atomic():
        for name, values in list(published.items())[:MAX_PUBLISHED_ORDERS]:
            cleaned = _clean_values(values)
            if _name_problem(name) or len(cleaned) < 2:
                continue
            order, _ = PublishedOrder.objects.update_or_create(
                benchmark=benchmark,
                name=name,
                defaults={"source_format": source_format[:40], "values": cleaned},
            )
            kept.append(order)
        surplus = PublishedOrder.objects.filter(benchmark=benchmark).order_by("-imported_at")[
            MAX_PUBLISHED_ORDERS:
        ]
        PublishedOrder.objects.filter(pk__in=[o.pk for o in surplus]).delete()
    return kept


def _name_problem(name: str) -> str | None:
    return text_problem(name, max_length=MAX_NAME_LENGTH) if name.strip() else "empty"


def _clean_values(values: Mapping[str, float]) -> dict[str, float]:
    cleaned: dict[str, float] = {}
    for algorithm, value in list(values.items())[:MAX_ORDER_LENGTH]:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        if math.isfinite(value) and not _name_problem(algorithm):
            cleaned[algorithm] = float(value)
    return cleaned
