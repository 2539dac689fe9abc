"""The embedded default: SQLite in ./var, in-process tasks, debug pages on."""

import os

os.environ.setdefault("DJANGO_DEBUG", "1")

from config.env import env_str
from config.settings.base import *  # noqa: F403
from config.settings.base import BASE_DIR

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
