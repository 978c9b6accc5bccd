import { asyncScheduler, firstValueFrom } from 'rxjs';
import * as v from 'valibot';
import { TourOutcome, type TourOutcomeFields } from '../../ros/ros-messages.js';
import type { RosPort, RosRequest, RosResponse, RosServiceKey } from '../../ros/ros-port.js';
import { tourFromMsg, tourToMsg } from '../../ros/tour-conversion.js';
import { callWithTimeout } from '../../streams/ros-call.js';
import { issuePath, TourNameSchema, TourSchema, type Tour } from '../../tours/tour-schema.js';
import { jsonReply, problemReply, type HttpReply } from '../http-reply.js';
import { rosErrorReply } from '../ros-error-reply.js';
import type { Route } from '../route.js';

export interface TourRoutesOptions {
  readonly port: RosPort;
  readonly rosTimeoutMs: number;
}

const SUCCESS = { success: true } as const;

type Checked<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly reply: HttpReply };

/** A tour name from the path: percent-decoded, then held to the same rules as in a body. */
const tourNameFromPath = (raw: string): Checked<string> => {
  let name: string;
  try {
    name = decodeURIComponent(raw);
  } catch {
    return {
      ok: false,
      reply: problemReply('invalid-tour-name', 'the tour name in the path is not valid percent-encoding'),
    };
  }
  const parsed = v.safeParse(TourNameSchema, name);
  if (parsed.success) return { ok: true, value: parsed.output };
  return {
    ok: false,
    reply: problemReply('invalid-tour-name', parsed.issues[0].message),
  };
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

export const createTourRoutes = ({ port, rosTimeoutMs }: TourRoutesOptions): Route[] => {
  /** One port call bounded by the HTTP time-out; ROS failures become their documented replies. */
  const call = async <K extends RosServiceKey>(
    service: K,
    request: RosRequest<K>,
    onResponse: (response: RosResponse<K>) => HttpReply,
  ): Promise<HttpReply> => {
    let response: RosResponse<K>;
    try {
      response = await firstValueFrom(
        callWithTimeout(port, service, request, { timeoutMs: rosTimeoutMs, scheduler: asyncScheduler }),
      );
    } catch (error) {
      const reply = rosErrorReply(error);
      if (reply === undefined) throw error;
      return reply;
    }
    return onResponse(response);
  };

  const writeTour = (service: 'tour_create' | 'tour_update', tour: Tour, status: number) =>
    call(service, { tour: tourToMsg(tour) }, (response) =>
      outcomeReply(response, () => jsonReply(status, SUCCESS)),
    );

  return [
    {
      method: 'GET',
      pattern: '/tour',
      handle: () =>
        call('tour_list', {}, (response) =>
          outcomeReply(response, () => jsonReply(200, response.tour_names)),
        ),
    },
    {
      method: 'GET',
      pattern: '/tour/:tour_name',
      handle: ({ head }) => {
        const name = tourNameFromPath(head.params[0] ?? '');
        if (!name.ok) return name.reply;
        return call('tour_get', { tour_name: name.value }, (response) =>
          outcomeReply(response, () => jsonReply(200, tourFromMsg(response.tour))),
        );
      },
    },
    {
      method: 'POST',
      pattern: '/tour',
      jsonBody: true,
      handle: ({ body }) => {
        const tour = tourFromBody(body);
        return tour.ok ? writeTour('tour_create', tour.value, 201) : tour.reply;
      },
    },
    {
      method: 'PUT',
      pattern: '/tour',
      jsonBody: true,
      handle: ({ body }) => {
        const tour = tourFromBody(body);
        return tour.ok ? writeTour('tour_update', tour.value, 200) : tour.reply;
      },
    },
    {
      method: 'PUT',
      pattern: '/tour/:tour_name',
      jsonBody: true,
      handle: ({ head, body }) => {
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
        const tour = tourFromBody(isRecord(body) ? { ...body, tour_name: name.value } : body);
        return tour.ok ? writeTour('tour_update', tour.value, 200) : tour.reply;
      },
    },
    {
      method: 'DELETE',
      pattern: '/tour/:tour_name',
      handle: ({ head }) => {
        const name = tourNameFromPath(head.params[0] ?? '');
        if (!name.ok) return name.reply;
        return call('tour_delete', { tour_name: name.value }, (response) =>
          outcomeReply(response, () => jsonReply(200, SUCCESS)),
        );
      },
    },
  ];
};
