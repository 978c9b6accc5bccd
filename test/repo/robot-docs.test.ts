import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  ROS_ACTIONS,
  ROS_MICROPHONE_SERVICE,
  ROS_MICROPHONE_STATE_TOPIC,
  ROS_HEARD_TOPIC,
  ROS_PLAY_AUDIO_TOPIC,
  ROS_SERVICES,
  ROS_TRANSCRIPT_TOPIC,
  ROS_UTTERANCE_AUDIO_TOPIC,
} from '../../src/ros/port/ros-port.js';
import { markdownTableRows } from '../support/markdown-table.js';

const rows = markdownTableRows(readFileSync(new URL('../../docs/robot.md', import.meta.url), 'utf8'));

describe('docs/robot.md, "Connect your robot"', () => {
  it('lists every service, topic and action the bridge uses or provides, with its type, once', () => {
    const used = [
      ...Object.values(ROS_SERVICES),
      ...Object.values(ROS_ACTIONS),
      ROS_PLAY_AUDIO_TOPIC,
      ROS_MICROPHONE_SERVICE,
      ROS_MICROPHONE_STATE_TOPIC,
      ROS_UTTERANCE_AUDIO_TOPIC,
      ROS_TRANSCRIPT_TOPIC,
      ROS_HEARD_TOPIC,
    ];
    for (const { name, type } of used) {
      const matching = rows.filter((cells) => cells[0] === `\`${name}\``);
      assert.equal(matching.length, 1, `one row for ${name}`);
      const [, , typeCell, , qosCell] = matching[0] ?? [];
      assert.equal(typeCell, `\`${type}\``, `the type of ${name}`);
      assert.ok(qosCell !== undefined && qosCell !== '', `the QoS of ${name}`);
    }
    // Header, separator, and one row per interface: nothing listed that the bridge does not use.
    assert.equal(rows.length, used.length + 2);
  });

  it('asks speech publishers for reliable + keep all, as the reference nodes publish', () => {
    const qosOf = (name: string) => rows.find((cells) => cells[0] === `\`${name}\``)?.[4] ?? '';
    assert.match(qosOf(ROS_PLAY_AUDIO_TOPIC.name), /reliable, keep all/);
    assert.match(qosOf(ROS_ACTIONS.converse.name), /feedback \(the parts\): reliable, keep all/);
    assert.match(qosOf(ROS_MICROPHONE_STATE_TOPIC.name), /transient local/);
  });

  it("states the streamed conversation's topics with the depths the bridge uses, reliable and volatile", () => {
    const row = (name: string) => rows.find((cells) => cells[0] === `\`${name}\``) ?? [];
    for (const topic of [ROS_UTTERANCE_AUDIO_TOPIC, ROS_TRANSCRIPT_TOPIC, ROS_HEARD_TOPIC]) {
      const [, , , bridgeCell = '', qosCell = ''] = row(topic.name);
      assert.match(bridgeCell, new RegExp(`reliable, keep last ${topic.depth}, volatile`), topic.name);
      assert.match(qosCell, /\*\*reliable\*\*, volatile/, topic.name);
    }
  });
});
