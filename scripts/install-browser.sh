#!/bin/sh
# Installs what the browser tests drive: Debian's own headless-capable `chromium` (not a browser
# downloaded by a test library). Idempotent: does nothing when /usr/bin/chromium is already there.
# Needs root (or sudo) on a Debian-based system; CI runs it before `npm run test:browser`.
set -eu

CHROMIUM=/usr/bin/chromium

if [ -x "$CHROMIUM" ]; then
  echo "chromium is installed: $("$CHROMIUM" --version 2>/dev/null || echo "$CHROMIUM")"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-browser: apt-get is not available; install Chromium so that $CHROMIUM exists." >&2
  exit 1
fi

SUDO=''
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO='sudo'; else
    echo "install-browser: run as root (or install sudo) to install chromium." >&2
    exit 1
  fi
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends chromium fonts-dejavu-core

"$CHROMIUM" --version
