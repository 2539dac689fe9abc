"""Waiting for a background upload job through its API endpoint."""

import time


def finished(api, location: str, timeout: float = 60.0) -> dict:
    deadline = time.monotonic() + timeout
    seen = set()
    while time.monotonic() < deadline:
        body = api.get(location).json()
        seen.add(body["status"])
        if body["status"] in ("done", "failed"):
            body["seen"] = seen
            return body
        time.sleep(0.1)
    raise AssertionError(f"the upload did not finish in {timeout} s: {body}")
