#!/bin/sh
# Makes sure the TLS browser test (test/browser/tls-proxy.test.ts) has its tools: Debian's nginx (the
# reverse proxy under test), certutil from libnss3-tools (puts the test's CA into the NSS database that
# Chromium reads) and the openssl CLI (makes the certificates). On a Debian machine where we are root
# they are installed with apt-get, like Chromium by ensure-chromium.sh; anywhere else this fails with a
# message saying what to install. Nothing is configured or started here: the test runs its own nginx
# with its own configuration, prefix and temporary files, and never touches /etc/nginx.
set -eu

NGINX="${TOUR_BRIDGE_NGINX:-/usr/sbin/nginx}"

missing_packages() {
  packages=""
  [ -x "$NGINX" ] || packages="$packages nginx"
  command -v certutil >/dev/null 2>&1 || packages="$packages libnss3-tools"
  command -v openssl >/dev/null 2>&1 || packages="$packages openssl"
  echo "$packages"
}

missing="$(missing_packages)"
if [ -z "$missing" ]; then
  exit 0
fi

if [ "$(id -u)" = "0" ] && [ -r /etc/debian_version ] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure-tls-tools: installing Debian's$missing (apt-get)" >&2
  # shellcheck disable=SC2086 # the package names are meant to be split
  sh "$(dirname "$0")/../support/apt-install.sh" ensure-tls-tools $missing
  missing="$(missing_packages)"
  if [ -z "$missing" ]; then
    exit 0
  fi
  echo "ensure-tls-tools: apt-get finished but$missing is still missing" >&2
  exit 1
fi

cat >&2 <<MSG
ensure-tls-tools: missing$missing.
The TLS test (test/browser/tls-proxy.test.ts) runs nginx as the reverse proxy in front of the service,
with a certificate it makes with openssl and a CA it adds to Chromium's NSS database with certutil.
Install them, e.g.
  Debian/Ubuntu (as root):  apt-get update && apt-get install -y nginx libnss3-tools openssl
or point TOUR_BRIDGE_NGINX at an existing nginx binary, then run the tests again.
This script installs them by itself only when run as root on Debian.
MSG
exit 1
