import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeAudioBinary, type AudioMessage } from '../../src/protocol/ws/index.js';
import { reconnectDelayMs } from '../../web/src/backoff.js';
import { FACES, KNOWN_EMOTIONS, resolveEmotion } from '../../web/src/emotions.js';
import { FramePairer } from '../../web/src/frame-pairer.js';
import { DEFAULT_VAD, VoiceActivityDetector, type VadEvent } from '../../web/src/vad.js';

describe('reconnectDelayMs', () => {
  const options = { baseMs: 500, capMs: 10_000 };

  it('doubles per attempt, keeps half of each delay fixed and never passes the cap', () => {
    const low = (attempt: number) => reconnectDelayMs(attempt, () => 0, options);
    const high = (attempt: number) => reconnectDelayMs(attempt, () => 0.999999, options);
    assert.deepEqual([0, 1, 2, 3].map(low), [250, 500, 1_000, 2_000]);
    assert.deepEqual([0, 1, 2, 3].map(high), [500, 1_000, 2_000, 4_000]);
    for (const attempt of [5, 6, 50, 10_000]) {
      assert.equal(low(attempt), 5_000);
      assert.equal(high(attempt), 10_000);
    }
  });

  it('spreads kiosks that retry at the same attempt', () => {
    const delays = new Set([0.1, 0.4, 0.7].map((r) => reconnectDelayMs(4, () => r, options)));
    assert.equal(delays.size, 3);
  });
});

describe('FramePairer', () => {
  const meta = (messageId: number): AudioMessage => ({
    type: 'audio',
    emotion: 'happy',
    text: 't',
    messageId,
  });
  const binary = (messageId: number, bytes: number[]) => {
    const frame = encodeAudioBinary(messageId, Uint8Array.from(bytes));
    return frame.buffer.slice(frame.byteOffset, frame.byteOffset + frame.byteLength) as ArrayBuffer;
  };

  it('joins a binary frame to the metadata with the same id, read big-endian', () => {
    const pairer = new FramePairer();
    pairer.meta(meta(0x01020304));
    const result = pairer.binary(binary(0x01020304, [9, 8, 7]));
    assert.equal(result.kind, 'pair');
    assert.equal(result.pair.meta.messageId, 0x01020304);
    assert.deepEqual([...new Uint8Array(result.pair.audio)], [9, 8, 7]);
  });

  it('drops binary frames without metadata, and frames shorter than the header', () => {
    const pairer = new FramePairer();
    assert.deepEqual(pairer.binary(binary(5, [1])), { kind: 'orphan', messageId: 5 });
    assert.deepEqual(pairer.binary(new ArrayBuffer(3)), { kind: 'malformed' });
    pairer.meta(meta(6));
    pairer.clear();
    assert.deepEqual(pairer.binary(binary(6, [])), { kind: 'orphan', messageId: 6 });
  });

  it('holds a bounded number of waiting metadata frames, evicting the oldest', () => {
    const pairer = new FramePairer(2);
    assert.equal(pairer.meta(meta(1)), undefined);
    assert.equal(pairer.meta(meta(2)), undefined);
    assert.equal(pairer.meta(meta(3))?.messageId, 1);
    assert.equal(pairer.binary(binary(1, [])).kind, 'orphan');
    assert.equal(pairer.binary(binary(3, [])).kind, 'pair');
  });
});

describe('VoiceActivityDetector', () => {
  const run = (levels: readonly number[], blockMs = 20): (VadEvent | undefined)[] => {
    const vad = new VoiceActivityDetector(DEFAULT_VAD);
    return levels.map((level) => vad.update(level, blockMs));
  };
  const loud = -20;
  const quiet = -60;
  const repeat = (level: number, ms: number) => Array<number>(ms / 20).fill(level);

  it('starts after sustained voice and ends after the hangover', () => {
    const events = run([...repeat(loud, 600), ...repeat(quiet, 1_000)]);
    const startAt = events.indexOf('start');
    const endAt = events.indexOf('end');
    assert.equal(startAt, DEFAULT_VAD.startMs / 20 - 1);
    assert.equal(endAt, 600 / 20 + DEFAULT_VAD.hangoverMs / 20 - 1);
    assert.equal(events.filter((event) => event !== undefined).length, 2);
  });

  it('ignores a click shorter than the start time', () => {
    assert.ok(run([...repeat(loud, 60), ...repeat(quiet, 2_000)]).every((event) => event === undefined));
  });

  it('keeps one utterance across a pause shorter than the hangover', () => {
    const events = run([
      ...repeat(loud, 400),
      ...repeat(quiet, 600),
      ...repeat(loud, 400),
      ...repeat(quiet, 1_000),
    ]);
    assert.deepEqual(
      events.filter((event) => event !== undefined),
      ['start', 'end'],
    );
  });

  it('discards an utterance with too little voice', () => {
    const events = run([...repeat(loud, 200), ...repeat(quiet, 1_000)]);
    assert.deepEqual(
      events.filter((event) => event !== undefined),
      ['start', 'discard'],
    );
  });

  it('is sure of an utterance once it has the voice that keeps it from being discarded', () => {
    const vad = new VoiceActivityDetector(DEFAULT_VAD);
    const confirmedAfter = repeat(loud, 600).findIndex((level) => {
      vad.update(level, 20);
      return vad.confirmed;
    });
    assert.equal(confirmedAfter, DEFAULT_VAD.minVoiceMs / 20 - 1);
    // A pause does not take it back; the end that follows is `end`, never `discard`.
    const events = repeat(quiet, 1_000).map((level) => vad.update(level, 20));
    assert.deepEqual(
      events.filter((event) => event !== undefined),
      ['end'],
    );
    assert.equal(vad.confirmed, false);
  });

  it('follows a changed threshold', () => {
    const vad = new VoiceActivityDetector(DEFAULT_VAD);
    vad.setThreshold(-10);
    const events = repeat(loud, 600).map((level) => vad.update(level, 20));
    assert.ok(events.every((event) => event === undefined));
  });
});

describe('emotions', () => {
  it('draws every known emotion and falls back to neutral for anything else', () => {
    for (const emotion of KNOWN_EMOTIONS) {
      assert.deepEqual(resolveEmotion(emotion), { name: emotion, known: true });
      assert.ok(FACES[emotion].mouth.startsWith('M'));
    }
    assert.deepEqual(resolveEmotion(' Happy '), { name: 'happy', known: true });
    assert.deepEqual(resolveEmotion('euphoric'), { name: 'neutral', known: false });
    assert.deepEqual(resolveEmotion(''), { name: 'neutral', known: false });
  });

  it('gives each known emotion a face of its own', () => {
    const faces = new Set(KNOWN_EMOTIONS.map((emotion) => JSON.stringify(FACES[emotion])));
    assert.equal(faces.size, KNOWN_EMOTIONS.length);
  });
});
