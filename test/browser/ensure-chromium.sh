#!/bin/sh
# Makes sure the browser tests have a Chromium: Debian's `chromium` package at /usr/bin/chromium, driven by
# playwright-core (which downloads no browser of its own). On a fresh Debian machine where we are root it is
# installed with apt-get; anywhere else this fails with a message saying what to install.
set -eu

CHROMIUM="${TOUR_BRIDGE_CHROMIUM:-/usr/bin/chromium}"

if [ -x "$CHROMIUM" ]; then
  exit 0
fi

if [ "$(id -u)" = "0" ] && [ -r /etc/debian_version ] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: $CHROMIUM is missing; installing Debian's chromium package (apt-get)" >&2
  sh "$(dirname "$0")/../support/apt-install.sh" ensure-chromium chromium
  if [ -x "$CHROMIUM" ]; then
    exit 0
  fi
  echo "ensure-chromium: apt-get finished but $CHROMIUM is still missing" >&2
  exit 1
fi

cat >&2 <<MSG
ensure-chromium: no Chromium at $CHROMIUM.
The browser tests (test/browser) drive a system Chromium with playwright-core. Install one, e.g.
  Debian/Ubuntu (as root):  apt-get update && apt-get install -y chromium
or point TOUR_BRIDGE_CHROMIUM at an existing Chromium/Chrome binary, then run the tests again.
This script installs it by itself only when run as root on Debian.
MSG
exit 1
