import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createConversationHub } from '../../src/actors/conversation-hub.js';
import { Gauge } from '../../src/actors/conversation-gauges.js';
import { sharedByteBudget } from '../../src/actors/budgets.js';
import { createRosCalls } from '../../src/ros/port/ros-calls.js';
import {
  type OutboundFrame,
  DEFAULT_LIMITS,
  defaultAudioBytesPerAddress,
} from '../../src/protocol/ws/index.js';
import { FakeConversationPort } from '../support/conversation-fakes.js';
import { callTimeouts } from '../support/port-calls.js';

/**
 * The process-wide audio budget shared per client address: a few addresses cannot take it all, and what
 * an address held is given back whole.
 */

describe('the audio budget, shared per address', () => {
  it('lets each key hold its share, the others the rest; a release gives the share back', () => {
    const gauge = new Gauge();
    const budget = sharedByteBudget(gauge, 100, 30);
    const a = budget.budgetFor('10.0.0.1');
    const b = budget.budgetFor('10.0.0.2');
    const releases = [a.take(20), a.take(10)];
    assert.ok(releases.every((release) => release !== undefined));
    assert.equal(a.shortfall(1), 'share', 'a holds its share');
    assert.equal(a.take(1), undefined);
    assert.equal(b.shortfall(30), undefined, 'b is not held up by a');
    const fromB = b.take(30);
    const fromC = budget.budgetFor('10.0.0.3').take(30);
    assert.ok(fromB !== undefined && fromC !== undefined);
    assert.equal(budget.budgetFor('10.0.0.4').shortfall(11), 'limit', 'past the whole budget: the limit');
    assert.equal(gauge.value, 90);
    for (const release of releases) release();
    releases[0]?.();
    assert.equal(budget.heldBy('10.0.0.1'), 0, 'released twice, given back once');
    assert.equal(gauge.value, 60);
    assert.equal(a.shortfall(30), undefined);
  });

  it('gives one address a sixteenth by default, never less than a whole frame', () => {
    assert.equal(DEFAULT_LIMITS.maxQueuedAudioBytesPerAddress, 16 * 1024 * 1024);
    assert.equal(defaultAudioBytesPerAddress(4 * 1024 * 1024, 2 * 1024 * 1024), 2 * 1024 * 1024);
    assert.equal(defaultAudioBytesPerAddress(2 * 1024 * 1024, 2 * 1024 * 1024), 2 * 1024 * 1024);
  });

  it("answers a frame past its address's share busy, naming the share; another address's is queued", () => {
    const port = new FakeConversationPort();
    const limits = { ...DEFAULT_LIMITS, maxQueuedAudioBytes: 1_000, maxQueuedAudioBytesPerAddress: 250 };
    const hub = createConversationHub({
      port,
      calls: createRosCalls({
        port,
        timeoutsMs: callTimeouts(limits.chatTimeoutMs, limits.clearHistoryTimeoutMs),
      }),
      limits,
    });
    const open = (address: string) => {
      const frames: OutboundFrame[] = [];
      const session = hub.openSession((frame) => void frames.push(frame), {}, address);
      assert.ok(session !== undefined);
      const texts = () =>
        frames.flatMap((frame) =>
          frame.kind === 'text' ? [JSON.parse(frame.text) as Record<string, unknown>] : [],
        );
      return { session, texts };
    };
    const [first, second] = [open('10.0.0.1'), open('10.0.0.1')];
    const other = open('10.0.0.2');
    first.session.send({ type: 'ws.binary', data: new Uint8Array(200) });
    second.session.send({ type: 'ws.binary', data: new Uint8Array(100) });
    other.session.send({ type: 'ws.binary', data: new Uint8Array(200) });
    assert.deepEqual(second.texts().slice(1), [
      {
        type: 'error',
        code: 'busy',
        message:
          'audio queued by the sessions of this address would exceed its share of 250 bytes; chat dropped',
        turn: 1,
      },
      { type: 'turn_end', turn: 1, outcome: 'refused' },
    ]);
    assert.equal(port.calls.length, 2, "the first session's turn and the other address's");
    assert.equal(hub.readGauges().queuedAudioBytes, 400);
    hub.close();
  });
});
