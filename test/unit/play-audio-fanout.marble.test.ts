import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PlayAudioMsg } from '../../src/ros/port/ros-messages.js';
import type { Observable } from 'rxjs';
import {
  createMessageIdAllocator,
  encodeSharedAudioPair,
  type AudioPairFrame,
  type MessageIdAllocator,
} from '../../src/protocol/ws/index.js';
import { playAudioFanOut, WriteScheduler } from '../../src/streams/play-audio/fan-out.js';
import { audioOf } from '../support/conversation-fakes.js';
import { marbleScheduler } from '../support/marbles.js';

const a: PlayAudioMsg = { emotion: 'happy', text: 'Look left', audio: audioOf(1, 2, 3) };
const b: PlayAudioMsg = { emotion: 'neutral', text: 'Thank you', audio: audioOf() };

/** The fan-out over `topic`, each message handed on as it arrives (the marbles' own frames stand for turns). */
const playAudioPairs = (topic: Observable<PlayAudioMsg>, messageIds: MessageIdAllocator) =>
  playAudioFanOut(topic, {
    bufferBytes: 1024,
    messageIds,
    writes: new WriteScheduler({ totalCapBytes: Number.POSITIVE_INFINITY }),
    schedule: (task) => {
      task();
    },
  });

describe('the /play_audio fan-out (marbles)', () => {
  it('gives every listener the same pairs with one id per message', () => {
    marbleScheduler().run(({ hot, expectObservable }) => {
      const pairs$ = playAudioPairs(hot('-a--b', { a, b }), createMessageIdAllocator(41));
      const expected = { a: encodeSharedAudioPair(41, a), b: encodeSharedAudioPair(42, b) };
      expectObservable(pairs$).toBe('-a--b', expected);
      expectObservable(pairs$).toBe('-a--b', expected);
      expectObservable(pairs$, '---^').toBe('----b', { b: expected.b });
    });
  });

  it('encodes each message once and shares the very same bytes', () => {
    const received: AudioPairFrame[][] = [[], [], []];
    marbleScheduler().run(({ hot, flush }) => {
      const pairs$ = playAudioPairs(hot('-a-b', { a, b }), createMessageIdAllocator());
      for (const list of received) pairs$.subscribe((pair) => list.push(pair));
      flush();
    });
    const [first, ...others] = received;
    assert.deepEqual(
      first?.map((pair) => pair.messageId),
      [0, 1],
    );
    for (const list of others) {
      assert.equal(list.length, 2);
      for (const index of [0, 1]) {
        assert.equal(list[index], first[index], 'same frame object');
        assert.equal(list[index]?.binary, first[index]?.binary, 'same bytes');
      }
    }
  });

  it('subscribes to the topic only while someone listens', () => {
    marbleScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const topic = hot('-a-b-a', { a, b });
      const pairs$ = playAudioPairs(topic, createMessageIdAllocator());
      expectObservable(pairs$, '^--!').toBe('-a-', { a: encodeSharedAudioPair(0, a) });
      expectObservable(pairs$, '--^--!').toBe('---b-', { b: encodeSharedAudioPair(1, b) });
      expectSubscriptions(topic.subscriptions).toBe('^----!');
    });
  });
});
