#!/bin/sh
# Installs Debian packages for the tests (as root on Debian): `apt-install.sh WHO PACKAGE...`.
# A CI machine's apt can fail for a while (a mirror mid-sync answers with a hash mismatch or a 404, exit
# 100), and an install killed half way leaves dpkg unconfigured, which fails every later install. So it
# first finishes what dpkg left, then tries update + install up to three times, 20 s apart, and says which
# attempt failed and how. WHO names the caller in those lines.
set -u

who="$1"
shift
export DEBIAN_FRONTEND=noninteractive
# Waits (bounded) for another apt/dpkg run to release its lock instead of failing at once.
apt() { apt-get -o DPkg::Lock::Timeout=300 -o Acquire::Retries=3 "$@"; }

dpkg --configure -a >/dev/null 2>&1 || true
attempt=1
while :; do
  status=0
  apt update -qq && apt install -y -qq --no-install-recommends "$@" >/dev/null || status=$?
  if [ "$status" = 0 ]; then
    exit 0
  fi
  echo "$who: apt-get install $* failed (exit $status, attempt $attempt of 3)" >&2
  if [ "$attempt" = 3 ]; then
    exit "$status"
  fi
  attempt=$((attempt + 1))
  sleep 20
  apt install -y -qq -f >/dev/null 2>&1 || true
done
