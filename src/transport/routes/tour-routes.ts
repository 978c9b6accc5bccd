import { asyncScheduler, type Observable } from 'rxjs';
import * as v from 'valibot';
import { TourOutcome, type TourOutcomeFields } from '../../ros/ros-messages.js';
import type { RosRequest, RosResponse, RosServiceKey } from '../../ros/ros-port.js';
import { tourFromMsg, tourToMsg } from '../../protocol/tour-message.js';
import { callWithTimeout, type RosCaller } from '../../streams/ros-call.js';
import type { Gauge } from '../../streams/resource-gauges.js';
import { issuePath, TourPathBodySchema, TourSchema, type Tour } from '../../protocol/tour-schema.js';
import { jsonReply, problemReply, type HttpReply } from '../http/reply.js';
import { rosErrorReply } from '../http/ros-error-reply.js';
import type { ClientPresence } from '../http/client-presence.js';
import type { Route } from '../http/route.js';

export interface TourRoutesOptions {
  readonly port: RosCaller;
  readonly rosTimeoutMs: number;
  /** Counts each tour call while it is outstanding (the `ros_calls_in_flight` gauge). */
  readonly inFlight?: Gauge;
}

const SUCCESS = { success: true } as const;

type Checked<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly reply: HttpReply };

/** Longest tour name taken from a path, in UTF-8 bytes: far above any name a tour store keeps. */
export const PATH_TOUR_NAME_MAX_BYTES = 4096;

const invalidPathName = (detail: string): Checked<string> => ({
  ok: false,
  reply: problemReply('invalid-tour-name', detail),
});

/**
 * A tour name from the path, percent-decoded. Tours are stored by other ROS nodes, which may hold names our
 * own schema would not create (longer, other characters): only what cannot be a name at all is refused
 * here, and the tour service decides the rest (an unknown name: 404).
 */
const tourNameFromPath = (raw: string): Checked<string> => {
  let name: string;
  try {
    name = decodeURIComponent(raw);
  } catch {
    return invalidPathName('the tour name in the path is not valid percent-encoding');
  }
  // ROS 2 strings end at the first NUL: the service would be asked about another name.
  if (name.includes('\0')) return invalidPathName('a tour name cannot contain NUL (%00)');
  if (Buffer.byteLength(name, 'utf8') > PATH_TOUR_NAME_MAX_BYTES) {
    return invalidPathName(
      `the tour name in the path is over ${PATH_TOUR_NAME_MAX_BYTES} bytes; no tour can have such a name`,
    );
  }
  return { ok: true, value: name };
};

const validationFailed = (issues: readonly v.BaseIssue<unknown>[]): HttpReply => {
  const errors = issues.map((issue) => ({ field: issuePath(issue) || '(body)', message: issue.message }));
  const first = errors[0];
  const detail = first === undefined ? 'the body is not a valid tour' : `${first.field}: ${first.message}`;
  return problemReply('validation-failed', detail, { extensions: { errors } });
};

const tourFromBody = (body: unknown): Checked<Tour> => {
  const parsed = v.safeParse(TourSchema, body, { abortPipeEarly: true });
  return parsed.success
    ? { ok: true, value: parsed.output }
    : { ok: false, reply: validationFailed(parsed.issues) };
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The outcome code of a tour service decides the HTTP status; `success` must agree with it. */
const outcomeReply = (response: TourOutcomeFields, onSuccess: () => HttpReply): HttpReply => {
  const detail = response.message || 'no message from the tour service';
  switch (response.outcome) {
    case TourOutcome.OK:
      return response.success
        ? onSuccess()
        : problemReply(
            'ros-call-failed',
            `the tour service reported outcome ok with success false: ${detail}`,
          );
    case TourOutcome.NOT_FOUND:
      return problemReply('tour-not-found', detail);
    case TourOutcome.ALREADY_EXISTS:
      return problemReply('tour-exists', detail);
    case TourOutcome.INVALID:
      return problemReply('validation-failed', detail);
    case TourOutcome.ERROR:
      return problemReply('ros-call-failed', detail);
    default:
      return problemReply(
        'ros-call-failed',
        `the tour service answered an unknown outcome ${response.outcome}: ${detail}`,
      );
  }
};

/** Stands for the answer to a request whose client went away: the router never writes it. */
const CLIENT_GONE: HttpReply = { status: 499 };
const GONE: unique symbol = Symbol('client gone');

/**
 * The one response of a call, or its error; unsubscribed (the call abandoned in the port) when the client
 * goes away, which settles with `gone` instead.
 */
const responseOf = <T>(source: Observable<T>, client: ClientPresence, gone: T): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    if (client.gone) {
      resolve(gone);
      return;
    }
    // Settled by the first of: the response, an error, completion without a response, the client leaving.
    let settled = false;
    let stopWatchingClient = (): void => undefined;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      stopWatchingClient();
      return true;
    };
    const subscription = source.subscribe({
      next: (value) => {
        if (settle()) resolve(value);
      },
      error: (error: unknown) => {
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the port's error, unchanged
        if (settle()) reject(error);
      },
      complete: () => {
        if (settle()) reject(new Error('the ROS call completed without a response'));
      },
    });
    // Answered synchronously (a test double): nothing to watch.
    if (subscription.closed) return;
    stopWatchingClient = client.onGone(() => {
      if (!settle()) return;
      subscription.unsubscribe();
      resolve(gone);
    });
  });

export const createTourRoutes = ({ port, rosTimeoutMs, inFlight }: TourRoutesOptions): Route[] => {
  const callOptions = {
    timeoutMs: rosTimeoutMs,
    scheduler: asyncScheduler,
    ...(inFlight === undefined ? {} : { inFlight }),
  };
  /**
   * One port call bounded by the HTTP time-out and by the client: when it goes away, the call is
   * abandoned. ROS failures become their documented replies.
   */
  const call = async <K extends RosServiceKey>(
    client: ClientPresence,
    service: K,
    request: RosRequest<K>,
    onResponse: (response: RosResponse<K>) => HttpReply,
  ): Promise<HttpReply> => {
    let response: RosResponse<K> | typeof GONE;
    try {
      response = await responseOf<RosResponse<K> | typeof GONE>(
        callWithTimeout(port, service, request, callOptions),
        client,
        GONE,
      );
    } catch (error) {
      const reply = rosErrorReply(error);
      if (reply === undefined) throw error;
      return reply;
    }
    return response === GONE ? CLIENT_GONE : onResponse(response);
  };

  const writeTour = (
    client: ClientPresence,
    service: 'tour_create' | 'tour_update',
    tour: Tour,
    status: number,
  ) =>
    call(client, service, { tour: tourToMsg(tour) }, (response) =>
      outcomeReply(response, () => jsonReply(status, SUCCESS)),
    );

  return [
    {
      method: 'GET',
      pattern: '/tour',
      handle: ({ client }) =>
        call(client, 'tour_list', {}, (response) =>
          outcomeReply(response, () => jsonReply(200, response.tour_names)),
        ),
    },
    {
      method: 'GET',
      pattern: '/tour/:tour_name',
      handle: ({ head, client }) => {
        const name = tourNameFromPath(head.params[0] ?? '');
        if (!name.ok) return name.reply;
        return call(client, 'tour_get', { tour_name: name.value }, (response) =>
          outcomeReply(response, () => jsonReply(200, tourFromMsg(response.tour))),
        );
      },
    },
    {
      method: 'POST',
      pattern: '/tour',
      jsonBody: true,
      handle: ({ body, client }) => {
        const tour = tourFromBody(body);
        return tour.ok ? writeTour(client, 'tour_create', tour.value, 201) : tour.reply;
      },
    },
    {
      method: 'PUT',
      pattern: '/tour',
      jsonBody: true,
      handle: ({ body, client }) => {
        const tour = tourFromBody(body);
        return tour.ok ? writeTour(client, 'tour_update', tour.value, 200) : tour.reply;
      },
    },
    {
      method: 'PUT',
      pattern: '/tour/:tour_name',
      jsonBody: true,
      handle: ({ head, body, client }) => {
        const name = tourNameFromPath(head.params[0] ?? '');
        if (!name.ok) return name.reply;
        // The path names the tour; a body may omit tour_name but must not name another tour.
        if (isRecord(body) && body['tour_name'] !== undefined && body['tour_name'] !== name.value) {
          return problemReply(
            'validation-failed',
            `tour_name: the body names ${JSON.stringify(body['tour_name'])} but the path names ${JSON.stringify(name.value)}`,
            {
              extensions: {
                errors: [{ field: 'tour_name', message: 'differs from the tour name in the path' }],
              },
            },
          );
        }
        // The body keeps the strict schema; the name comes from the path, and the tour service decides it.
        const parsed = v.safeParse(TourPathBodySchema, body, { abortPipeEarly: true });
        if (!parsed.success) return validationFailed(parsed.issues);
        return writeTour(client, 'tour_update', { ...parsed.output, tour_name: name.value }, 200);
      },
    },
    {
      method: 'DELETE',
      pattern: '/tour/:tour_name',
      handle: ({ head, client }) => {
        const name = tourNameFromPath(head.params[0] ?? '');
        if (!name.ok) return name.reply;
        return call(client, 'tour_delete', { tour_name: name.value }, (response) =>
          outcomeReply(response, () => jsonReply(200, SUCCESS)),
        );
      },
    },
  ];
};
