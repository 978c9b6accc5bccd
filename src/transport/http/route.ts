import type { Logger } from '../../log/logger.js';
import type { ClientPresence } from './client-presence.js';
import type { HttpReply } from './reply.js';
import type { RequestHead } from './request-head.js';

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE' | 'OPTIONS';

export interface RouteContext {
  readonly head: RequestHead;
  /** The parsed JSON body, for routes that take one; undefined otherwise. */
  readonly body: unknown;
  /** Carries the request id on every line. */
  readonly log: Logger;
  /**
   * Gone when the client leaves before the answer (uWS `onAborted`, also when a graceful stop closes the
   * connection). Work done for the request (a ROS call) must end with it.
   */
  readonly client: ClientPresence;
}

export interface Route {
  readonly method: HttpMethod;
  /** uWebSockets.js pattern, e.g. `/tour/:tour_name`. */
  readonly pattern: string;
  /** Whether the route reads a JSON body (content type, size and syntax are checked before `handle`). */
  readonly jsonBody?: boolean;
  handle(context: RouteContext): HttpReply | Promise<HttpReply>;
}
