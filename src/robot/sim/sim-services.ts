import { echoChatWhole } from '../echo-chat.js';
import type { RosRequest, RosResponse, RosServiceKey } from '../../ros/port/ros-port.js';
import {
  decideTourService,
  type Decision,
  type TourServiceKey,
  type TourState,
} from '../tours/tour-rules.js';

/**
 * The simulated robot's service handlers over a tour state: the same rules module as the reference
 * tour store node (and the same echo as the reference demo chat node), so the simulation behaves
 * exactly like the reference nodes.
 */
export const decideSimulatedService = <K extends RosServiceKey>(
  state: TourState,
  service: K,
  request: RosRequest<K>,
  /** The echo answer's parts (`--sim_chat_parts`): /chat answers them whole, texts joined. */
  chatParts = 1,
): Decision<RosResponse<K>> => {
  // TypeScript cannot correlate the key with the request type across a switch, hence the casts.
  const decide = (): Decision<unknown> => {
    switch (service) {
      case 'chat':
        return { response: echoChatWhole(request as RosRequest<'chat'>, chatParts), events: [] };
      case 'clear_history':
        return { response: {}, events: [] };
      case 'tour_list':
      case 'tour_get':
      case 'tour_create':
      case 'tour_update':
      case 'tour_delete':
        return decideTourService(state, service, request as RosRequest<TourServiceKey>);
    }
    throw new Error(`unknown service ${String(service)}`);
  };
  return decide() as Decision<RosResponse<K>>;
};
