import type { us_listen_socket } from 'uWebSockets.js';
import { createConversationHub, type ConversationHub } from './actors/conversation-hub.js';
import type { Options } from './cli/options.js';
import { jsonReply } from './http/http-reply.js';
import { buildOpenApiDocument } from './http/openapi.js';
import type { Route } from './http/route.js';
import { createHealthRoutes } from './http/routes/health-routes.js';
import { createSimRoutes } from './http/routes/sim-routes.js';
import { createStaticRoutes } from './http/routes/static-routes.js';
import { defaultWebRoot, loadStaticSite } from './http/static-site.js';
import { createTourRoutes } from './http/routes/tour-routes.js';
import { installRoutes } from './http/uws-router.js';
import { uWS } from './http/uws-build.js';
import type { Logger } from './log/logger.js';
import type { RosPort } from './ros/ros-port.js';
import type { SimControl } from './ros/sim/sim-backend.js';
import { SERVICE_VERSION } from './version.js';
import type { ConversationLimits } from './ws/protocol.js';
import { installConversationEndpoint } from './ws/ws-endpoint.js';

export interface ServiceDependencies {
  readonly options: Options;
  readonly log: Logger;
  readonly port: RosPort;
  /** Present only with the sim backend: enables the /sim/* routes. */
  readonly sim?: SimControl;
  /** Directory of the built kiosk pages (`npm run build` writes dist/web); read once at start. */
  readonly webRoot?: string;
}

export interface RunningService {
  /** The TCP port actually bound (differs from options.port when that was 0). */
  readonly listeningPort: number;
  /** The conversation endpoint's shared state (gauges, microphone), for metrics and tests. */
  readonly hub: ConversationHub;
  /**
   * Graceful stop: no new connections, sessions closed with 1001 (their ROS calls abandoned), in-flight
   * HTTP requests given until `drainMs` to finish, then every connection closed. Idempotent. Does not
   * close the ROS port, which belongs to the caller.
   */
  stop(drainMs?: number): Promise<void>;
}

export class ListenError extends Error {
  override readonly name = 'ListenError';
}

export const conversationLimits = (options: Options): ConversationLimits => ({
  maxTextFrameBytes: options.max_text_frame_bytes,
  maxBinaryFrameBytes: options.max_audio_frame_bytes,
  maxWaitingCalls: options.chat_queue,
  chatTimeoutMs: options.chat_timeout_ms,
  clearHistoryTimeoutMs: options.ros_timeout_ms,
  maxSessions: options.max_sessions,
  maxSendBufferBytes: options.send_buffer_bytes,
});

const DRAIN_POLL_MS = 10;

/** Builds the HTTP and WebSocket server over a ROS port and starts listening. */
export const startService = async ({
  options,
  log,
  port,
  sim,
  webRoot = defaultWebRoot(),
}: ServiceDependencies): Promise<RunningService> => {
  const site = await loadStaticSite(webRoot);
  if (site === undefined) {
    log.warn({ webRoot }, 'no kiosk pages to serve (run `npm run build`); the API works without them');
  }
  const app = uWS.App();
  const hub = createConversationHub({
    port,
    limits: conversationLimits(options),
    onStreamError: (source, error) => {
      log.warn({ err: error, source }, `ROS stream ${source} failed; subscribing again`);
    },
  });
  const endpoint = installConversationEndpoint(app, { hub, log });

  let inFlightRequests = 0;
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
    ...createStaticRoutes(site),
  ];
  installRoutes(app, routes, {
    maxBodyBytes: options.max_body_bytes,
    log,
    onStarted: () => {
      inFlightRequests += 1;
    },
    onAnswered: () => {
      inFlightRequests -= 1;
    },
  });

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

  let stopping: Promise<void> | undefined;
  const stop = async (drainMs: number) => {
    uWS.us_listen_socket_close(listenSocket);
    hub.close();
    const deadline = Date.now() + drainMs;
    // Bounded by the deadline: close frames get out and answers in progress are written.
    while ((endpoint.openSockets() > 0 || inFlightRequests > 0) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
    }
    if (endpoint.openSockets() > 0 || inFlightRequests > 0) {
      log.warn(
        { openSockets: endpoint.openSockets(), inFlightRequests },
        'closing connections that did not finish in time',
      );
    }
    // App.close() (closes every remaining connection) exists in this build but is missing from its typings.
    (app as typeof app & { close?: () => void }).close?.();
  };
  return {
    listeningPort,
    hub,
    stop: (drainMs = Math.min(2_000, options.shutdown_timeout_ms)) => (stopping ??= stop(drainMs)),
  };
};
