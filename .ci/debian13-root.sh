#!/usr/bin/env bash
# Run 2 of .ci/run: the suite (`npm ci`, test:node and test:browser, via .ci/run with TOUR_BRIDGE_CI_STAGE=suite) on
# Node.js 24 in a Debian 13 (trixie) root, because the uWebSockets.js build for Node.js 24 needs
# glibc >= 2.38 and the CI machine is Debian 12 (2.36) without Docker. Needs root (chroot, mount).
#   usage: .ci/debian13-root.sh CACHE_DIR NODE24_BINARY HOST_NODE_BINARY [COMMAND...]
# COMMAND (run in /work/tour-bridge in the root; default: the suite) helps to look into a failure, e.g.
#   c=/var/cache/tour-bridge-ci; .ci/debian13-root.sh $c $c/node-v24.21.0/bin/node $c/node-v20.20.2/bin/node bash
# The suite runs on Node.js 24 with the host's npm; the host's release (Node.js 20) is the other Node.js
# that test/e2e/cli-process.test.ts starts the service with (TOUR_BRIDGE_OTHER_NODE).
# The root is made once with debootstrap in CACHE_DIR/trixie and reused; the project, Node.js, npm and the
# network settings are copied into it afresh on every run.
set -euo pipefail
CACHE="$(cd "$1" && pwd -P)"
NODE_BIN="$(readlink -f "$2")"
OTHER_NODE_BIN="$(readlink -f "$3")"
shift 3
if [ $# = 0 ]; then set -- bash .ci/run; fi
SRC="$(cd "$(dirname "$0")/.." && pwd)"
ROOT="$CACHE/trixie"

# One CI job at a time uses the root. Everything else runs in a private mount namespace: no mount made
# here can propagate to the host (a tmpfs on the root's /dev/shm would cover the host's /dev/shm where
# mounts are shared), and all of them go with the namespace even if this script is killed.
if [ "${TOUR_BRIDGE_CI_UNSHARED:-}" != 1 ]; then
  exec 9>"$CACHE/lock"
  if ! flock -w 1800 9; then
    echo "ci: another CI job has held $CACHE/lock for 30 min" >&2
    exit 1
  fi
  TOUR_BRIDGE_CI_UNSHARED=1 exec unshare --mount --propagation private \
    bash "$0" "$CACHE" "$NODE_BIN" "$OTHER_NODE_BIN" "$@"
fi

# The root is built under a temporary name and renamed when debootstrap has finished, so an interrupted
# build is never reused. --one-file-system: never delete through a mount left in a broken build.
start=$SECONDS
if [ -d "$ROOT" ]; then
  made=reused
else
  if ! command -v debootstrap >/dev/null 2>&1; then
    apt-get -o DPkg::Lock::Timeout=300 -o Acquire::Retries=3 update -qq
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 -o Acquire::Retries=3 install -y -qq debootstrap
  fi
  rm -rf --one-file-system "$ROOT.tmp"
  # Its step-by-step output goes to a log next to the root; the CI log gets the end of it on failure.
  if ! timeout 1200 debootstrap --variant=minbase trixie "$ROOT.tmp" http://deb.debian.org/debian \
    >"$CACHE/debootstrap.log" 2>&1; then
    tail -n 40 "$CACHE/debootstrap.log" >&2
    echo "ci: debootstrap failed; the whole log: $CACHE/debootstrap.log" >&2
    exit 1
  fi
  mv "$ROOT.tmp" "$ROOT"
  made=built
fi
echo "ci: Debian 13 root $ROOT $made in $((SECONDS - start)) s"

# The network as on the host: the registry is reached through a proxy that only the host's CA bundle
# trusts (copied on every run: a package that installs ca-certificates in the root rewrites the file).
mkdir -p "$ROOT/etc/ssl/certs"
cp /etc/ssl/certs/ca-certificates.crt "$ROOT/etc/ssl/certs/ca-certificates.crt"
rm -f "$ROOT/etc/resolv.conf"
cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf"
# debootstrap writes no /etc/hosts, and Chromium and nginx look up "localhost".
if [ ! -s "$ROOT/etc/hosts" ]; then
  printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' >"$ROOT/etc/hosts"
fi

# Node.js 24 with the host's npm (npm is plain JavaScript), laid out like a Node.js release; the other.
rm -rf --one-file-system "$ROOT/opt/node24" "$ROOT/opt/host-node"
mkdir -p "$ROOT/opt/host-node/bin"
cp "$OTHER_NODE_BIN" "$ROOT/opt/host-node/bin/node"
mkdir -p "$ROOT/opt/node24/bin" "$ROOT/opt/node24/lib/node_modules"
cp "$NODE_BIN" "$ROOT/opt/node24/bin/node"
NPM_DIR="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")"
cp -a "$NPM_DIR" "$ROOT/opt/node24/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$ROOT/opt/node24/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$ROOT/opt/node24/bin/npx"

# The project as git sees it (tracked and untracked, not ignored: no node_modules, no dist), afresh.
rm -rf --one-file-system "$ROOT/work/tour-bridge" "$ROOT/tmp"
mkdir -p "$ROOT/work/tour-bridge"
mkdir -m 1777 "$ROOT/tmp"
# --ignore-failed-read: a file deleted in a working copy but still in git's index is left out.
(cd "$SRC" && git ls-files -z -co --exclude-standard | tar --null -T - --ignore-failed-read -cf -) |
  tar -xf - -C "$ROOT/work/tour-bridge"

mounted=()
cleanup() {
  local status=$? i pid
  # Whatever the suite left running in the root (an nginx, a browser) would keep the mounts busy.
  for pid in /proc/[0-9]*; do
    if [ "$(readlink "$pid/root" 2>/dev/null)" = "$ROOT" ]; then
      kill -KILL "${pid#/proc/}" 2>/dev/null || true
    fi
  done
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount "${mounted[i]}" || umount -l "${mounted[i]}" || echo "ci: could not unmount ${mounted[i]}" >&2
  done
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mnt() {
  mount "$@"
  mounted+=("${*: -1}")
}
mnt -t proc proc "$ROOT/proc"
mnt --bind /sys "$ROOT/sys"
mnt --bind /dev "$ROOT/dev"
mnt --bind /dev/pts "$ROOT/dev/pts"
# Chromium keeps its shared memory in /dev/shm: a tmpfs of the root's own.
mnt -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$ROOT/dev/shm"

# A clean environment: what the suite needs, and the host's proxy and registry settings if CI has any.
vars=(
  HOME=/root LANG=C.UTF-8 TOUR_BRIDGE_CI_STAGE=suite TOUR_BRIDGE_CI_RUNTIME_ONLY=1
  PATH=/opt/node24/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
  NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt npm_config_cafile=/etc/ssl/certs/ca-certificates.crt
  npm_config_update_notifier=false
  TOUR_BRIDGE_OTHER_NODE=/opt/host-node/bin/node TOUR_BRIDGE_REQUIRE_OTHER_NODE=1
)
for name in CI http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY npm_config_registry; do
  if [ -n "${!name:-}" ]; then vars+=("$name=${!name}"); fi
done
env -i "${vars[@]}" chroot "$ROOT" bash -c 'cd /work/tour-bridge && exec "$@"' bash "$@"
