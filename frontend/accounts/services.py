"""Account writes of the pages (the leaderboard services own everything else)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction


@transaction.atomic
def user_signup(*, username: str, email: str, password: str):
    """A new researcher account; the caller has checked the password against the validators."""
    return get_user_model().objects.create_user(username=username, email=email, password=password)
