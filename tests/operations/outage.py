"""The database away, as a request sees it: the default connection pointed at a port
where no PostgreSQL listens (the server's answer to a stopped cluster: refused)."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator

from django.db import connections


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # free again once closed: nothing listens there


@contextlib.contextmanager
def database_unreachable() -> Iterator[None]:
    """Every query of this thread fails to connect until the block ends."""
    connection = connections["default"]
    saved = dict(connection.settings_dict)
    connection.close()
    connection.settings_dict.update(HOST="127.0.0.1", PORT=str(_closed_port()))
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict.clear()
        connection.settings_dict.update(saved)
