"""Production settings for the scratch server of tests/reliability, serving static files
from the app folders (as the test settings do) instead of a collectstatic'ed manifest,
which would cost the suite a collectstatic run. Everything else is production's: the
persistent database connections whose recovery the outage test checks, the fail-open
Redis cache, the error handlers."""

from config.settings.production import *  # noqa: F403

STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
STATIC_ROOT = None
WHITENOISE_USE_FINDERS = True
