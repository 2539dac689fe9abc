"""Request-level permissions of the REST API.

Object rules (who may edit or moderate a benchmark, who may submit) live in the
services, which raise ``PermissionDenied`` (mapped to 403); what a user may *read* lives
in the selectors (``benchmark_get_visible``), and what they may not read is a 404.
"""

from __future__ import annotations

from rest_framework.permissions import BasePermission


class IsSessionAuthenticated(BasePermission):
    """Logged in through the web session, not with an API token.

    Minting tokens needs the session: a leaked token cannot be used to create more
    tokens that would survive its revocation.
    """

    message = "Create API tokens from a logged-in web session, not with another token."

    def has_permission(self, request, view) -> bool:
        return bool(request.user and request.user.is_authenticated and request.auth is None)
