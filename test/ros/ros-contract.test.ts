import { describe, it } from 'node:test';
import { tourApiContract } from '../contract/tour-api-contract.js';
import { wsConversationContract } from '../contract/ws-contract.js';

/**
 * The contract suites against a bridge running `--backend ros`, started with its ROS nodes by
 * test/ros/run-contract.ts (`npm run test:ros`), which passes the bridge's URL.
 */
const baseUrl = process.env['TOUR_BRIDGE_CONTRACT_URL'];

if (baseUrl === undefined) {
  describe('rclnodejs contract', () => {
    it('runs from npm run test:ros, which starts the ROS nodes and the bridge', (context) => {
      context.skip('TOUR_BRIDGE_CONTRACT_URL is not set');
    });
  });
} else {
  tourApiContract(() => ({ baseUrl }));
  wsConversationContract(() => ({ wsUrl: `${baseUrl.replace(/^http/, 'ws')}/ws` }));
}
