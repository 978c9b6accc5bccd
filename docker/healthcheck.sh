#!/usr/bin/env bash
# The container's health probe (the Dockerfile's HEALTHCHECK): GET /health on this container's bridge,
# on TOUR_BRIDGE_PORT (default 7000; set the port through that variable rather than --port, or the probe
# looks in the wrong place). Exits 0 when it answers 200, 1 otherwise, with one line saying why.
# bash and its /dev/tcp rather than node: a node process per probe cost about 0.2 s of CPU (node starting
# and loading fetch), every 10 s, ten times what the idle bridge itself spends (docs/performance.md).
set -u

port="${TOUR_BRIDGE_PORT-7000}"
if ! [[ "$port" =~ ^[0-9]{1,5}$ ]] || ((10#$port < 1 || 10#$port > 65535)); then
  echo "healthcheck: TOUR_BRIDGE_PORT must be a port from 1 to 65535, got '${port:0:20}'" >&2
  exit 1
fi
port=$((10#$port))
url="http://127.0.0.1:$port/health"

# bash's own message for a refused connection would be two lines; this says it in one.
if ! { exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null; then
  echo "healthcheck: $url: nothing accepts connections there" >&2
  exit 1
fi
printf 'GET /health HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nConnection: close\r\n\r\n' "$port" >&3
# Docker's own --timeout is longer; this bounds the wait for the status line.
if ! IFS= read -r -t 3 status <&3; then
  echo "healthcheck: $url: no answer within 3 s" >&2
  exit 1
fi
status="${status%$'\r'}"
if [[ "$status" != "HTTP/1.1 200 "* ]]; then
  echo "healthcheck: $url answered '${status:0:60}'" >&2
  exit 1
fi
