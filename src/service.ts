import type { us_listen_socket } from 'uWebSockets.js';
import type { Options } from './cli/options.js';
import type { Logger } from './log/logger.js';
import { jsonReply } from './http/http-reply.js';
import { buildOpenApiDocument } from './http/openapi.js';
import type { Route } from './http/route.js';
import { createHealthRoutes } from './http/routes/health-routes.js';
import { createSimRoutes } from './http/routes/sim-routes.js';
import { createTourRoutes } from './http/routes/tour-routes.js';
import { installRoutes } from './http/uws-router.js';
import { uWS } from './http/uws-build.js';
import type { RosPort } from './ros/ros-port.js';
import type { SimControl } from './ros/sim/sim-backend.js';
import { SERVICE_VERSION } from './version.js';

export interface ServiceDependencies {
  readonly options: Options;
  readonly log: Logger;
  readonly port: RosPort;
  /** Present only with the sim backend: enables the /sim/* routes. */
  readonly sim?: SimControl;
}

export interface RunningService {
  /** The TCP port actually bound (differs from options.port when that was 0). */
  readonly listeningPort: number;
  /** Stops accepting, closes every connection. Idempotent. Does not close the ROS port. */
  stop(): Promise<void>;
}

export class ListenError extends Error {
  override readonly name = 'ListenError';
}

/** Builds the HTTP (and WebSocket) server over a ROS port and starts listening. */
export const startService = async ({
  options,
  log,
  port,
  sim,
}: ServiceDependencies): Promise<RunningService> => {
  const app = uWS.App();
  const openApiBody = JSON.stringify(
    buildOpenApiDocument({ includeSim: sim !== undefined, version: SERVICE_VERSION }),
  );
  const routes: Route[] = [
    ...createHealthRoutes(port),
    ...createTourRoutes({ port, rosTimeoutMs: options.ros_timeout_ms }),
    {
      method: 'GET',
      pattern: '/openapi.json',
      handle: () => ({ ...jsonReply(200, null), body: openApiBody }),
    },
    ...(sim === undefined ? [] : createSimRoutes(sim)),
  ];
  installRoutes(app, routes, { maxBodyBytes: options.max_body_bytes, log });

  const listenSocket = await new Promise<us_listen_socket>((resolve, reject) => {
    app.listen(options.host, options.port, (socket) => {
      if (socket === false) {
        reject(
          new ListenError(
            `cannot listen on ${options.host}:${options.port} (address in use or not available)`,
          ),
        );
      } else {
        resolve(socket);
      }
    });
  });
  const listeningPort = uWS.us_socket_local_port(listenSocket);

  let stopped = false;
  return {
    listeningPort,
    stop: () => {
      if (!stopped) {
        stopped = true;
        uWS.us_listen_socket_close(listenSocket);
        // App.close() (closes every open connection) exists in this build but is missing from its typings.
        (app as typeof app & { close?: () => void }).close?.();
      }
      return Promise.resolve();
    },
  };
};
