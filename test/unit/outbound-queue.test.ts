import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AudioPairFrame, OutboundFrame } from '../../src/protocol/ws/index.js';
import { Subject } from 'rxjs';
import { ackFrame, createMessageIdAllocator, turnEndFrame } from '../../src/protocol/ws/index.js';
import type { PlayAudioMsg } from '../../src/ros/port/ros-messages.js';
import {
  playAudioFanOut,
  TURN_WRITE_BYTES,
  WriteScheduler,
  type PlayAudioDropReason,
} from '../../src/streams/play-audio/fan-out.js';
import { KioskQueue, LOW_WATER_BYTES, wireBytes } from '../../src/streams/play-audio/outbound-queue.js';

const MIB = 1024 * 1024;
const pair = (id: number, audioBytes: number): AudioPairFrame => ({
  kind: 'pair',
  messageId: id,
  meta: `{"id":${id}}`,
  binary: [new Uint8Array(audioBytes)],
});

/** A kiosk's socket as the queue sees it: what it was written, and what uWS would hold (`reads` or not). */
const kiosk = (scheduler: WriteScheduler, reads: boolean, capBytes = 16 * MIB) => {
  const written: OutboundFrame[] = [];
  let buffered = 0;
  const queue = new KioskQueue(
    {
      capBytes,
      bufferedBytes: () => buffered,
      send: (frame) => {
        written.push(frame);
        if (!reads && frame.kind === 'pair')
          buffered += frame.binary.reduce((sum, part) => sum + part.byteLength, 0);
      },
      writeFailed: () => undefined,
    },
    scheduler,
  );
  const told = () => written.flatMap((frame) => (frame.kind === 'text' ? [frame.text] : []));
  return { queue, written, told, drain: () => (buffered = 0) };
};

/** A scheduler whose turns run only when the test says so, and the drops its queues counted, by reason. */
const manualTurns = (totalCapBytes = 1024 * MIB) => {
  const turns: (() => void)[] = [];
  const dropped: PlayAudioDropReason[] = [];
  const scheduler = new WriteScheduler({
    totalCapBytes,
    schedule: (task) => turns.push(task),
    playAudioDropped: (reason, count) => {
      for (let index = 0; index < count; index += 1) dropped.push(reason);
    },
  });
  const runTurn = (): boolean => {
    const turn = turns.shift();
    turn?.();
    return turn !== undefined;
  };
  return { scheduler, runTurn, dropped };
};

// Issue 51, item 5: a 1 MiB /play_audio to 1,000 kiosks was written in one go, holding the event loop.
describe('the outbound write scheduler', () => {
  it('spreads one 1 MiB pair to 1,000 kiosks over loop turns of at most TURN_WRITE_BYTES', () => {
    const { scheduler, runTurn } = manualTurns();
    const kiosks = Array.from({ length: 1_000 }, () => kiosk(scheduler, true));
    const shared = pair(1, MIB);
    for (const { queue } of kiosks) queue.offer(shared);
    assert.equal(
      kiosks.filter((one) => one.written.length > 0).length,
      0,
      'nothing is written as it is offered',
    );
    const perTurn: number[] = [];
    for (let turn = 0; turn < 2_000 && runTurn(); turn += 1) {
      perTurn.push(
        kiosks.filter((one) => one.written.length > 0).length - perTurn.reduce((a, b) => a + b, 0),
      );
    }
    assert.ok(kiosks.every((one) => one.written.length === 1 && one.written[0] === shared));
    // One kiosk a turn: no turn holds the loop for more than one 1 MiB write.
    assert.equal(TURN_WRITE_BYTES, MIB);
    assert.ok(perTurn.length >= 1_000, `turns: ${perTurn.length}`);
    assert.equal(Math.max(...perTurn), 1, `per turn: ${perTurn.join(',')}`);
  });

  it('writes no more than 1 MiB and one frame in a turn, however small the pairs', () => {
    const { scheduler, runTurn } = manualTurns();
    const kiosks = Array.from({ length: 1_000 }, () => kiosk(scheduler, true));
    const shared = pair(1, 64 * 1024);
    for (const { queue } of kiosks) queue.offer(shared);
    const bytesPerTurn: number[] = [];
    let before = 0;
    for (let turn = 0; turn < 2_000 && runTurn(); turn += 1) {
      const now = kiosks.filter((one) => one.written.length > 0).length * wireBytes(shared);
      bytesPerTurn.push(now - before);
      before = now;
    }
    assert.equal(before, 1_000 * wireBytes(shared), 'every kiosk got the pair');
    assert.ok(
      Math.max(...bytesPerTurn) <= MIB + wireBytes(shared),
      `bytes per turn: ${bytesPerTurn.join(',')}`,
    );
  });

  it('writes a kiosk that does not read only while uWS holds less than LOW_WATER_BYTES, the rest waiting whole', () => {
    const { scheduler, runTurn } = manualTurns();
    const slow = kiosk(scheduler, false);
    for (let id = 0; id < 10; id += 1) slow.queue.offer(pair(id, MIB));
    while (runTurn()) {
      // every turn the scheduler asks for
    }
    assert.equal(slow.written.length, 1, 'one pair in uWS, the other nine wait here');
    assert.ok(LOW_WATER_BYTES < MIB);
    slow.drain();
    slow.queue.drained();
    while (runTurn()) {
      // as above
    }
    assert.equal(slow.written.length, 2);
  });

  it("puts the session's text frames ahead of waiting /play_audio pairs, never ahead of its own frames", () => {
    const { scheduler, runTurn } = manualTurns();
    const slow = kiosk(scheduler, false);
    for (let id = 0; id < 3; id += 1) slow.queue.offer(pair(id, MIB));
    while (runTurn()) {
      // the first pair fills uWS; two wait
    }
    // An ack: only /play_audio pairs wait, so it goes first.
    assert.equal(slow.queue.send(ackFrame('clear_history')), true);
    // The session's answer pair waits behind the pairs already waiting (ids increase as pairs leave);
    // its turn_end waits behind it.
    assert.equal(slow.queue.send(pair(3, 1_000)), true);
    assert.equal(slow.queue.send(turnEndFrame(3, 'answered')), true);
    for (let round = 0; round < 10 && slow.written.length < 6; round += 1) {
      slow.drain();
      slow.queue.drained();
      while (runTurn()) {
        // as above
      }
    }
    const order = slow.written.map((frame) =>
      frame.kind === 'pair'
        ? `pair ${frame.messageId}`
        : frame.kind === 'text'
          ? frame.message.type
          : 'close',
    );
    assert.deepEqual(order, ['pair 0', 'ack', 'pair 1', 'pair 2', 'pair 3', 'turn_end']);
  });

  it("writes a session's text frame at once when only /play_audio pairs wait and uWS holds little", () => {
    const { scheduler } = manualTurns();
    const slow = kiosk(scheduler, false);
    slow.queue.offer(pair(0, 1_000));
    // The pair waits for the scheduler's turn; the ack need not.
    assert.equal(slow.queue.send(ackFrame('clear_history')), true);
    assert.deepEqual(slow.told(), [ackFrame('clear_history').text]);
  });

  it("keeps a slow kiosk's newest pairs within its cap, dropping the oldest whole, and tells it the count", () => {
    const { scheduler, runTurn, dropped } = manualTurns();
    const slow = kiosk(scheduler, false, 3 * wireBytes(pair(0, MIB)));
    for (let id = 1; id <= 6; id += 1) slow.queue.offer(pair(id, MIB));
    assert.deepEqual(dropped, ['slow_kiosk', 'slow_kiosk', 'slow_kiosk']);
    for (let round = 0; round < 4; round += 1) {
      while (runTurn()) {
        // what uWS takes now
      }
      slow.drain();
      slow.queue.drained();
    }
    assert.deepEqual(
      slow.written.map((frame) =>
        frame.kind === 'pair' ? frame.messageId : frame.kind === 'text' ? frame.text : '',
      ),
      ['{"type":"audio_dropped","count":3}', 4, 5, 6],
    );
  });

  it('drops a pair larger than the kiosk cap at once', () => {
    const { scheduler, runTurn, dropped } = manualTurns();
    const one = kiosk(scheduler, true, MIB);
    one.queue.offer(pair(1, 2 * MIB));
    assert.deepEqual(dropped, ['slow_kiosk']);
    assert.equal(one.queue.bytes, 0);
    assert.equal(runTurn(), false, 'nothing to write');
  });

  it('past the process-wide ceiling, the kiosk furthest behind loses its oldest pair first, and is told', () => {
    const { scheduler, runTurn, dropped } = manualTurns(6.5 * MIB);
    const far = kiosk(scheduler, false);
    const near = kiosk(scheduler, false);
    for (let id = 0; id < 5; id += 1) far.queue.offer(pair(id, MIB));
    for (let id = 10; id < 12; id += 1) near.queue.offer(pair(id, MIB));
    // The fan-out keeps the ceiling once a message is in every queue.
    scheduler.keepWithinCeiling();
    assert.ok(scheduler.bytes <= 6.5 * MIB, String(scheduler.bytes));
    assert.deepEqual(dropped, ['outbound_full'], 'one pair dropped, for the kiosk furthest behind');
    while (runTurn()) {
      // write what uWS takes: one pair each
    }
    far.drain();
    far.queue.drained();
    while (runTurn()) {
      // as above
    }
    assert.deepEqual(far.told(), ['{"type":"audio_dropped","count":1}']);
    const ids = far.written.flatMap((frame) => (frame.kind === 'pair' ? [frame.messageId] : []));
    // All seven waited (nothing is written before a turn): the far kiosk's oldest, pair 0, was dropped.
    assert.deepEqual(ids, [1, 2]);
    assert.ok(near.written.some((frame) => frame.kind === 'pair' && frame.messageId === 10));
    near.drain();
    near.queue.drained();
    while (runTurn()) {
      // the nearer kiosk's second pair
    }
    assert.deepEqual(near.told(), [], 'the nearer kiosk lost nothing');
    assert.deepEqual(
      near.written.flatMap((frame) => (frame.kind === 'pair' ? [frame.messageId] : [])),
      [10, 11],
    );
  });

  it('the fan-out keeps the ceiling after each message it puts in the queues: the furthest behind loses its oldest', () => {
    const { scheduler, dropped } = manualTurns(2.5 * MIB);
    const topic = new Subject<PlayAudioMsg>();
    const pairs$ = playAudioFanOut(topic, {
      bufferBytes: 64 * MIB,
      messageIds: createMessageIdAllocator(),
      writes: scheduler,
      schedule: (task) => {
        task();
      },
    });
    const far = kiosk(scheduler, false);
    const near = kiosk(scheduler, false);
    pairs$.subscribe(far.queue.offer);
    const message = (text: string): PlayAudioMsg => ({
      emotion: 'neutral',
      text,
      audio: new Uint8Array(MIB),
    });
    topic.next(message('m0'));
    topic.next(message('m1'));
    pairs$.subscribe(near.queue.offer);
    topic.next(message('m2'));
    topic.next(message('m3'));
    // Each pair counts once, however many queues hold it: m0 and then m1 went, both the far kiosk's alone.
    assert.deepEqual(dropped, ['outbound_full', 'outbound_full']);
    assert.ok(scheduler.bytes <= 2.5 * MIB, String(scheduler.bytes));
    assert.equal(far.queue.bytes, near.queue.bytes, 'both hold m2 and m3');
  });
});
