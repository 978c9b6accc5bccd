import type { Tour, TourInput, TourStep } from '../protocol/tour-schema.js';
import type { TourMsg, TourStepMsg } from './port/ros-messages.js';

// Nullable strings travel as `string[<=1]`: [] is null, [value] is the value, so null and "" stay distinct.
const optionalToMsg = (value: string | null | undefined): string[] =>
  value === null || value === undefined ? [] : [value];
const optionalFromMsg = (value: readonly string[]): string | null => value[0] ?? null;

export const tourStepToMsg = (step: TourStep | TourInput['steps'][number]): TourStepMsg => ({
  description: step.description,
  destination: optionalToMsg(step.destination),
  dialogue: optionalToMsg(step.dialogue),
});

export const tourToMsg = (tour: Tour | TourInput): TourMsg => ({
  tour_name: tour.tour_name,
  map_name: tour.map_name,
  steps: tour.steps.map(tourStepToMsg),
});

export const tourStepFromMsg = (step: TourStepMsg): TourStep => ({
  description: step.description,
  destination: optionalFromMsg(step.destination),
  dialogue: optionalFromMsg(step.dialogue),
});

export const tourFromMsg = (tour: TourMsg): Tour => ({
  tour_name: tour.tour_name,
  map_name: tour.map_name,
  steps: tour.steps.map(tourStepFromMsg),
});

// Strings that JSON.stringify would change: a quote, a backslash, a control character, or a UTF-16
// surrogate (JSON.stringify escapes lone ones; paired ones go through it too, to keep one rule).
// eslint-disable-next-line no-control-regex -- control characters are exactly what JSON must escape
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;
const jsonString = (text: string): string => (NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`);
const jsonOptional = (value: readonly string[]): string =>
  value[0] === undefined ? 'null' : jsonString(value[0]);

/**
 * `JSON.stringify(tourFromMsg(tour))`, written straight from the message: the answer of every
 * `GET /tour/{name}`, where converting the tour and stringifying it costs about three times as much.
 * A property test holds the two equal.
 */
export const tourMsgToJson = (tour: TourMsg): string => {
  let json = `{"tour_name":${jsonString(tour.tour_name)},"map_name":${jsonString(tour.map_name)},"steps":[`;
  for (let index = 0; index < tour.steps.length; index += 1) {
    const step = tour.steps[index];
    if (step === undefined) continue;
    json += `${index === 0 ? '' : ','}{"description":${jsonString(step.description)},"destination":${jsonOptional(step.destination)},"dialogue":${jsonOptional(step.dialogue)}}`;
  }
  return `${json}]}`;
};

/** An empty Tour message, for responses that carry no tour. */
export const emptyTourMsg = (): TourMsg => ({ tour_name: '', map_name: '', steps: [] });
