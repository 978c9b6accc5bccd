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

/** A tour message's canonical JSON (fields in the schema's order): the body of `GET /tour/{name}`. */
export const tourMsgToJson = (tour: TourMsg): string => JSON.stringify(tourFromMsg(tour));

/** An empty Tour message, for responses that carry no tour. */
export const emptyTourMsg = (): TourMsg => ({ tour_name: '', map_name: '', steps: [] });
