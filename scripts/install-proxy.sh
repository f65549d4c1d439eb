#!/bin/sh
# Installs the reverse proxy that `npm run cluster` and the cluster test put in front of the instances:
# Debian's own HAProxy. HAProxy rather than nginx because the open-source nginx has no active health checks
# (only passive ones, after real requests failed), and the cluster's rotation is driven by the instances'
# readiness endpoint: HAProxy polls it (`option httpchk`), takes an instance out as soon as it says 503
# (draining), retries a request whose connection failed on another instance (`retry-on`), and its runtime
# API shows each server's state. Idempotent: does nothing when haproxy is already on the PATH.
# Needs root (or sudo) on a Debian-based system; CI runs it before `npm test`.
set -eu

if command -v haproxy >/dev/null 2>&1; then
  echo "haproxy is installed: $(haproxy -v 2>/dev/null | head -n 1)"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-proxy: apt-get is not available; install HAProxy 2.4 or newer so that \`haproxy\` is on the PATH." >&2
  exit 1
fi

SUDO=''
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO='sudo'; else
    echo "install-proxy: run as root (or install sudo) to install haproxy." >&2
    exit 1
  fi
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends haproxy
# The package enables a system service with its own configuration; the cluster runs its own haproxy
# process with a generated configuration and needs no service listening on port 80.
if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
  $SUDO systemctl disable --now haproxy >/dev/null 2>&1 || true
fi

haproxy -v | head -n 1
