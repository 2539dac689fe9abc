"""Fixtures the page tests share."""

from __future__ import annotations

import pytest

from tests.factories import make_user


@pytest.fixture
def researcher(client):
    """A signed-in researcher (a test module may define its own)."""
    user = make_user("researcher")
    client.force_login(user)
    return user
