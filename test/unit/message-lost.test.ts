import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lostInEvent } from '../../src/ros/rclnodejs/message-lost.js';

describe("the middleware's message-lost event", () => {
  it('reads the newly lost count of rmw_message_lost_status_t, whatever its number type', () => {
    assert.equal(lostInEvent({ total_count: 12, total_count_change: 3 }), 3);
    assert.equal(lostInEvent({ total_count: 12n, total_count_change: 4n }), 4);
    assert.equal(lostInEvent({ totalCountChange: 2 }), 2);
  });

  it('counts nothing for an event it cannot read', () => {
    const unreadable: unknown[] = [
      undefined,
      null,
      7,
      'lost',
      {},
      { total_count_change: -1 },
      { total_count_change: NaN },
    ];
    unreadable.forEach((status, index) => {
      assert.equal(lostInEvent(status), 0, `case ${index}`);
    });
  });
});
