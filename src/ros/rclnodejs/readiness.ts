import type { BackendReadiness } from '../port/ros-port.js';

export interface ReadinessState {
  readonly spinning: boolean;
  /** Fully qualified, after remapping, e.g. /robot1/tour_bridge. */
  readonly nodeName: string;
  readonly rmw: string;
  /** Names of the called services that have no server on the graph right now. */
  readonly servicesWithoutServer: readonly string[];
  /** Why the graph cannot be reached now (the Zenoh router does not answer), if it cannot. */
  readonly routerDown?: string | undefined;
}

/**
 * Ready once the node spins. Missing service servers do not make the bridge unready (each call
 * reports them as 503), but they are what an operator looks for, so the detail names them.
 */
export const describeReadiness = (state: ReadinessState): BackendReadiness => {
  if (!state.spinning) return { ready: false, detail: `ROS node ${state.nodeName} is not spinning (closed)` };
  if (state.routerDown !== undefined) {
    return { ready: false, detail: `ROS node ${state.nodeName} on ${state.rmw}: ${state.routerDown}` };
  }
  const servers =
    state.servicesWithoutServer.length === 0
      ? 'every called service has a server'
      : `no server yet for ${state.servicesWithoutServer.join(', ')}`;
  return { ready: true, detail: `ROS node ${state.nodeName} spinning on ${state.rmw}; ${servers}` };
};
