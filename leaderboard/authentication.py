"""Personal API tokens for scripts: ``Authorization: Token <raw>``."""

from __future__ import annotations

from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed

from leaderboard.selectors import api_token_get_active
from leaderboard.services import api_token_record_use

KEYWORD = "Token"


class ApiTokenAuthentication(BaseAuthentication):
    """Authenticates a request carrying a personal token; ``request.auth`` is the ApiToken.

    A request without the header is left to the next authenticator (the session); a
    malformed, unknown or revoked token is refused with 401 rather than treated as
    anonymous, so that a script notices at once.
    """

    def authenticate(self, request):
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() != KEYWORD.lower().encode():
            return None
        if len(parts) != 2:
            raise AuthenticationFailed(
                f"Invalid Authorization header: expected '{KEYWORD} <token>' with no spaces "
                "in the token."
            )
        try:
            raw = parts[1].decode("ascii")
        except UnicodeDecodeError:
            raise AuthenticationFailed("Invalid token: tokens are ASCII.") from None
        token = api_token_get_active(raw=raw)
        if token is None or not token.user.is_active:
            raise AuthenticationFailed("Invalid or revoked token.")
        api_token_record_use(token=token)
        return token.user, token

    def authenticate_header(self, request) -> str:
        # Makes DRF answer unauthenticated requests with 401 and WWW-Authenticate.
        return KEYWORD
