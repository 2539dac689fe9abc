"""Production: secrets from the environment, secure by default.

HTTPS is assumed (HSTS, redirect to https, cookies only over https); each default can
be turned off by an environment variable, documented in docs/operators.md. The proxy's
"this was https" header is trusted only when named in DJANGO_SECURE_PROXY_SSL_HEADER:
trusting it unconditionally would let any client claim https when no proxy strips it.
"""

from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool, env_int, env_required, env_str
from config.settings.base import *  # noqa: F403

SECRET_KEY = env_required(
    "DJANGO_SECRET_KEY",
    hint="Generate one with: python -c 'import secrets; print(secrets.token_urlsafe(50))'",
)
env_required("DATABASE_URL", hint="e.g. postgres://podium:secret@db:5432/podium")

STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}


def _proxy_ssl_header(raw: str) -> tuple[str, str] | None:
    """``X-Forwarded-Proto`` (or ``HTTP_X_FORWARDED_PROTO``) -> Django's META form."""
    name = raw.strip()
    if not name:
        return None
    if not all(c.isalnum() or c in "-_" for c in name):
        raise ImproperlyConfigured(
            f"DJANGO_SECURE_PROXY_SSL_HEADER must be a header name such as "
            f"X-Forwarded-Proto; got {raw!r}"
        )
    meta = name.upper().replace("-", "_")
    return (meta if meta.startswith("HTTP_") else f"HTTP_{meta}", "https")


SECURE_PROXY_SSL_HEADER = _proxy_ssl_header(env_str("DJANGO_SECURE_PROXY_SSL_HEADER", ""))
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
SESSION_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", default=True)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_HSTS_SECONDS = env_int("DJANGO_SECURE_HSTS_SECONDS", 31_536_000)  # one year
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", default=True)
SECURE_HSTS_PRELOAD = env_bool("DJANGO_SECURE_HSTS_PRELOAD", default=False)
SECURE_CONTENT_TYPE_NOSNIFF = True
