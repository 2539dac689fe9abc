"""How much work one account may ask of the site: site settings, enforced in the services.

``PODIUM_MAX_BENCHMARKS_PER_ACCOUNT`` benchmarks an account maintains when it creates
another (staff and superusers exempt; 0 turns the cap off), and
``PODIUM_MAX_PENDING_UPLOADS_PER_ACCOUNT`` background upload jobs an account may have
queued or running at once. A refusal is :class:`QuotaExceeded` (a ``PermissionDenied``:
the web pages answer 403 with the reason; the API answers 429) and names the setting.
Recomputes are coalesced per benchmark in ``estimation.recompute.coalesce``.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model

from leaderboard.models import Benchmark, UploadJob
from leaderboard.services.errors import PermissionDenied


class QuotaExceeded(PermissionDenied):
    """The account has used up a site quota; nothing was written."""


def _exempt(user) -> bool:
    return bool(user.is_staff or user.is_superuser)


def _lock_account(user) -> None:
    """Serialise one account's concurrent requests that count against a quota."""
    list(get_user_model().objects.select_for_update().filter(pk=user.pk).values("pk"))


def benchmark_quota_check(*, creator) -> None:
    """Refuse a new benchmark to an account that maintains the most it may (call inside
    the creating transaction)."""
    limit = settings.PODIUM_MAX_BENCHMARKS_PER_ACCOUNT
    if not limit or creator is None or not creator.is_authenticated or _exempt(creator):
        return
    _lock_account(creator)
    count = Benchmark.objects.filter(maintainers=creator).count()
    if count >= limit:
        raise QuotaExceeded(
            f"an account may maintain at most {limit} benchmarks "
            f"(PODIUM_MAX_BENCHMARKS_PER_ACCOUNT) and you maintain {count}; ask the site's "
            "operators to raise it, or reuse one of your benchmarks"
        )


def upload_jobs_quota_check(*, submitter) -> None:
    """Refuse another background upload while the account has the most pending (call
    inside the transaction that stores the job)."""
    limit = settings.PODIUM_MAX_PENDING_UPLOADS_PER_ACCOUNT
    if not limit:
        return
    _lock_account(submitter)
    pending = UploadJob.objects.filter(
        submitter=submitter, status__in=(UploadJob.Status.QUEUED, UploadJob.Status.RUNNING)
    ).count()
    if pending >= limit:
        raise QuotaExceeded(
            f"you have {pending} uploads waiting to be processed; at most {limit} may wait at "
            "once (PODIUM_MAX_PENDING_UPLOADS_PER_ACCOUNT): send this file again once one "
            "has finished"
        )
