"""Work in a background thread of this process (the embedded mode, which has no workers).

Both background paths of the embedded mode use :func:`db_daemon_thread`: a recompute
(``estimation/recompute/background.py``) and a large upload (``leaderboard/uploads.py``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connections


def db_daemon_thread(
    target: Callable[..., object], /, *args: Any, name: str, **kwargs: Any
) -> threading.Thread:
    """A daemon thread, not yet started, that runs ``target(*args, **kwargs)``.

    Daemon: a server that stops does not wait for it (the work it leaves is found by the
    lease or the sweep, as after a dead worker). Django opens one connection per thread
    and closes it only at the end of a request, so the thread closes its own when done.
    """

    def run() -> None:
        try:
            target(*args, **kwargs)
        finally:
            connections.close_all()

    return threading.Thread(target=run, name=name, daemon=True)
