# syntax=docker/dockerfile:1
#
# tour-bridge for a robot: ROS 2 Jazzy on Ubuntu Noble, rmw_zenoh, rclnodejs, the bridge and the
# reference nodes. One image serves every role of compose.yaml (router, bridge, tour store, demo chat).
#   docker build -t tour-bridge .
#   docker compose up
# See README.md, "Deploying on a robot". test/unit/deploy-files.test.ts checks this file in `npm test`.

ARG ROS_DISTRO=jazzy
# Node.js 24 LTS ('Krypton', security fixes until April 2028; Node.js 20 reached its end of life on
# 2026-04-30); satisfies package.json "engines". The one place the Node.js 24 release is named:
# .ci/run reads this line and runs the whole suite on it in a Debian 13 root, so CI tests what the
# image runs. uWebSockets.js is named once too, in package.json and package-lock.json.
ARG NODE_VERSION=24.21.0

# Node.js comes from the official Docker image of exactly that release. That image is built from the
# nodejs.org release tarball after verifying it against SHASUMS256.txt signed by the Node.js release
# keys, so copying its files gives the same pinned, verified build without a second download and key
# handling here. The binary needs glibc 2.28 or later; Noble has 2.39. Pin the digest as well
# (node:${NODE_VERSION}-bookworm-slim@sha256:...) when builds must be reproducible byte for byte.
FROM node:${NODE_VERSION}-bookworm-slim AS node

# ---------------------------------------------------------------------------------------------------
# Build: the interfaces with colcon, npm ci, rclnodejs's binding and message classes, the TypeScript.
FROM ros:${ROS_DISTRO}-ros-base-noble AS build
ARG ROS_DISTRO
SHELL ["/bin/bash", "-o", "pipefail", "-c"]

COPY --from=node /usr/local/bin/node /usr/local/bin/node
COPY --from=node /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
    && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
    && node --version && npm --version

COPY ros/tour_guide_interfaces /opt/tour_bridge_ws/src/tour_guide_interfaces
RUN source "/opt/ros/${ROS_DISTRO}/setup.bash" \
    && cd /opt/tour_bridge_ws \
    && colcon build --merge-install --event-handlers console_direct+ \
    && rm -rf build log

WORKDIR /app
COPY package.json package-lock.json .npmrc ./
COPY docker/check-uws-native.mjs ./docker/check-uws-native.mjs
# uWebSockets.js: npm ci installs the two builds of package.json, pinned by their integrity in
# package-lock.json. Here (Node.js 24, Noble's glibc 2.39) the official build, module uWebSockets.js,
# is the one that serves, and the build stops unless it loads natively. The Node.js 20 build
# (uWebSockets.js-node20) has no Node.js 24 binary, so it goes, with the other systems' binaries:
# were the official build ever to fail to load in the image, the bridge would refuse to start (exit 2,
# one line) rather than serve on anything else, which is what should happen.
RUN npm ci --no-audit --no-fund \
    && rm -rf node_modules/uWebSockets.js-node20 \
       node_modules/uWebSockets.js/uws_darwin_* node_modules/uWebSockets.js/uws_win32_* \
    && node docker/check-uws-native.mjs

# .npmrc turns install scripts off; here ROS 2 and our interfaces are sourced, so rclnodejs's run:
# its install script takes the prebuilt jazzy-noble binary (nothing is compiled), its postinstall
# generates JavaScript classes and types/interfaces.d.ts for every package on AMENT_PREFIX_PATH,
# tour_guide_interfaces included. The generator logs failures instead of failing, hence the checks;
# importing rclnodejs once also copies the binary to build/Release, so nothing is written at run time.
RUN source "/opt/ros/${ROS_DISTRO}/setup.bash" \
    && source /opt/tour_bridge_ws/install/setup.bash \
    && npm rebuild rclnodejs --ignore-scripts=false \
    && test -d node_modules/rclnodejs/generated/tour_guide_interfaces \
    && grep -q "namespace tour_guide_interfaces " node_modules/rclnodejs/types/interfaces.d.ts \
    && node --input-type=module -e "await import('rclnodejs'); process.exit(0)" \
    && test -f node_modules/rclnodejs/build/Release/rclnodejs.node

COPY tsconfig.json tsconfig.build.json tsconfig.ros.json ./
COPY types ./types
COPY src ./src
COPY web ./web
# tsconfig.ros.json leaves out types/rclnodejs-interfaces.d.ts (the stand-in for machines without
# ROS): the code is type-checked against the declarations rclnodejs just generated, then emitted.
RUN npx tsc -p tsconfig.ros.json && npm run build:web --silent
# Sources of the acceptance test, `npm run test:ros` (run with tsx, a dev dependency kept on purpose).
COPY test ./test

# ---------------------------------------------------------------------------------------------------
# Runtime: ROS 2 core (no compilers), rmw_zenoh, Node.js, the built app; runs as an unprivileged user.
FROM ros:${ROS_DISTRO}-ros-core-noble AS runtime
ARG ROS_DISTRO
SHELL ["/bin/bash", "-o", "pipefail", "-c"]

RUN apt-get update \
    && apt-get install -y --no-install-recommends "ros-${ROS_DISTRO}-rmw-zenoh-cpp" \
    && rm -rf /var/lib/apt/lists/*

COPY --from=node /usr/local/bin/node /usr/local/bin/node
COPY --from=node /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
    && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx

COPY --from=build /opt/tour_bridge_ws/install /opt/tour_bridge_ws/install
COPY --from=build /app /app
# --chmod: the script stays executable whatever mode the checkout gave it.
COPY --chmod=0755 docker/entrypoint.sh /usr/local/bin/tour-bridge-entrypoint
COPY --chmod=0755 docker/node-runtime.sh /app/docker/node-runtime.sh
COPY --chmod=0755 docker/healthcheck.sh /usr/local/bin/tour-bridge-healthcheck

# A fixed uid, so a bind-mounted store directory can be given to it (chown 10001).
RUN groupadd --system --gid 10001 tourbridge \
    && useradd --system --uid 10001 --gid tourbridge --create-home --home-dir /home/tourbridge \
       --shell /usr/sbin/nologin tourbridge \
    && mkdir -p /var/lib/tour-bridge \
    && chown tourbridge:tourbridge /var/lib/tour-bridge

# The container setup of the spec: rmw_zenoh, no automatic discovery, wait for the router as long as
# it takes, and a client session to the router on port 7447 of the container's host. The bridge keeps
# the microphone's event log in /var/lib/tour-bridge (microphone.log), so a restart does not re-enable it.
ENV RMW_IMPLEMENTATION=rmw_zenoh_cpp \
    ROS_AUTOMATIC_DISCOVERY_RANGE=OFF \
    ZENOH_ROUTER_CHECK_ATTEMPTS=0 \
    ZENOH_CONFIG_OVERRIDE='mode="client";connect/endpoints=["tcp/host.docker.internal:7447"]' \
    TOUR_STORE_FILE=/var/lib/tour-bridge/tours.json \
    TOUR_BRIDGE_STATE_DIR=/var/lib/tour-bridge
# The bridge's Node.js flags and environment (the exposed GC, glibc's allocator) are named in one place,
# docker/node-runtime.sh, which the entrypoint runs the bridge through, as `npm start` and the footprint
# check of `npm run test:ros` do: none of them is set here (test/repo/node-runtime.test.ts).

WORKDIR /app
USER tourbridge
# The image that ships loads the official uWebSockets.js natively as the user that runs it (else the
# build fails).
RUN node docker/check-uws-native.mjs
EXPOSE 7000
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 \
    CMD ["/usr/local/bin/tour-bridge-healthcheck"]
ENTRYPOINT ["/usr/local/bin/tour-bridge-entrypoint"]
