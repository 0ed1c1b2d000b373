#!/usr/bin/env bash
# Installs Debian's Chromium for the browser tests (tests marked `browser`), only when it is
# missing. Playwright drives this system browser; it never downloads one of its own.
set -euo pipefail
CHROMIUM="${ASSAY_CHROMIUM:-/usr/bin/chromium}"
if [ -x "$CHROMIUM" ]; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
else
    SUDO=""
fi
echo "setup-browser: $CHROMIUM not found; installing Debian's chromium package" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
