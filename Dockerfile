# Placeholder: the production image (ROS 2 Jazzy + rmw_zenoh + rclnodejs) is built in the deployment issue.
# Until then, run the service with `npm ci && npm run demo` (simulated robot) — see README.md.
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build
EXPOSE 7000
ENTRYPOINT ["node", "dist/src/server.js", "--host", "0.0.0.0", "--port", "7000", "--log_level", "info"]
