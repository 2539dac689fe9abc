"""Turn configuration mistakes into one clear line instead of a traceback."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def exit_on_configuration_error() -> Iterator[None]:
    from django.core.exceptions import ImproperlyConfigured
    from django.db.utils import OperationalError

    try:
        yield
    except ImproperlyConfigured as exc:
        sys.exit(f"Podium is misconfigured: {exc}")
    except OperationalError as exc:
        from django.conf import settings

        db = settings.DATABASES["default"]
        where = f"{db.get('HOST') or 'localhost'}:{db.get('PORT') or 'default port'}"
        if db["ENGINE"].endswith("sqlite3"):
            where = str(db["NAME"])
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        sys.exit(
            f"Podium cannot use its database ({where}, from DATABASE_URL): {reason}. "
            "Check that the server is running and the URL is right."
        )
