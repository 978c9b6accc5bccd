#!/bin/sh
# The Node.js flags and environment the bridge runs with, named here and nowhere else. The image's
# entrypoint, `npm start` and the footprint and memory checks of `npm run test:ros` start the bridge
# through this script; test/repo/node-runtime.test.ts fails when one of them starts it another way or
# sets one of these elsewhere.
#   sh docker/node-runtime.sh [more Node.js flags...] dist/src/server.js [bridge options...]
# Runs the `node` first on PATH.
#
# --expose-gc: the bridge runs one full GC once /play_audio goes quiet after a burst, so its RSS returns
#   near idle (src/app/quiet-gc.ts; docs/operations.md, "Memory after a burst").
# --no-node-snapshot: Node.js bootstraps from its built-in code instead of deserialising its start-up
#   snapshot, which reads all of the snapshot's pages of the binary into the process: idle RSS on a real
#   graph 83.4-83.9 -> 79.9-80.4 MiB on Node.js 24, 75.1-75.6 -> 73.1-73.5 on 20, the same time to listen
#   (docs/performance.md, "Memory on a real graph").
# --no-maglev: Node.js 24's V8 compiles hot code with Maglev before TurboFan; Node.js 20's has Maglev off
#   (its default). Without it the bridge's idle RSS on a real graph is 1.4-1.9 MiB lower on Node.js 24
#   (79.7-80.0 -> 78.0-78.5 MiB, most of it Maglev's code pages of the binary never read in), chat and
#   fan-out within the bench's spread (docs/performance.md, "Memory on a real graph").
# MALLOC_MMAP_THRESHOLD_=131072: glibc's allocator raises its mmap threshold on every free of a large
#   block, so a /play_audio burst's buffers stayed resident; a fixed threshold returns blocks of 128 KiB
#   and more to the system when freed (peak RSS on a real graph 103 -> 91 MiB, docs/performance.md,
#   "Memory on a real graph"). A value already in the environment wins.
set -eu
MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_:-131072}"
export MALLOC_MMAP_THRESHOLD_
exec node --expose-gc --no-node-snapshot --no-maglev "$@"
