"""``{% recompute_stall_notice benchmark_ids %}``: the maintainers' warning that their
queued recomputes have no worker to run them (operations.status.stall_warning)."""

from __future__ import annotations

from django import template

from operations.status import operations_status

register = template.Library()


@register.inclusion_tag("operations/_stall_notice.html", takes_context=True)
def recompute_stall_notice(context, benchmarks) -> dict:
    ids = [(item[0] if isinstance(item, tuple) else item).pk for item in benchmarks]
    return {
        "stall": operations_status(benchmark_ids=ids, queue=False).stall if ids else None,
        "user": context.get("user"),
    }
