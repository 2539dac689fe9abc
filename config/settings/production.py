"""Production: secrets from the environment, no defaults that could leak."""

from config.env import env_bool, env_int, env_required
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
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", default=False)
SESSION_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", default=True)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_HSTS_SECONDS = env_int("DJANGO_SECURE_HSTS_SECONDS", 0)
SECURE_CONTENT_TYPE_NOSNIFF = True
