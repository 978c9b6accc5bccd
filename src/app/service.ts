import type { us_listen_socket } from 'uWebSockets.js';
import { createConversationHub, type ConversationHub } from '../actors/conversation-hub.js';
import type { Options } from '../cli/options.js';
import { parseAllowedOrigins, type AccessPolicy } from '../transport/http/access-policy.js';
import { jsonReply, problemReply } from '../transport/http/reply.js';
import { guardRoutes } from '../transport/http/route-guard.js';
import { createBridgeMetrics, type BridgeMetrics } from '../metrics/bridge-metrics.js';
import { instrumentPort } from '../metrics/instrumented-port.js';
import { buildOpenApiDocument } from '../transport/http/openapi.js';
import type { Route } from '../transport/http/route.js';
import { createHealthRoutes } from '../transport/routes/health-routes.js';
import { createSimRoutes } from '../robot/sim/sim-routes.js';
import { createStaticRoutes } from '../transport/routes/static-routes.js';
import { defaultWebRoot, loadStaticSite } from '../transport/http/static-site.js';
import { createTourRoutes } from '../transport/routes/tour-routes.js';
import { installRoutes } from '../transport/http/router.js';
import { uWS } from '../transport/uws-build.js';
import type { Logger } from '../log/logger.js';
import type { RosPort } from '../ros/ros-port.js';
import type { SimControl } from '../robot/sim/sim-backend.js';
import { SERVICE_VERSION } from '../version.js';
import type { ConversationLimits } from '../protocol/ws-protocol.js';
import { installConversationEndpoint } from '../transport/ws/ws-endpoint.js';

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
  readonly metrics: BridgeMetrics;
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
  maxQueuedAudioBytes: options.queued_audio_bytes,
});

const DRAIN_POLL_MS = 10;

const SHUTTING_DOWN = problemReply('shutting-down', 'the service is stopping; retry on its restart', {
  headers: { 'retry-after': '1' },
});

export const accessPolicy = (options: Options): AccessPolicy => ({
  token: options.auth_token === '' ? undefined : options.auth_token,
  allowedOrigins: parseAllowedOrigins(options.allowed_origins),
});

// Open without the token: probes for orchestration, the API description, and the kiosk pages themselves
// (they hold no data; the kiosk passes the token on to /ws and /tour).
const PUBLIC_PATTERNS = new Set(['/health', '/ready', '/openapi.json']);
const isPublicRoute = (route: Route): boolean =>
  PUBLIC_PATTERNS.has(route.pattern) ||
  ((route.method === 'GET' || route.method === 'HEAD') &&
    !route.pattern.startsWith('/tour') &&
    !route.pattern.startsWith('/sim') &&
    route.pattern !== '/metrics');

/** A bounded label for request metrics: the first path segment when it is one of ours. */
const KNOWN_SEGMENTS = new Set(['tour', 'sim', 'health', 'ready', 'metrics', 'openapi.json', 'admin', 'ws']);
const routeLabel = (url: string): string => {
  // indexOf rather than split: this runs once per request (it showed in the GET profile).
  const end = url.indexOf('/', 1);
  const segment = url.slice(1, end === -1 ? undefined : end);
  if (segment === '') return '/';
  return KNOWN_SEGMENTS.has(segment) ? `/${segment}` : 'other';
};

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
  const policy = accessPolicy(options);
  // The gauges are the hub's, read at scrape time; the hub, which needs the instrumented port, comes next.
  const gaugeSource = {
    read: () => ({ liveSessions: 0, openSubscriptions: 0, inFlightRosCalls: 0, queuedAudioBytes: 0 }),
  };
  const metrics = createBridgeMetrics(() => gaugeSource.read());
  // Counts the calls; the names the errors give are the backend's own (after ROS remapping).
  const rosPort = instrumentPort(port, metrics);
  const hub = createConversationHub({
    port: rosPort,
    limits: conversationLimits(options),
    onStreamError: (source, error) => {
      metrics.rosStreamRestarts.inc({ stream: source });
      log.warn({ err: error, source }, `ROS stream ${source} failed or ended; subscribing again in 1 s`);
    },
  });
  gaugeSource.read = () => hub.readGauges();
  const endpoint = installConversationEndpoint(app, { hub, log, policy, metrics });

  let inFlightRequests = 0;
  const openApiBody = JSON.stringify(
    buildOpenApiDocument({ includeSim: sim !== undefined, version: SERVICE_VERSION }),
  );
  const routes: Route[] = [
    ...createHealthRoutes(port),
    ...createTourRoutes({
      port: rosPort,
      rosTimeoutMs: options.ros_timeout_ms,
      // One gauge for every ROS call, the sessions' and these (tour_bridge_ros_calls_in_flight).
      inFlight: hub.gauges.inFlightRosCalls,
    }),
    {
      method: 'GET',
      pattern: '/openapi.json',
      handle: () => ({ ...jsonReply(200, null), body: openApiBody }),
    },
    {
      method: 'GET',
      pattern: '/metrics',
      handle: async () => ({
        status: 200,
        headers: { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' },
        body: await metrics.registry.metrics(),
      }),
    },
    ...(sim === undefined ? [] : createSimRoutes(sim)),
    ...createStaticRoutes(site),
  ];
  // Set when a graceful stop begins: keep-alive connections may still send requests, which start nothing.
  let stopBegun = false;
  installRoutes(app, guardRoutes(routes, policy, isPublicRoute), {
    maxBodyBytes: options.max_body_bytes,
    refuse: () => (stopBegun ? SHUTTING_DOWN : undefined),
    log,
    onStarted: () => {
      inFlightRequests += 1;
    },
    onAnswered: (head, status) => {
      inFlightRequests -= 1;
      metrics.countHttpRequest(head.method, routeLabel(head.url), status);
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
    stopBegun = true;
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
    metrics,
    stop: (drainMs = Math.min(2_000, options.shutdown_timeout_ms)) => (stopping ??= stop(drainMs)),
  };
};
