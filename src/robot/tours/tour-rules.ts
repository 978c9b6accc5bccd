import * as v from 'valibot';
import {
  TourOutcome,
  type TourOutcomeCode,
  type TourOutcomeFields,
  type TourCreateRequestMsg,
  type TourDeleteRequestMsg,
  type TourGetRequestMsg,
  type TourGetResponseMsg,
  type TourListResponseMsg,
  type TourMsg,
  type TourUpdateRequestMsg,
} from '../../ros/port/ros-messages.js';
import type { RosRequest, RosResponse } from '../../ros/port/ros-port.js';
import { emptyTourMsg, tourFromMsg, tourToMsg } from '../../ros/tour-message.js';
import { issuePath } from '../../protocol/json-issues.js';
import { NewTourSchema, TourSchema, tourNameKey, type Tour } from '../../protocol/tour-schema.js';

/**
 * The rules of the tour store, shared by the simulated backend and the reference ROS node: one
 * implementation, two transports. The store is event-sourced: a request is decided against the
 * current state into a response and the events it causes; the state is the fold of those events.
 */

export type TourEvent =
  | { readonly type: 'tour.created'; readonly tour: Tour }
  | { readonly type: 'tour.updated'; readonly tour: Tour }
  | { readonly type: 'tour.deleted'; readonly tourName: string };

/** Tours by name, in creation order (Map keeps insertion order; the list answer relies on it). */
export type TourState = ReadonlyMap<string, Tour>;

export const emptyTourState = (): TourState => new Map();

export const applyTourEvent = (state: TourState, event: TourEvent): TourState => {
  const next = new Map(state);
  switch (event.type) {
    case 'tour.created':
    case 'tour.updated':
      next.set(event.tour.tour_name, event.tour);
      return next;
    case 'tour.deleted':
      next.delete(event.tourName);
      return next;
  }
};

export const foldTourEvents = (
  events: Iterable<TourEvent>,
  initial: TourState = emptyTourState(),
): TourState => {
  let state = initial;
  for (const event of events) state = applyTourEvent(state, event);
  return state;
};

export interface Decision<R> {
  readonly response: R;
  readonly events: readonly TourEvent[];
}

const outcome = (code: TourOutcomeCode, message: string): TourOutcomeFields => ({
  success: code === TourOutcome.OK,
  outcome: code,
  message,
});

const describeIssues = (issues: readonly v.BaseIssue<unknown>[]): string =>
  issues.map((issue) => `${issuePath(issue) || 'tour'}: ${issue.message}`).join('; ');

// A new tour's names must show (NewTourSchema); an update keeps the rules the stored tour was made under.
const validTour = (
  request: TourCreateRequestMsg | TourUpdateRequestMsg,
  schema: typeof TourSchema | typeof NewTourSchema,
): { tour: Tour } | { problem: string } => {
  const parsed = v.safeParse(schema, tourFromMsg(request.tour));
  return parsed.success ? { tour: parsed.output } : { problem: describeIssues(parsed.issues) };
};

export const decideTourList = (state: TourState): Decision<TourListResponseMsg> => ({
  response: {
    success: true,
    outcome: TourOutcome.OK,
    message: `${state.size} tour(s)`,
    tour_names: [...state.keys()],
  },
  events: [],
});

/**
 * Tours in the state are never changed (an update replaces the object), so each one's message is built once.
 * The simulation answers every GET /tour/{name} from here, and the benchmark measures the bridge over it.
 */
const tourMessages = new WeakMap<Tour, TourMsg>();
const tourMsgOf = (tour: Tour): TourMsg => {
  let message = tourMessages.get(tour);
  if (message === undefined) {
    message = tourToMsg(tour);
    tourMessages.set(tour, message);
  }
  return message;
};

// Get and delete look the name up as it is: a name the store could not hold is simply not found (spec:
// an unknown tour is 404), whatever the caller's own rules for names are.
export const decideTourGet = (state: TourState, request: TourGetRequestMsg): Decision<TourGetResponseMsg> => {
  const tour = state.get(request.tour_name);
  return tour === undefined
    ? {
        response: {
          ...outcome(TourOutcome.NOT_FOUND, `no tour named "${request.tour_name}"`),
          tour: emptyTourMsg(),
        },
        events: [],
      }
    : {
        response: { ...outcome(TourOutcome.OK, 'found'), tour: tourMsgOf(tour) },
        events: [],
      };
};

export const decideTourCreate = (
  state: TourState,
  request: TourCreateRequestMsg,
): Decision<TourOutcomeFields> => {
  const checked = validTour(request, NewTourSchema);
  if ('problem' in checked) return { response: outcome(TourOutcome.INVALID, checked.problem), events: [] };
  const { tour } = checked;
  if (state.has(tour.tour_name)) {
    return {
      response: outcome(TourOutcome.ALREADY_EXISTS, `a tour named "${tour.tour_name}" already exists`),
      events: [],
    };
  }
  // A tour stored before the names' rules (or by another node) may hold the same name in another form.
  const key = tourNameKey(tour.tour_name);
  for (const name of state.keys()) {
    if (tourNameKey(name) === key) {
      return {
        response: outcome(
          TourOutcome.ALREADY_EXISTS,
          `a tour named ${JSON.stringify(name)} already exists: the same name in another Unicode form`,
        ),
        events: [],
      };
    }
  }
  return {
    response: outcome(TourOutcome.OK, `created "${tour.tour_name}"`),
    events: [{ type: 'tour.created', tour }],
  };
};

export const decideTourUpdate = (
  state: TourState,
  request: TourUpdateRequestMsg,
): Decision<TourOutcomeFields> => {
  const checked = validTour(request, TourSchema);
  if ('problem' in checked) return { response: outcome(TourOutcome.INVALID, checked.problem), events: [] };
  const { tour } = checked;
  if (!state.has(tour.tour_name)) {
    return { response: outcome(TourOutcome.NOT_FOUND, `no tour named "${tour.tour_name}"`), events: [] };
  }
  return {
    response: outcome(TourOutcome.OK, `updated "${tour.tour_name}"`),
    events: [{ type: 'tour.updated', tour }],
  };
};

export const decideTourDelete = (
  state: TourState,
  request: TourDeleteRequestMsg,
): Decision<TourOutcomeFields> => {
  if (!state.has(request.tour_name)) {
    return { response: outcome(TourOutcome.NOT_FOUND, `no tour named "${request.tour_name}"`), events: [] };
  }
  return {
    response: outcome(TourOutcome.OK, `deleted "${request.tour_name}"`),
    events: [{ type: 'tour.deleted', tourName: request.tour_name }],
  };
};

/** The five tour services, as keys of the ROS port's service map. */
export const TOUR_SERVICE_KEYS = [
  'tour_list',
  'tour_get',
  'tour_create',
  'tour_update',
  'tour_delete',
] as const;
export type TourServiceKey = (typeof TOUR_SERVICE_KEYS)[number];

/** Decides one tour service request: the single entry point both transports use. */
export const decideTourService = <K extends TourServiceKey>(
  state: TourState,
  service: K,
  request: RosRequest<K>,
): Decision<RosResponse<K>> => {
  // TypeScript cannot correlate the key with the request type across a switch, hence the casts.
  const decide = (): Decision<unknown> => {
    switch (service) {
      case 'tour_list':
        return decideTourList(state);
      case 'tour_get':
        return decideTourGet(state, request as RosRequest<'tour_get'>);
      case 'tour_create':
        return decideTourCreate(state, request as RosRequest<'tour_create'>);
      case 'tour_update':
        return decideTourUpdate(state, request as RosRequest<'tour_update'>);
      case 'tour_delete':
        return decideTourDelete(state, request as RosRequest<'tour_delete'>);
    }
    throw new Error(`unknown tour service ${String(service)}`);
  };
  return decide() as Decision<RosResponse<K>>;
};

/** The tour every fresh simulated store (and a reference store with no file yet) starts with. */
export const SAMPLE_TOUR: Tour = {
  tour_name: 'welcome',
  map_name: 'lobby',
  steps: [
    {
      description: 'Greet visitors at the entrance',
      destination: 'entrance',
      dialogue: 'Welcome! I will be your guide today.',
    },
    { description: 'Show the exhibition hall', destination: 'hall_a', dialogue: null },
    { description: 'Say goodbye', destination: null, dialogue: 'Thank you for visiting!' },
  ],
};
