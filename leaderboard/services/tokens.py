"""API tokens: created (shown once, stored hashed), revoked, their use recorded."""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import cast

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from leaderboard.ingest.results_csv import control_character_problem
from leaderboard.models import (
    ApiToken,
)
from leaderboard.selectors import (
    api_token_digest,
)
from leaderboard.services.errors import PermissionDenied, Problem, ValidationFailed

# --- API tokens -----------------------------------------------------------------------

API_TOKEN_SCHEME = "pod_"
MAX_ACTIVE_API_TOKENS = 50
# Recording every use would turn each API read into a write; once a minute is enough
# to tell an owner whether a token is still in use.
API_TOKEN_USE_RESOLUTION = timedelta(minutes=1)


@transaction.atomic
def api_token_create(*, user, name: str) -> tuple[ApiToken, str]:
    """A new personal token; returns it with the raw value, which is never stored."""
    if user is None or not user.is_authenticated:
        raise PermissionDenied("log in to create an API token")
    name = name.strip()
    problems = []
    if not name:
        problems.append(Problem("a token needs a name", "name"))
    elif len(name) > cast(int, ApiToken._meta.get_field("name").max_length):
        problems.append(Problem("the name is longer than 100 characters", "name"))
    elif problem := control_character_problem(name):
        problems.append(Problem(f"the name {problem}", "name"))
    active = ApiToken.objects.select_for_update().filter(user=user, revoked_at__isnull=True)
    if len(active) >= MAX_ACTIVE_API_TOKENS:
        problems.append(
            Problem(f"at most {MAX_ACTIVE_API_TOKENS} active tokens; revoke one first", "name")
        )
    if problems:
        raise ValidationFailed(problems)
    raw = API_TOKEN_SCHEME + secrets.token_urlsafe(32)  # 256 bits of entropy
    token = ApiToken.objects.create(
        user=user,
        name=name,
        prefix=raw[: ApiToken.PREFIX_LENGTH],
        key_hash=api_token_digest(raw),
    )
    return token, raw


@transaction.atomic
def api_token_revoke(*, token: ApiToken, user) -> ApiToken:
    """Revoke a token for good (its owner only); revoking twice changes nothing."""
    if user is None or not user.is_authenticated or token.user_id != user.pk:
        raise PermissionDenied("only the owner of a token may revoke it")
    ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
    token.refresh_from_db(fields=["revoked_at"])
    return token


def api_token_record_use(*, token: ApiToken) -> None:
    """Note that a token was used (at most once per API_TOKEN_USE_RESOLUTION)."""
    now = timezone.now()
    ApiToken.objects.filter(pk=token.pk).filter(
        Q(last_used_at__isnull=True) | Q(last_used_at__lt=now - API_TOKEN_USE_RESOLUTION)
    ).update(last_used_at=now)
