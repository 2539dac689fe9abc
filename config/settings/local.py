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
