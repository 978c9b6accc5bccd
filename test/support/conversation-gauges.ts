import type { ConversationGaugeValues } from '../../src/actors/conversation-gauges.js';
import type { TestService } from './test-service.js';

/** The conversation gauges once every session has stopped: anything else is a leak. */
export const NO_LEAKS: ConversationGaugeValues = {
  liveSessions: 0,
  openSubscriptions: 0,
  inFlightRosCalls: 0,
  queuedAudioBytes: 0,
};

/**
 * The hub's gauges once `sessions` sessions are live and no ROS call is in flight, polled (bounded: 3 s)
 * because a closing socket reaches the server a moment after the client closed it. Returns the last
 * reading either way, for the test to assert on.
 */
export const settledGauges = async (
  running: Pick<TestService, 'service'>,
  sessions = 0,
): Promise<ConversationGaugeValues> => {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    const gauges = running.service.hub.readGauges();
    if (gauges.liveSessions === sessions && gauges.inFlightRosCalls === 0) return gauges;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return running.service.hub.readGauges();
};
