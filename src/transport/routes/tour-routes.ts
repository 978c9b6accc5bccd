import * as v from 'valibot';
import { tourMsgToJson, tourToMsg } from '../../ros/tour-message.js';
import {
  NewTourSchema,
  PathTourNameSchema,
  StoredTourNameListSchema,
  StoredTourSchema,
  TOUR_BODY_SHAPE,
  TOUR_LIMITS,
  TourPathBodySchema,
  TourSchema,
  type Tour,
} from '../../protocol/tour-schema.js';
import { ifMatchHolds, parseIfMatch, tourEntityTag } from '../../protocol/tour-version.js';
import {
  TourOutcome,
  type TourMsg,
  type TourOutcomeFields,
  type TourStepMsg,
} from '../../ros/port/ros-messages.js';
import { JSON_CONTENT_TYPE, jsonReply, problemReply, type HttpReply } from '../http/reply.js';
import { SERIAL_WAITING_MAX } from '../http/exchange.js';
import type { AnyRoute, ResponseDoc, Route, RouteDocs, RouteParams, RouteRos } from '../http/route.js';

/**
 * `/tour`: each handler checks its request, calls its tour service through `ros` (the router's one call
 * wrapper: time-out, cancellation, the 502/503/504 of a failed call) and answers by the outcome code.
 */

// Written once: every successful change answers these same bytes.
const CREATED = jsonReply(201, { success: true });
const DONE = jsonReply(200, { success: true });

/** The tour name in the path: only what cannot be a name at all is refused (400 `invalid-tour-name`). */
const TOUR_NAME_PATH = {
  schema: PathTourNameSchema,
  problem: 'invalid-tour-name',
} as const satisfies RouteParams<{ tour_name: string }>;

type TourNamePath = v.InferOutput<typeof TOUR_NAME_PATH.schema>;

/** The tour services' outcome codes as HTTP problems; undefined for OK with success true. */
export const outcomeProblem = (response: TourOutcomeFields): HttpReply | undefined => {
  if (response.outcome === TourOutcome.OK && response.success) return undefined;
  const detail = response.message || 'no message from the tour service';
  switch (response.outcome) {
    case TourOutcome.OK:
      return problemReply(
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
    case TourOutcome.FULL:
      return problemReply('tour-store-full', detail);
    default:
      return problemReply(
        'ros-call-failed',
        `the tour service answered an unknown outcome ${response.outcome}: ${detail}`,
      );
  }
};

// ---------------------------------------------------------------------------------------------------------
// A tour as HTTP shows it (the body of `GET /tour/{name}` and its entity tag). Writing the JSON and hashing
// it are much of a GET's own work, and a store answers the same few tours again and again: the last
// representation of a few small tours is kept by name with a copy of its message, and reused while a new
// message holds the same fields. Each service makes its own: nothing is kept at module level.

export interface TourRepresentation {
  readonly json: string;
  readonly etag: string;
}

const REMEMBERED_TOURS_MAX = 32;
const REMEMBERED_JSON_MAX_CHARS = 8 * 1024;

interface Remembered {
  readonly tour: TourMsg;
  readonly representation: TourRepresentation;
}
const sameOptional = (left: readonly string[], right: readonly string[]): boolean =>
  left.length === right.length && left[0] === right[0];

const sameStep = (left: TourStepMsg, right: TourStepMsg): boolean =>
  left.description === right.description &&
  sameOptional(left.destination, right.destination) &&
  sameOptional(left.dialogue, right.dialogue);

const sameTour = (left: TourMsg, right: TourMsg): boolean =>
  left.map_name === right.map_name &&
  left.steps.length === right.steps.length &&
  left.steps.every((step, index) => {
    const other = right.steps[index];
    return other !== undefined && sameStep(step, other);
  });

// A copy: the message may be the store's own object, changed in place by a later write.
const copyOf = (tour: TourMsg): TourMsg => ({
  tour_name: tour.tour_name,
  map_name: tour.map_name,
  steps: tour.steps.map((step) => ({
    description: step.description,
    destination: [...step.destination],
    dialogue: [...step.dialogue],
  })),
});

/** The representation of a tour message, as written afresh, whatever was kept. */
export type TourRepresentations = (tour: TourMsg) => TourRepresentation;

export const createTourRepresentations = (): TourRepresentations => {
  const rememberedByName = new Map<string, Remembered>();
  return (tour) => {
    const remembered = rememberedByName.get(tour.tour_name);
    if (remembered !== undefined && sameTour(remembered.tour, tour)) return remembered.representation;
    const json = tourMsgToJson(tour);
    const representation = { json, etag: tourEntityTag(json) };
    rememberedByName.delete(tour.tour_name);
    if (json.length <= REMEMBERED_JSON_MAX_CHARS) {
      // The oldest is forgotten first: a Map keeps its keys in insertion order.
      const oldest =
        rememberedByName.size >= REMEMBERED_TOURS_MAX ? rememberedByName.keys().next() : undefined;
      if (oldest?.done === false) rememberedByName.delete(oldest.value);
      rememberedByName.set(tour.tour_name, { tour: copyOf(tour), representation });
    }
    return representation;
  };
};

/** A tour as `GET /tour/{name}` answers it: its JSON, and that JSON's entity tag as its ETag. */
const tourReply = (representationOf: TourRepresentations, tour: TourMsg): HttpReply => {
  const { json, etag } = representationOf(tour);
  return { status: 200, headers: { 'content-type': JSON_CONTENT_TYPE, etag }, body: json };
};

/**
 * The If-Match check of a change to an existing tour (RFC 9110 §13.1.1): undefined when the change may go
 * ahead, else the answer. Absent or `*`: no check (a missing tour is 404 either way, §13.2.1). Entity
 * tags: the request takes the tour's turn (held until its answer, so changes to one name run one at a
 * time in this bridge), reads the tour and goes ahead only when a tag matches, else 412 with the current
 * tag. A writer that bypasses the bridge can still slip in (docs/operations.md).
 */
const requireCurrentVersion = async (
  representationOf: TourRepresentations,
  ros: RouteRos,
  name: string,
  ifMatch: string | undefined,
): Promise<HttpReply | undefined> => {
  const condition = parseIfMatch(ifMatch ?? '');
  if (condition.kind === 'absent' || condition.kind === 'any') return undefined;
  if (condition.kind === 'invalid') return problemReply('bad-request', condition.reason);
  const busy = await ros.takeTurn(name);
  if (busy !== undefined) return busy;
  const read = await ros.call('tour_get', { tour_name: name });
  const problem = outcomeProblem(read);
  if (problem !== undefined) return problem;
  const current = representationOf(read.tour).etag;
  if (ifMatchHolds(condition, current)) return undefined;
  return problemReply(
    'tour-changed',
    `the tour ${JSON.stringify(name)} was changed since it was read (its ETag is now ${current}): ` +
      `read it again and redo the change, or send the change with If-Match: ${current} to overwrite it`,
    { headers: { etag: current } },
  );
};

// ---------------------------------------------------------------------------------------------------------
// Documentation, derived into the OpenAPI document

const success = (description: string): ResponseDoc => ({ description, schema: 'Success' });
const ROS_OUTCOMES = {
  404: 'The tour service answered outcome NOT_FOUND',
  409: 'The tour service answered outcome ALREADY_EXISTS',
  422: 'The tour service answered outcome INVALID, or the body fails the schema (`errors` names each field)',
  507: 'The tour store is full (outcome FULL: it holds its most tours or bytes); delete a tour first',
};
const ROS_FAILURES = {
  502: 'The ROS service failed without a known outcome (outcome ERROR, or an unknown one)',
  503: 'The ROS service is not available (`ros-unavailable`, with Retry-After), or the service is stopping',
  504: 'The ROS service did not answer in time',
};
const PATH_NAME_FAILURE = {
  400: 'The path cannot name a tour: not valid percent-encoding, a NUL character, or over 4096 bytes',
};
const TOUR_NAME_PARAM = {
  tour_name:
    'Percent-encoded tour name ("/" as %2F). Tours are stored by ROS nodes, which decide which names exist: ' +
    `names created through this API follow the Tour schema (1–${TOUR_LIMITS.nameMaxChars} characters, no ` +
    'control characters), but any name the tour service holds can be read, updated and deleted. Only a ' +
    'path that cannot be a name (invalid percent-encoding, a NUL character, over 4096 bytes) gets 400.',
};
const docs = (
  service: string,
  summary: string,
  responses: RouteDocs['responses'],
  extra: Partial<RouteDocs> = {},
): RouteDocs => ({
  summary,
  description: `Backed by the ROS service /${service}.`,
  responses: { ...ROS_OUTCOMES, ...ROS_FAILURES, ...responses },
  ...extra,
});

const ETAG_HEADER = {
  etag: 'The tour’s version: a strong entity tag of its content (SHA-256 of its canonical JSON), the same for the same tour on any node; send it back in If-Match to change the tour only if nobody changed it meanwhile',
};
const IF_MATCH_DOCS = {
  headers: {
    'if-match':
      'Optional. The ETag of `GET /tour/{tour_name}` (or a list of them): the change is made only if the tour is still that version, else 412. Absent or `*`: no version check. Changes with If-Match to one tour run one at a time in this bridge; a writer that bypasses it (another bridge, a ROS node calling the service) can still change the tour between the check and the write',
  },
};
const IF_MATCH_FAILURES = {
  400: 'Malformed JSON, a path that cannot name a tour, or an If-Match that is neither `*` nor a list of quoted entity tags',
  412: {
    description:
      'If-Match names none of the tour’s versions: it was changed since it was read (`tour-changed`); `ETag` gives the current version',
    headers: { etag: 'The tour’s current version' },
  },
  503: `The ROS service is not available (\`ros-unavailable\`, with Retry-After); the service is stopping; or ${SERIAL_WAITING_MAX} other changes with If-Match to this tour are waiting (\`tour-busy\`, with Retry-After)`,
};

/** The component schemas the tour routes' documentation names. */
export const TOUR_SCHEMAS = {
  NewTour: NewTourSchema,
  Tour: TourSchema,
  TourUpdate: TourPathBodySchema,
  StoredTour: StoredTourSchema,
  TourNames: StoredTourNameListSchema,
  Success: { type: 'object', required: ['success'], properties: { success: { const: true } } },
};

const listTours: Route = {
  method: 'GET',
  pattern: '/tour',
  docs: docs('tour_list', 'List tour names', {
    200: { description: 'Tour names, as the tour service holds them', schema: 'TourNames' },
  }),
  handle: async ({ ros }) => {
    const response = await ros.call('tour_list', {});
    return outcomeProblem(response) ?? jsonReply(200, response.tour_names);
  },
};

const getTour = (representationOf: TourRepresentations): Route<undefined, TourNamePath> => ({
  method: 'GET',
  pattern: '/tour/:tour_name',
  params: TOUR_NAME_PATH,
  docs: docs(
    'tour_get',
    'Get a tour',
    {
      200: {
        description: 'The tour, as the tour service holds it',
        schema: 'StoredTour',
        headers: ETAG_HEADER,
      },
      ...PATH_NAME_FAILURE,
      404: 'No tour with this name',
    },
    { params: TOUR_NAME_PARAM },
  ),
  handle: async ({ params, ros }) => {
    const response = await ros.call('tour_get', { tour_name: params.tour_name });
    return outcomeProblem(response) ?? tourReply(representationOf, response.tour);
  },
});

const createTour: Route<Tour> = {
  method: 'POST',
  pattern: '/tour',
  body: NewTourSchema,
  bodyShape: TOUR_BODY_SHAPE,
  docs: docs(
    'tour_create',
    'Create a tour',
    {
      201: success('Created'),
      409: 'A tour with this name exists',
      422: 'The body fails the schema (`errors` names each field; a new tour’s names must not be blank), or the tour service answered outcome INVALID',
    },
    { bodyName: 'NewTour' },
  ),
  handle: async ({ body, ros }) => {
    const response = await ros.call('tour_create', { tour: tourToMsg(body) });
    return outcomeProblem(response) ?? CREATED;
  },
};

const updateTour = (representationOf: TourRepresentations): Route<Tour> => ({
  method: 'PUT',
  pattern: '/tour',
  body: TourSchema,
  bodyShape: TOUR_BODY_SHAPE,
  reads: { headers: ['if-match'] },
  docs: docs(
    'tour_update',
    'Update the tour named in the body',
    { 200: success('Updated'), 404: 'No tour with this name', ...IF_MATCH_FAILURES },
    { bodyName: 'Tour', ...IF_MATCH_DOCS },
  ),
  handle: async ({ body, headers, ros }) => {
    const refused = await requireCurrentVersion(representationOf, ros, body.tour_name, headers['if-match']);
    if (refused !== undefined) return refused;
    const response = await ros.call('tour_update', { tour: tourToMsg(body) });
    return outcomeProblem(response) ?? DONE;
  },
});

const updateTourByPath = (
  representationOf: TourRepresentations,
): Route<v.InferOutput<typeof TourPathBodySchema>, TourNamePath> => ({
  method: 'PUT',
  pattern: '/tour/:tour_name',
  params: TOUR_NAME_PATH,
  body: TourPathBodySchema,
  bodyShape: TOUR_BODY_SHAPE,
  reads: { headers: ['if-match'] },
  docs: {
    ...docs(
      'tour_update',
      'Update the tour named in the path',
      { 200: success('Updated'), 404: 'No tour with this name', ...IF_MATCH_FAILURES },
      { params: TOUR_NAME_PARAM, bodyName: 'TourUpdate', ...IF_MATCH_DOCS },
    ),
    description:
      'Backed by the ROS service /tour_update. The path names the tour; the body may omit tour_name, and a body naming another tour gets 422.',
  },
  handle: async ({ params, body, headers, ros }) => {
    const name = params.tour_name;
    // The path names the tour; a body may omit tour_name but must not name another tour.
    if (body.tour_name !== undefined && body.tour_name !== name) {
      return problemReply(
        'validation-failed',
        `tour_name: the body names ${JSON.stringify(body.tour_name)} but the path names ${JSON.stringify(name)}`,
        {
          extensions: { errors: [{ field: 'tour_name', message: 'differs from the tour name in the path' }] },
        },
      );
    }
    const refused = await requireCurrentVersion(representationOf, ros, name, headers['if-match']);
    if (refused !== undefined) return refused;
    const response = await ros.call('tour_update', { tour: tourToMsg({ ...body, tour_name: name }) });
    return outcomeProblem(response) ?? DONE;
  },
});

const deleteTour = (representationOf: TourRepresentations): Route<undefined, TourNamePath> => ({
  method: 'DELETE',
  pattern: '/tour/:tour_name',
  params: TOUR_NAME_PATH,
  reads: { headers: ['if-match'] },
  docs: docs(
    'tour_delete',
    'Delete a tour',
    { 200: success('Deleted'), 404: 'No tour with this name', ...IF_MATCH_FAILURES },
    { params: TOUR_NAME_PARAM, ...IF_MATCH_DOCS },
  ),
  handle: async ({ params, headers, ros }) => {
    const name = params.tour_name;
    const refused = await requireCurrentVersion(representationOf, ros, name, headers['if-match']);
    if (refused !== undefined) return refused;
    const response = await ros.call('tour_delete', { tour_name: name });
    return outcomeProblem(response) ?? DONE;
  },
});

/** The `/tour` routes of one service, with the tour representations it keeps (its own, none shared). */
export const tourRoutes = (): readonly AnyRoute[] => {
  const representationOf = createTourRepresentations();
  return [
    listTours,
    getTour(representationOf),
    createTour,
    updateTour(representationOf),
    updateTourByPath(representationOf),
    deleteTour(representationOf),
  ];
};
