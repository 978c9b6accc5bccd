import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AudioPairFrame } from '../../src/protocol/ws-frames.js';
import { PlayAudioBacklog } from '../../src/streams/play-audio/kiosk-writer.js';

const pair = (id: number, audioBytes: number): AudioPairFrame => ({
  kind: 'pair',
  messageId: id,
  meta: `{"id":${id}}`,
  binary: [new Uint8Array(audioBytes)],
});
const size = (id: number, audioBytes: number) => PlayAudioBacklog.sizeOf(pair(id, audioBytes));
const takeAll = (backlog: PlayAudioBacklog) => {
  const taken: number[] = [];
  for (
    let pairOut = backlog.takeIf(() => true);
    pairOut !== undefined;
    pairOut = backlog.takeIf(() => true)
  ) {
    taken.push(pairOut.messageId);
  }
  return taken;
};

describe('a kiosk’s /play_audio backlog', () => {
  it('keeps the newest messages within its cap, dropping the oldest whole, and counts them', () => {
    const backlog = new PlayAudioBacklog(3 * size(1, 100));
    for (let id = 1; id <= 5; id += 1) backlog.push(pair(id, 100));
    assert.equal(backlog.takeDropped(), 2);
    assert.equal(backlog.takeDropped(), 0, 'the count resets once taken');
    assert.deepEqual(takeAll(backlog), [3, 4, 5]);
  });

  it('gives a message out only when it fits, in order', () => {
    const backlog = new PlayAudioBacklog(1_000_000);
    backlog.push(pair(1, 500));
    backlog.push(pair(2, 10));
    assert.equal(
      backlog.takeIf((bytes) => bytes < 100),
      undefined,
      'the oldest does not fit, so nothing overtakes it',
    );
    assert.equal(backlog.takeIf(() => true)?.messageId, 1);
    assert.equal(backlog.length, 1);
  });

  it('drops a message larger than its cap at once', () => {
    const backlog = new PlayAudioBacklog(100);
    backlog.push(pair(1, 1_000));
    assert.equal(backlog.length, 0);
    assert.equal(backlog.takeDropped(), 1);
  });
});
