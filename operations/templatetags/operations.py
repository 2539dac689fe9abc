"""``{% recompute_stall_notice benchmark_ids %}``: the maintainers' warning that their
queued recomputes have no worker to run them (operations.status.stall_warning)."""

from __future__ import annotations

from django import template

from operations.status import OperationsStatus, operations_status

register = template.Library()


@register.inclusion_tag("operations/_stall_notice.html", takes_context=True)
def recompute_stall_notice(context, benchmarks, status: OperationsStatus | None = None) -> dict:
    """``status``: the page's own :func:`operations_status` of these benchmarks, when it
    has read it already (not read twice)."""
    if status is None:
        ids = [(item[0] if isinstance(item, tuple) else item).pk for item in benchmarks]
        status = operations_status(benchmark_ids=ids, queue=False) if ids else None
    return {"stall": status.stall if status else None, "user": context.get("user")}
