"""Which sign-in providers are offered: those whose client id and secret the operator set
(``SOCIALACCOUNT_PROVIDERS``, filled from the environment in config/settings/base.py)."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

# The providers Podium knows how to offer, in the order of the buttons.
PROVIDER_NAMES = {"orcid": "ORCID", "github": "GitHub"}


@dataclass(frozen=True)
class SignInProvider:
    id: str
    name: str
    login_url_name: str


def configured_providers() -> list[SignInProvider]:
    configured = getattr(settings, "SOCIALACCOUNT_PROVIDERS", {})
    return [
        SignInProvider(id=provider_id, name=name, login_url_name=f"{provider_id}_login")
        for provider_id, name in PROVIDER_NAMES.items()
        if configured.get(provider_id, {}).get("APPS")
    ]
