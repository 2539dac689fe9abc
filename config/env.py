"""Read settings from the environment with explicit, safe defaults."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from django.core.exceptions import ImproperlyConfigured

if TYPE_CHECKING:
    from dj_database_url import DBConfig

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_required(name: str, *, hint: str = "") -> str:
    value = os.environ.get(name, "").strip()
    if not value:
        raise ImproperlyConfigured(f"the environment variable {name} must be set. {hint}".strip())
    return value


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    lowered = raw.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ImproperlyConfigured(
        f"{name} must be one of 1/0, true/false, yes/no, on/off; got {raw!r}"
    )


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer; got {raw!r}") from None


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_networks(name: str) -> list[str]:
    """Comma-separated IP networks in CIDR form (``10.0.0.0/8``, ``::1/128``), each checked
    here so that a typo stops startup instead of opening or closing something silently."""
    import ipaddress

    networks = env_list(name, [])
    for network in networks:
        try:
            ipaddress.ip_network(network)
        except ValueError as exc:
            raise ImproperlyConfigured(
                f"{name} must be IP networks such as 10.0.0.0/8, comma-separated; "
                f"{network!r}: {exc}"
            ) from None
    return networks


def database_from_url(url: str) -> DBConfig:
    import dj_database_url

    try:
        config = dj_database_url.parse(url, conn_max_age=60, conn_health_checks=True)
    except (ValueError, KeyError) as exc:
        raise ImproperlyConfigured(
            f"DATABASE_URL is not a valid database URL ({exc}); "
            "expected e.g. postgres://user@127.0.0.1:5432/podium or sqlite:///path/to/db.sqlite3"
        ) from None
    if not config.get("ENGINE"):
        raise ImproperlyConfigured(f"DATABASE_URL has an unsupported scheme: {url!r}")
    return config
