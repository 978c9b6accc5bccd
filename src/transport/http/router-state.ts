import type { RosServiceKey } from '../../ros/port/ros-port.js';
import type { FailureLog } from '../../log/failure-log.js';
import type { Logger } from '../../log/logger.js';
import type { CounterFamily } from '../../metrics/plain-metrics.js';
import type { RosCalls } from '../../ros/port/ros-calls.js';
import type { AccessPolicy } from './access-policy.js';
import type { AnswerDeliveries } from './answer-delivery.js';
import type { HttpReply } from './reply.js';
import type { AnyRoute, HttpMethod } from './route.js';
import type { SerialByKey } from './exchange.js';

/**
 * What the parts of the router share: its settings, the state every request of every route counts in,
 * and what a request's exchange needs of its route. router.ts makes them; installed-route.ts reads a
 * request; exchange.ts runs it and writes its answer.
 */

export interface RouterSettings {
  readonly maxBodyBytes: number;
  readonly log: Logger;
  readonly policy: AccessPolicy;
  /** Runs the routes' ROS calls (time-out, in-flight count, cancellation, metrics). */
  readonly calls: Pick<RosCalls, 'call'>;
  /** Counts answers by method, path template and status (`tour_bridge_http_requests_total`). */
  readonly requests: CounterFamily;
  /** The answers written on as their clients read (answer-delivery.ts): one per connection at most. */
  readonly deliveries: AnswerDeliveries;
}

/** The router's state, shared by every request. */
export interface RouterState {
  readonly settings: RouterSettings;
  /**
   * Once set, every request gets this reply at once and its connection is closed, and no route runs (set
   * as the service stops, so keep-alive connections start no new work).
   */
  readonly refusal: HttpReply | undefined;
  /** Requests started and not yet answered or abandoned. */
  inFlight: number;
  /** The requests in flight, for the graceful stop to cut. */
  readonly live: Set<{ cut(reply: HttpReply): void }>;
  readonly debug: boolean;
  /** Unavailable ROS services behind HTTP answers (503), logged per service as runs, not one line each. */
  readonly rosFailures: FailureLog;
  /** The services with a run of failures open in `rosFailures`: only their next answer ends one. */
  readonly failingServices: Set<RosServiceKey>;
  /** Turns of the requests whose calls run one at a time per key (conditional changes to one tour). */
  readonly serial: SerialByKey;
}

/** A route as an exchange sees it: the table's entry, its labels, and where its answers are counted. */
export interface ExchangeRoute {
  readonly route: AnyRoute;
  readonly router: RouterState;
  readonly method: HttpMethod;
  /** The path template: the route's metrics label. */
  readonly template: string;
  readonly needsToken: boolean;
  /** Access is checked as the `/ws` upgrade checks it (RouteAccess `websocket`). */
  readonly asWebSocket: boolean;
  count(status: number): void;
}
