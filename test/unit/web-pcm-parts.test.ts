import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PcmPartDecoder, readPcmWavHeader } from '../../web/src/pcm-parts.js';
import { encodeWav } from '../../web/src/wav.js';

const ramp = (length: number): Int16Array =>
  Int16Array.from({ length }, (_, index) => ((index * 37) % 0x10000) - 0x8000);
const wav = (samples: Int16Array): Uint8Array => new Uint8Array(encodeWav(samples));
const asInt16 = (floats: Float32Array): number[] => [...floats].map((value) => Math.round(value * 0x8000));

/** `bytes` cut at `cuts` (byte offsets), as the simulation cuts an echo into parts. */
const cut = (bytes: Uint8Array, cuts: number[]): Uint8Array[] =>
  [0, ...cuts].map((start, index) => bytes.slice(start, [...cuts, bytes.length][index]));

describe('readPcmWavHeader', () => {
  it('reads the kiosk’s own WAV', () => {
    assert.deepEqual(readPcmWavHeader(wav(ramp(10))), {
      format: { sampleRate: 16_000, channels: 1 },
      dataOffset: 44,
      dataBytes: 20,
    });
  });

  it('walks past other chunks to the data', () => {
    const plain = wav(ramp(4));
    const extra = new Uint8Array([...new TextEncoder().encode('LIST'), 3, 0, 0, 0, 1, 2, 3, 0]);
    const withList = new Uint8Array([...plain.subarray(0, 36), ...extra, ...plain.subarray(36)]);
    assert.equal(readPcmWavHeader(withList)?.dataOffset, 44 + extra.length);
  });

  it('refuses what is not 16-bit PCM WAV', () => {
    const float = wav(ramp(4));
    float[20] = 3;
    const eightBit = wav(ramp(4));
    eightBit[34] = 8;
    for (const bytes of [
      new Uint8Array([0xff, 0xfb, 0x90, 0x64]),
      float,
      eightBit,
      wav(ramp(4)).slice(0, 30),
    ]) {
      assert.equal(readPcmWavHeader(bytes), undefined);
    }
  });
});

describe('PcmPartDecoder', () => {
  it('decodes a whole WAV exactly', () => {
    const samples = ramp(1_000);
    const audio = new PcmPartDecoder().decode(wav(samples), undefined);
    assert.equal(audio?.frames, 1_000);
    assert.deepEqual(asInt16(audio.channels[0]!), [...samples]);
  });

  it('joins the parts of one turn back into the utterance, a sample split between parts included', () => {
    const samples = ramp(3_001);
    // The first cut falls inside the header's data, the others split samples in half.
    for (const cuts of [
      [1_000, 2_001, 4_003],
      [44, 45, 3_000],
      [2_015, 4_029, 6_043],
    ]) {
      const decoder = new PcmPartDecoder();
      const decoded = cut(wav(samples), cuts).map((part) => decoder.decode(part, 7));
      assert.ok(decoded.every((part) => part !== undefined));
      const joined = decoded.flatMap((part) => asInt16(part.channels[0]!));
      assert.deepEqual(joined, [...samples], `cut at ${cuts.join(', ')}`);
    }
  });

  it('continues only the same turn: a headerless part of another turn or of none is not PCM it knows', () => {
    const decoder = new PcmPartDecoder();
    const [first, second] = cut(wav(ramp(100)), [100]);
    decoder.decode(first!, 1);
    assert.equal(decoder.decode(second!, 2), undefined);
    decoder.decode(first!, 3);
    assert.equal(decoder.decode(second!, undefined), undefined);
    decoder.decode(first!, 4);
    decoder.reset();
    assert.equal(decoder.decode(second!, 4), undefined);
  });

  it('reads a part whose header promises more data than it holds', () => {
    const [first] = cut(wav(ramp(100)), [64]);
    assert.equal(new PcmPartDecoder().decode(first!, 1)?.frames, 10);
  });
});
