#!/usr/bin/env bash
# Install everything the test suite needs, on a fresh machine or again on this one (idempotent):
#   1. the package with its test extra (pytest, selenium, ...), editable;
#   2. the pinned npm reference packages (package-lock.json);
#   3. Debian's chromium and chromium-driver for the viewer's browser tests (tests/viewer), only when this
#      runs as root on a machine with apt-get and they are missing; otherwise it says why and goes on (those
#      tests then skip, naming the reason).
# Called by the README's test command and by .ci/run, so the two stay one command.
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1
python -m pip install --quiet -e '.[test]'
npm ci --no-audit --no-fund --loglevel=error
if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
  :  # already installed
elif [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y -q --no-install-recommends chromium chromium-driver >/dev/null 2>&1; then
    apt-get update -q >/dev/null 2>&1 || true
    apt-get install -y -q --no-install-recommends chromium chromium-driver >/dev/null 2>&1 \
      || echo "setup: could not install chromium/chromium-driver with apt-get: the browser tests will skip" >&2
  fi
else
  echo "setup: not root or no apt-get: chromium/chromium-driver not installed; the browser tests will skip" >&2
fi
