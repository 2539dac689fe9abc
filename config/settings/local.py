"""The embedded default: SQLite in ./var, in-process tasks, debug pages on."""

import os

# Whether DEBUG was asked for in the environment, not implied by these settings being
# the default: remembered in the environment, whose changes may precede the imports.
os.environ.setdefault("PODIUM_LOCAL_DEBUG_ASKED", "1" if "DJANGO_DEBUG" in os.environ else "")
os.environ.setdefault("DJANGO_DEBUG", "1")

from django.core.exceptions import ImproperlyConfigured

from config.env import env_str
from config.settings.base import *  # noqa: F403
from config.settings.base import BASE_DIR

# manage.py and config/celery.py fall back to these settings (DEBUG on, a public secret
# key, a demo account) when DJANGO_SETTINGS_MODULE is forgotten: never against a real
# database by accident (issue 26).
_DEBUG_ASKED = os.environ["PODIUM_LOCAL_DEBUG_ASKED"] == "1"
if DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3" and not _DEBUG_ASKED:  # noqa: F405
    raise ImproperlyConfigured(
        "config.settings.local (the default when DJANGO_SETTINGS_MODULE is not set) has DEBUG "
        "on and a public secret key, and refuses the non-SQLite database DATABASE_URL names; "
        "set DJANGO_SETTINGS_MODULE=config.settings.production to run a deployment, or "
        "DJANGO_DEBUG=1 to develop against this database on purpose"
    )

(BASE_DIR / "var").mkdir(exist_ok=True)
SECRET_KEY = env_str("DJANGO_SECRET_KEY", "podium-local-development-only-not-secret")
STATIC_ROOT = BASE_DIR / "var" / "static"
STATIC_ROOT.mkdir(exist_ok=True)
WHITENOISE_USE_FINDERS = True
# `make dev` makes this account, which maintains the demo benchmarks (README says so).
PODIUM_DEMO_MAINTAINER = {"username": "demo-maintainer", "password": "podium-demo"}

# The embedded mode writes from request threads and the background recompute thread at
# once: SQLite in WAL mode (readers never wait), transactions that take the write lock at
# their start (no deadlock between two upgrading readers), and a patient lock wait.
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    DATABASES["default"].setdefault("OPTIONS", {}).update(  # noqa: F405
        {
            "timeout": 30,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )
