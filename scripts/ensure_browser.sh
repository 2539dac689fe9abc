#!/usr/bin/env bash
# Make sure a Chromium for the browser tests (tests/browser) is installed: Debian's
# `chromium` package at /usr/bin/chromium (Playwright's own browser download is not used).
# Idempotent; used by `make test` and CI. PODIUM_CHROMIUM overrides the path.
set -euo pipefail

chromium=${PODIUM_CHROMIUM:-/usr/bin/chromium}
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if [ ! -x "$chromium" ]; then
  echo "ensure_browser: installing chromium from Debian's packages" >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    chromium fonts-dejavu-core >/dev/null
fi
if [ ! -x "$chromium" ]; then
  echo "ensure_browser: no Chromium at $chromium after installing" >&2
  exit 1
fi
echo "ensure_browser: $("$chromium" --version 2>/dev/null || echo "$chromium")"
