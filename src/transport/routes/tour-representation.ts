import { tourEntityTag } from '../../protocol/tour-version.js';
import type { TourMsg, TourStepMsg } from '../../port/ros-messages.js';
import { tourMsgToJson } from '../../mapping/tour-message.js';

/**
 * A tour as HTTP shows it: the body of `GET /tour/{name}` and its entity tag.
 *
 * Writing the JSON and hashing it are a large part of a GET's own work, and a store answers the same few
 * tours again and again. So the last representation of a few tours is kept by
 * name, with a copy of the message it came from, and reused while a new message holds the same fields:
 * comparing a tour's strings costs far less than writing and hashing them. Small tours only, so what is
 * kept stays under 32 × 8 Ki characters of JSON. Each service makes its own (`createTourRepresentations`),
 * so nothing is kept at module level and two services in one process share nothing.
 */
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
