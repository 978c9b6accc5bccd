import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CYCLONEDDS_LOOPBACK, rosRunEnvironment } from '../ros/ros-env.js';

describe('the environment of a real-graph run (npm run test:ros)', () => {
  it('keeps discovery on this host: unset, or the SUBNET a sourced Jazzy setup.bash sets, becomes LOCALHOST', () => {
    assert.equal(rosRunEnvironment({})['ROS_AUTOMATIC_DISCOVERY_RANGE'], 'LOCALHOST');
    assert.equal(
      rosRunEnvironment({ ROS_AUTOMATIC_DISCOVERY_RANGE: 'SUBNET' })['ROS_AUTOMATIC_DISCOVERY_RANGE'],
      'LOCALHOST',
    );
  });

  it("keeps a caller's narrower choice (the container's OFF with rmw_zenoh), its domain and its Cyclone DDS file", () => {
    const env = rosRunEnvironment({
      ROS_AUTOMATIC_DISCOVERY_RANGE: 'OFF',
      ROS_DOMAIN_ID: '7',
      CYCLONEDDS_URI: 'file:///robot.xml',
    });
    assert.equal(env['ROS_AUTOMATIC_DISCOVERY_RANGE'], 'OFF');
    assert.equal(env['ROS_DOMAIN_ID'], '7');
    assert.equal(env['CYCLONEDDS_URI'], 'file:///robot.xml');
  });

  it('gives a run its own domain (0–101) and Cyclone DDS on loopback only', () => {
    const env = rosRunEnvironment({});
    const domain = Number(env['ROS_DOMAIN_ID']);
    assert.ok(Number.isInteger(domain) && domain >= 0 && domain <= 101, String(domain));
    assert.equal(env['CYCLONEDDS_URI'], CYCLONEDDS_LOOPBACK);
    assert.match(CYCLONEDDS_LOOPBACK, /<NetworkInterface name="lo"\/>/);
    assert.match(CYCLONEDDS_LOOPBACK, /<AllowMulticast>false<\/AllowMulticast>/);
  });
});
