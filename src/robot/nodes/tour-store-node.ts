import type { Node } from 'rclnodejs';
import type { Logger } from 'pino';
import { ROS_SERVICES, type RosRequest } from '../../ros/port/ros-port.js';
import type { Rclnodejs } from '../../ros/binding/rclnodejs-loader.js';
import type { WireServiceType } from '../../ros/port/ros-wire.js';
import { REQUEST_FROM_WIRE, RESPONSE_TO_WIRE } from './node-wire.js';
import type { DurableTourStore } from '../tours/durable-tour-store.js';
import { TOUR_SERVICE_KEYS, type TourServiceKey } from '../tours/tour-rules.js';

export const TOUR_STORE_NODE_NAME = 'tour_store';

export interface TourStoreServiceDeps {
  readonly rcl: Pick<Rclnodejs, 'QoS'>;
  readonly node: Pick<Node, 'createService'>;
  readonly store: DurableTourStore;
  readonly logger: Logger;
  /** After close the service handles are gone; answering then would touch destroyed rcl services. */
  readonly isClosed: () => boolean;
}

// K ties the key to its request and response types inside the body, which a plain union would lose.
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
const serveOne = <K extends TourServiceKey>(deps: TourStoreServiceDeps, key: K): void => {
  const { type, name } = ROS_SERVICES[key];
  // The type argument is explicit: inferred from a generic key it would widen to every service type.
  deps.node.createService<WireServiceType<K>>(
    type,
    name,
    // rmw's services profile (reliable, volatile), as rclcpp and rclpy servers use: any client matches.
    { qos: deps.rcl.QoS.profileServicesDefault },
    (wireRequest, response) => {
      let request: RosRequest<K>;
      try {
        request = REQUEST_FROM_WIRE[key](wireRequest);
      } catch (error) {
        // Unreadable requests cannot be answered meaningfully; the caller's time-out reports it.
        deps.logger.warn({ err: error, service: name }, 'dropped a request that could not be read');
        return;
      }
      // Answered when the store has decided and, for a change, written it durably. rclnodejs sends
      // the callback's return value when it is truthy, so the callback returns nothing.
      void deps.store.handle(key, request).then((answer) => {
        if (deps.isClosed()) return;
        try {
          response.send(RESPONSE_TO_WIRE[key](answer));
        } catch (error) {
          deps.logger.warn({ err: error, service: name }, 'could not send an answer');
        }
      });
    },
  );
};

/** The five tour services over the durable store: the tour rules shared with the simulation. */
export const serveTourStore = (deps: TourStoreServiceDeps): void => {
  for (const key of TOUR_SERVICE_KEYS) serveOne(deps, key);
};
