import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { textFrame, type OutboundFrame } from '../../src/protocol/ws/index.js';
import { WriteScheduler } from '../../src/streams/play-audio/fan-out.js';
import { KioskQueue, LOW_WATER_BYTES } from '../../src/streams/play-audio/outbound-queue.js';

const MIB = 1024 * 1024;

/** A session's queue on a socket whose send buffer holds `held()` bytes, counting how often it is read. */
const outboxOn = (held: () => number) => {
  const sent: OutboundFrame[] = [];
  let reads = 0;
  const turns: (() => void)[] = [];
  const scheduler = new WriteScheduler({ totalCapBytes: 64 * MIB, schedule: (task) => turns.push(task) });
  const outbox = new KioskQueue(
    {
      capBytes: 2 * MIB,
      bufferedBytes: () => {
        reads += 1;
        return held();
      },
      send: (frame) => sent.push(frame),
      writeFailed: () => undefined,
    },
    scheduler,
  );
  return { outbox, sent, turns, reads: () => reads };
};

const ack = textFrame({ type: 'ack', service: 'cancel' });

describe("a session's frames through the kiosk's queue", () => {
  it("reads the socket's send buffer once per frame it writes", () => {
    const { outbox, sent, reads } = outboxOn(() => 0);
    for (let index = 0; index < 10; index += 1) assert.equal(outbox.send(ack), true);
    assert.equal(sent.length, 10, 'written at once');
    assert.equal(reads(), 10);
  });

  it('reads the buffer again before a frame when the last write left it at LOW_WATER_BYTES or more', () => {
    let held = LOW_WATER_BYTES;
    const { outbox, sent, turns, reads } = outboxOn(() => held);
    assert.equal(outbox.send(ack), true);
    assert.equal(reads(), 1);
    // The socket drained since: the next frame is written at once, not queued on the last figure.
    held = 0;
    assert.equal(outbox.send(ack), true);
    assert.equal(sent.length, 2);
    assert.equal(turns.length, 0, 'nothing waits for a write turn');
    assert.equal(reads(), 3);
  });
});
