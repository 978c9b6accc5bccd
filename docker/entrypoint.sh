#!/usr/bin/env bash
# Entry point of the tour-bridge image. Sources ROS 2 and the tour_guide_interfaces workspace, then
#   - without arguments, or with arguments starting with "-": runs the bridge,
#       sh docker/node-runtime.sh dist/src/server.js --host 0.0.0.0 --port 7000 --log_level info [arguments...]
#     (docker/node-runtime.sh: the image's Node.js flags and environment, named there only; later flags
#     win, so `docker run tour-bridge --log_level debug` works; the three defaults can also be set with
#     TOUR_BRIDGE_HOST, TOUR_BRIDGE_PORT and TOUR_BRIDGE_LOG_LEVEL);
#   - otherwise: runs the given command in that environment, e.g.
#       ros2 run rmw_zenoh_cpp rmw_zenohd
#       node dist/src/robot/nodes/main.js tour-store
#       npm run test:ros
set -eo pipefail

# The setup scripts read unset variables, so -u comes after them.
ros_setup="${TOUR_BRIDGE_ROS_SETUP:-/opt/ros/${ROS_DISTRO:-jazzy}/setup.bash}"
workspace_setup="${TOUR_BRIDGE_WS_SETUP:-/opt/tour_bridge_ws/install/setup.bash}"
for setup in "$ros_setup" "$workspace_setup"; do
  if [ ! -f "$setup" ]; then
    echo "tour-bridge entrypoint: $setup not found; the image is incomplete" >&2
    exit 1
  fi
  # shellcheck disable=SC1090
  source "$setup"
done
set -u

if [ "$#" -eq 0 ] || [ "${1#-}" != "$1" ]; then
  app="${TOUR_BRIDGE_APP_DIR:-/app}"
  exec sh "$app/docker/node-runtime.sh" "$app/dist/src/server.js" \
    --host "${TOUR_BRIDGE_HOST:-0.0.0.0}" \
    --port "${TOUR_BRIDGE_PORT:-7000}" \
    --log_level "${TOUR_BRIDGE_LOG_LEVEL:-info}" \
    "$@"
fi
exec "$@"
