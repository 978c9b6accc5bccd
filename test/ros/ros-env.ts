import { randomInt } from 'node:crypto';

/**
 * CycloneDDS on the loopback interface only, without multicast, with 127.0.0.1 as its only peer:
 * unicast discovery between the processes of this run and nothing else on the network. Only read by
 * rmw_cyclonedds_cpp; other RMWs ignore it (rmw_fastrtps and rmw_zenoh follow
 * ROS_AUTOMATIC_DISCOVERY_RANGE, rmw_zenoh its router settings).
 */
export const CYCLONEDDS_LOOPBACK =
  '<CycloneDDS><Domain Id="any"><General><Interfaces><NetworkInterface name="lo"/></Interfaces>' +
  '<AllowMulticast>false</AllowMulticast></General><Discovery><ParticipantIndex>auto</ParticipantIndex>' +
  '<MaxAutoParticipantIndex>32</MaxAutoParticipantIndex><Peers><Peer address="127.0.0.1"/></Peers>' +
  '</Discovery></Domain></CycloneDDS>';

/**
 * The environment of a contract run: the caller's, with discovery kept on this host and a ROS domain
 * of the run's own, unless the caller chose otherwise. Idempotent (a second call changes nothing).
 * SUBNET is not kept: sourcing a Jazzy setup.bash sets it (ros_environment's default), so it says
 * nothing of the caller's choice, and a test run must stay on this host.
 */
export const rosRunEnvironment = (base: NodeJS.ProcessEnv): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...base };
  const range = env['ROS_AUTOMATIC_DISCOVERY_RANGE'];
  if (range === undefined || range === '' || range === 'SUBNET')
    env['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST';
  // 0–101: the domain IDs safe on every platform (ROS 2 "The ROS_DOMAIN_ID").
  env['ROS_DOMAIN_ID'] ??= String(randomInt(0, 102));
  env['CYCLONEDDS_URI'] ??= CYCLONEDDS_LOOPBACK;
  return env;
};

/** One line naming the graph a run uses. */
export const describeRosEnvironment = (env: NodeJS.ProcessEnv): string =>
  `ROS_DISTRO=${env['ROS_DISTRO'] ?? '?'}, ` +
  `RMW_IMPLEMENTATION=${env['RMW_IMPLEMENTATION'] ?? '(default)'}, ROS_DOMAIN_ID=${env['ROS_DOMAIN_ID'] ?? ''}, ` +
  `ROS_AUTOMATIC_DISCOVERY_RANGE=${env['ROS_AUTOMATIC_DISCOVERY_RANGE'] ?? ''}`;
