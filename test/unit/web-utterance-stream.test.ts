import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PART_HEADER_BYTES, readPartHeader } from '../../src/protocol/ws/index.js';
import { PART_SAMPLES, UtteranceStream } from '../../web/src/utterance-stream.js';
import { pcmBytes } from '../../web/src/wav.js';

/** What the stream sent: commands parsed, parts as header and samples. */
type Frame =
  | { readonly kind: 'command'; readonly command: Record<string, unknown> }
  | { readonly kind: 'part'; readonly turn: number; readonly sequence: number; readonly samples: number[] };

const socket = (accept: (sent: number) => boolean = () => true) => {
  const frames: Frame[] = [];
  const send = (frame: string | Uint8Array): boolean => {
    if (!accept(frames.length)) return false;
    if (typeof frame === 'string') {
      frames.push({ kind: 'command', command: JSON.parse(frame) as Record<string, unknown> });
      return true;
    }
    const header = readPartHeader(frame);
    assert.ok(header !== undefined);
    const pcm = frame.subarray(PART_HEADER_BYTES);
    const view = new DataView(pcm.buffer, pcm.byteOffset, pcm.byteLength);
    const samples = Array.from({ length: pcm.byteLength / 2 }, (_, index) => view.getInt16(index * 2, true));
    frames.push({ kind: 'part', ...header, samples });
    return true;
  };
  return { frames, send };
};

/** `length` samples counting up from `from`, so every sample says where it came from. */
const ramp = (from: number, length: number): Int16Array =>
  Int16Array.from({ length }, (_, index) => ((from + index) % 30_000) - 15_000);
const parts = (frames: readonly Frame[]) => frames.filter((frame) => frame.kind === 'part');

describe('UtteranceStream', () => {
  it('holds what is recorded until it opens, then sends it in whole parts, in order, and the rest at the end', () => {
    const { frames, send } = socket();
    const stream = new UtteranceStream(send, 16_000 * 60);
    // 20 ms chunks, as the capture worklet posts them: 280 ms before the utterance opens.
    let recorded = 0;
    const record = (chunks: number) => {
      for (let index = 0; index < chunks; index += 1) {
        stream.append(ramp(recorded, 320));
        recorded += 320;
      }
    };
    record(14);
    assert.deepEqual(frames, [], 'nothing before it opens');
    assert.equal(stream.turn, undefined);
    assert.equal(
      stream.open(() => 7),
      true,
    );
    assert.equal(stream.turn, 7);
    assert.deepEqual(frames[0], { kind: 'command', command: { service: 'utterance_start' } });
    // 4,480 samples held: as many whole parts went as they fill; the rest waits for the next.
    assert.equal(parts(frames).length, Math.floor(4_480 / PART_SAMPLES));
    assert.ok(4_480 % PART_SAMPLES > 0);
    record(35);
    const closed = stream.close();
    const sentParts = parts(frames);
    assert.deepEqual(
      sentParts.map((part) => [part.turn, part.sequence]),
      sentParts.map((_, index) => [7, index]),
    );
    // Every part but the last is whole.
    for (const part of sentParts.slice(0, -1)) assert.equal(part.samples.length, PART_SAMPLES);
    assert.deepEqual(
      sentParts.flatMap((part) => part.samples),
      [...ramp(0, recorded)],
      'the parts joined are what was recorded',
    );
    assert.deepEqual(frames[frames.length - 1], {
      kind: 'command',
      command: { service: 'utterance_end', turn: 7, parts: sentParts.length },
    });
    assert.deepEqual(closed, { turn: 7, parts: sentParts.length, bytes: recorded * 2 });
  });

  it('sends 16-bit little-endian PCM without a header', () => {
    assert.deepEqual([...pcmBytes(Int16Array.of(1, -2, 0x1234))], [0x01, 0x00, 0xfe, 0xff, 0x34, 0x12]);
  });

  it('never opens an utterance that is not opened: closing it sends nothing', () => {
    const { frames, send } = socket();
    const stream = new UtteranceStream(send, 16_000);
    stream.append(ramp(0, 3_000));
    assert.equal(stream.close(), undefined);
    assert.deepEqual(frames, []);
  });

  it('stops at its maximum, as the whole-utterance buffer does', () => {
    const { frames, send } = socket();
    const stream = new UtteranceStream(send, 5_000);
    stream.open(() => 1);
    assert.equal(stream.append(ramp(0, 4_000)), true);
    assert.equal(stream.append(ramp(4_000, 4_000)), false);
    assert.equal(stream.append(ramp(8_000, 10)), false);
    assert.equal(stream.samples, 5_000);
    stream.close();
    assert.equal(
      parts(frames).reduce((sum, part) => sum + part.samples.length, 0),
      5_000,
    );
  });

  it('takes a turn only when utterance_start went, and gives up once a frame cannot be sent', () => {
    const refused = socket(() => false);
    let turns = 0;
    const never = new UtteranceStream(refused.send, 16_000);
    assert.equal(
      never.open(() => ++turns),
      false,
    );
    assert.equal(turns, 0);

    // The socket goes after utterance_start and one part.
    const lost = socket((sent) => sent < 2);
    const stream = new UtteranceStream(lost.send, 16_000);
    stream.append(ramp(0, PART_SAMPLES * 3));
    assert.equal(
      stream.open(() => 1),
      false,
    );
    assert.equal(parts(lost.frames).length, 1);
    stream.append(ramp(0, PART_SAMPLES));
    assert.equal(stream.close(), undefined);
    assert.equal(lost.frames.length, 2);
  });
});
