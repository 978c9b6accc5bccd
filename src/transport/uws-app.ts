import type { us_listen_socket } from 'uWebSockets.js';
import type { ConversationHub } from '../actors/conversation-hub.js';
import type { Logger } from '../log/logger.js';
import type { BridgeMetrics } from '../metrics/bridge-metrics.js';
import type { RosCalls } from '../ros/port/ros-calls.js';
import type { AccessPolicy } from './http/access-policy.js';
import type { AnswerDeliveries } from './http/answer-delivery.js';
import { problemReply } from './http/reply.js';
import type { AnyRoute } from './http/route.js';
import { installRoutes } from './http/router.js';
import { uWS } from './uws-build.js';
import { installConversationEndpoint } from './ws/ws-endpoint.js';

/**
 * The uWebSockets.js app: the route table and `/ws` on one listening socket, and its graceful stop.
 */

export interface UwsAppSettings {
  readonly host: string;
  readonly port: number;
  readonly routes: readonly AnyRoute[];
  readonly hub: ConversationHub;
  readonly calls: Pick<RosCalls, 'call'>;
  readonly metrics: BridgeMetrics;
  readonly policy: AccessPolicy;
  readonly maxBodyBytes: number;
  readonly log: Logger;
}

export interface RunningUwsApp {
  /** The TCP port actually bound (differs from the setting when that was 0). */
  readonly listeningPort: number;
  /**
   * Graceful stop: no new connections, sessions closed with 1001 (their ROS calls abandoned), in-flight
   * HTTP requests given until `drainMs` to finish; those still running then get 503 `shutting-down` (their
   * ROS calls abandoned), and every connection is closed. Resolves to whether everything finished in time.
   * Idempotent.
   */
  stop(drainMs: number): Promise<boolean>;
}

export class ListenError extends Error {
  override readonly name = 'ListenError';
}

const DRAIN_POLL_MS = 10;

const SHUTTING_DOWN = problemReply('shutting-down', 'the service is stopping; retry on its restart', {
  headers: { 'retry-after': '1' },
});
const CUT_SHORT = problemReply(
  'shutting-down',
  'the service stopped before this request finished; its outcome is unknown (check, then retry on its restart)',
  { headers: { 'retry-after': '1' } },
);

export const startUwsApp = async (settings: UwsAppSettings): Promise<RunningUwsApp> => {
  const { host, port, hub, log } = settings;
  const app = uWS.App();
  // The WebSocket endpoint first: on /ws it takes the upgrades and passes plain GETs on to the route table.
  const ws = installConversationEndpoint(app, {
    hub,
    log,
    policy: settings.policy,
    metrics: settings.metrics,
  });
  const deliveries: AnswerDeliveries = {
    waiting: settings.metrics.httpAnswersWaiting,
    count: (reason) => {
      settings.metrics.httpAnswersUnsent.child(reason).value += 1;
    },
  };
  const http = installRoutes(app, settings.routes, {
    maxBodyBytes: settings.maxBodyBytes,
    log,
    policy: settings.policy,
    calls: settings.calls,
    requests: settings.metrics.httpRequests,
    deliveries,
  });

  const listenSocket = await new Promise<us_listen_socket>((resolve, reject) => {
    app.listen(host, port, (socket) => {
      if (socket === false) {
        reject(new ListenError(`cannot listen on ${host}:${port} (address in use or not available)`));
      } else {
        resolve(socket);
      }
    });
  });

  const stop = async (drainMs: number): Promise<boolean> => {
    // Keep-alive connections may still send requests: they start nothing.
    http.refuseFromNow(SHUTTING_DOWN);
    uWS.us_listen_socket_close(listenSocket);
    hub.close();
    const deadline = Date.now() + drainMs;
    // Bounded by the deadline: close frames get out and answers in progress are written.
    while ((ws.openSockets() > 0 || http.inFlight > 0) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
    }
    const drained = ws.openSockets() === 0 && http.inFlight === 0;
    if (!drained) {
      log.warn(
        { openSockets: ws.openSockets(), inFlightRequests: http.inFlight, drainMs },
        'cutting what did not finish in time: requests get 503, connections are closed',
      );
      http.cutInFlight(CUT_SHORT);
    }
    // Closes every connection still open (both builds have it).
    app.close();
    return drained;
  };
  let stopping: Promise<boolean> | undefined;
  return {
    listeningPort: uWS.us_socket_local_port(listenSocket),
    stop: (drainMs) => (stopping ??= stop(drainMs)),
  };
};
