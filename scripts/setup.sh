#!/usr/bin/env bash
# Sets up .venv with everything the app needs; --dev adds the test tools, Chromium, axe-core (tests/axe) and
# llama-server (built once per machine into ~/.cache/assisted-decoding-arena; 12-30 minutes on two cores, instant
# once cached).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -r requirements.txt
.venv/bin/python -m pip install -q --no-deps -r requirements-nodeps.txt
if [ "${1:-}" = "--dev" ]; then
  .venv/bin/python -m pip install -q -r requirements-dev.txt
  # Chromium for the browser tests, and a CJK font so it draws the Korean page's Hangul (not empty boxes)
  if ! command -v chromium >/dev/null 2>&1 || ! fc-list 2>/dev/null | grep -qi "noto sans cjk"; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk >/dev/null
    else
      echo "note: install Chromium and a CJK font (Debian packages 'chromium' and 'fonts-noto-cjk') for the browser tests" >&2
    fi
  fi
  # axe-core, pinned in tests/axe/package-lock.json, for the contrast test (tests/ui/test_contrast_browser.py)
  if ! command -v npm >/dev/null 2>&1 && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null
  fi
  if command -v npm >/dev/null 2>&1; then
    npm ci --prefix tests/axe --no-audit --no-fund --loglevel=error
  else
    echo "note: install Node.js and npm for the contrast test (it reads tests/axe/node_modules/axe-core)" >&2
  fi
  PYTHON=.venv/bin/python bash scripts/build_llama_server.sh >/dev/null
fi
