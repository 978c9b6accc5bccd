import type { ChatRequestMsg, ChatResponseMsg } from '../ros-messages.js';
import type { RosRequest, RosResponse, RosServiceKey } from '../ros-port.js';
import {
  decideTourCreate,
  decideTourDelete,
  decideTourGet,
  decideTourList,
  decideTourUpdate,
  type Decision,
  type TourState,
} from '../../tours/tour-rules.js';

/** The simulated `/chat`: echoes the audio so a person at a kiosk hears themselves. */
export const simulatedChat = (request: ChatRequestMsg): ChatResponseMsg => {
  const bytes = request.audio.byteLength;
  return {
    emotion: bytes === 0 ? 'surprised' : 'happy',
    text: `I heard ${bytes} bytes of audio.`,
    audio: request.audio.slice(),
  };
};

/**
 * The simulated robot's service handlers over a tour state: the same rules module as the reference
 * tour store node, so the simulation behaves exactly like the reference.
 */
export const decideSimulatedService = <K extends RosServiceKey>(
  state: TourState,
  service: K,
  request: RosRequest<K>,
): Decision<RosResponse<K>> => {
  // TypeScript cannot correlate the key with the request type across a switch, hence the casts.
  const decide = (): Decision<unknown> => {
    switch (service) {
      case 'chat':
        return { response: simulatedChat(request as RosRequest<'chat'>), events: [] };
      case 'clear_history':
        return { response: {}, events: [] };
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
    throw new Error(`unknown service ${String(service)}`);
  };
  return decide() as Decision<RosResponse<K>>;
};
