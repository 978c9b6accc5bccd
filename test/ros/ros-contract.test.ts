import { after, before } from 'node:test';
import { tourApiContract } from '../contract/tour-api-contract.js';
import { wsConversationContract } from '../contract/ws-contract.js';
import { converseBridgeSuite } from './converse-bridge-suite.js';
import { converseSuite } from './converse-suite.js';
import { footprintSuite } from './footprint-suite.js';
import { startRosGraph, type RosGraph } from './graph.js';
import { realGraphSuite } from './real-graph-suite.js';
import { rosRunEnvironment } from './ros-env.js';
import { routerFaultSuite } from './router-fault-suite.js';
import { speechLossSuite } from './speech-loss-suite.js';
import { streamingSuite } from './streaming-suite.js';

/**
 * The contract suites (the same assertions as the simulation's) and what only the real path shows,
 * against a ROS 2 graph of real nodes: the reference tour store and demo chat, two bridges with
 * `--backend ros` and the test's own rclnodejs node (test/ros/graph.ts). Started by
 * test/ros/run-contract.ts (`npm run test:ros`), which checks that ROS 2 and rclnodejs can run here.
 */
// Run directly (not from the runner), this file stops with the reason instead of reporting a skipped test.
if (process.env['TOUR_BRIDGE_ROS_CONTRACT'] !== '1') {
  throw new Error(
    'this suite needs a ROS 2 graph: run it with npm run test:ros (TOUR_BRIDGE_ROS_CONTRACT is not set)',
  );
}
// The test process runs a ROS node too (the probe): the same environment as the children.
Object.assign(process.env, rosRunEnvironment(process.env));
let graph: RosGraph | undefined;
const current = (): RosGraph => {
  if (graph === undefined) throw new Error('the ROS graph did not start');
  return graph;
};
before(async () => {
  graph = await startRosGraph(process.env);
});
after(async () => {
  await graph?.stop();
});

tourApiContract(() => ({ baseUrl: current().bridge.baseUrl }));
wsConversationContract(() => ({ wsUrl: current().bridge.wsUrl }));
converseSuite(current);
converseBridgeSuite(current);
streamingSuite(current);
speechLossSuite(current);
routerFaultSuite(current);
footprintSuite(current);
// Last: it ends with stopping the graph.
realGraphSuite(current);
