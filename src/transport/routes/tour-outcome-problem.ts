import { TourOutcome, type TourOutcomeFields } from '../../ros/port/ros-messages.js';
import { problemReply, type HttpReply } from '../http/reply.js';

/**
 * The tour services' outcome codes as HTTP problems: one mapping for every tour route (tour-routes.ts).
 */

/** The problem a tour service's outcome stands for; undefined for OK with success true. */
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
