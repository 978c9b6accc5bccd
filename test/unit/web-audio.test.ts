import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { levelDb, lowPassTaps, StreamingResampler, toInt16 } from '../../web/src/resampler.js';
import { PreRoll, UtteranceBuffer } from '../../web/src/utterance.js';
import { maxSamplesFor } from '../../src/protocol/ws/index.js';
import { encodeWav } from '../../web/src/wav.js';
import { WAV_HEADER_BYTES } from '../../src/protocol/ws/index.js';

const sine = (frequency: number, rate: number, seconds: number, amplitude = 0.5): Float32Array =>
  Float32Array.from(
    { length: Math.round(rate * seconds) },
    (_, index) => amplitude * Math.sin((2 * Math.PI * frequency * index) / rate),
  );

/** Feeds `input` in the worklet's 128-frame blocks and joins the output. */
const resample = (input: Float32Array, from: number, to = 16_000): Int16Array => {
  const resampler = new StreamingResampler(from, to);
  const parts: Int16Array[] = [];
  for (let offset = 0; offset < input.length; offset += 128) {
    parts.push(resampler.push(input.subarray(offset, offset + 128)));
  }
  const all = new Int16Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    all.set(part, offset);
    offset += part.length;
  }
  return all;
};

/** Peak amplitude (0–1) after the filter has settled. */
const peak = (samples: Int16Array): number =>
  samples.subarray(200).reduce((max, sample) => Math.max(max, Math.abs(sample)), 0) / 0x8000;

describe('StreamingResampler', () => {
  for (const rate of [44_100, 48_000, 96_000]) {
    it(`turns one second at ${rate} Hz into 16000 samples, block by block`, () => {
      const output = resample(sine(440, rate, 1), rate);
      assert.ok(Math.abs(output.length - 16_000) <= 1, `got ${output.length}`);
    });
  }

  it('keeps speech frequencies at their level', () => {
    for (const frequency of [200, 1_000, 3_000, 6_000]) {
      const level = peak(resample(sine(frequency, 48_000, 0.5), 48_000));
      assert.ok(Math.abs(level - 0.5) < 0.03, `${frequency} Hz came out at ${level}`);
    }
  });

  it('removes what would fold back into the speech band (above 8 kHz) by at least 40 dB', () => {
    for (const [rate, frequency] of [
      [48_000, 10_000],
      [48_000, 14_000],
      [44_100, 12_000],
    ] as const) {
      const level = peak(resample(sine(frequency, rate, 0.5), rate));
      assert.ok(level < 0.5 / 100, `${frequency} Hz at ${rate} Hz came out at ${level}`);
    }
  });

  it('interpolates when the context runs slower than 16 kHz', () => {
    const output = resample(sine(300, 8_000, 1), 8_000);
    assert.ok(Math.abs(output.length - 16_000) <= 1);
    assert.ok(Math.abs(peak(output) - 0.5) < 0.03);
  });

  it('has unity gain at 0 Hz', () => {
    const taps = lowPassTaps(0.15, 127);
    assert.ok(Math.abs(taps.reduce((sum, tap) => sum + tap, 0) - 1) < 1e-6);
  });
});

describe('sample conversion and level', () => {
  it('clips instead of wrapping', () => {
    assert.equal(toInt16(1), 32767);
    assert.equal(toInt16(-1), -32768);
    assert.equal(toInt16(3), 32767);
    assert.equal(toInt16(-3), -32768);
    assert.equal(toInt16(0), 0);
  });

  it('measures RMS in dBFS', () => {
    assert.equal(levelDb(new Float32Array(128)), -Infinity);
    assert.ok(Math.abs(levelDb(new Float32Array(128).fill(0.1)) - -20) < 1e-5);
  });
});

describe('encodeWav', () => {
  it('writes a 44-byte RIFF header for 16-bit mono PCM and little-endian samples', () => {
    const wav = Buffer.from(encodeWav(Int16Array.from([1, -2, 32767])));
    assert.equal(wav.byteLength, WAV_HEADER_BYTES + 6);
    assert.equal(wav.toString('ascii', 0, 4), 'RIFF');
    assert.equal(wav.readUInt32LE(4), 36 + 6);
    assert.equal(wav.toString('ascii', 8, 16), 'WAVEfmt ');
    assert.equal(wav.readUInt32LE(16), 16);
    assert.equal(wav.readUInt16LE(20), 1);
    assert.equal(wav.readUInt16LE(22), 1);
    assert.equal(wav.readUInt32LE(24), 16_000);
    assert.equal(wav.readUInt32LE(28), 32_000);
    assert.equal(wav.readUInt16LE(32), 2);
    assert.equal(wav.readUInt16LE(34), 16);
    assert.equal(wav.toString('ascii', 36, 40), 'data');
    assert.equal(wav.readUInt32LE(40), 6);
    assert.deepEqual([wav.readInt16LE(44), wav.readInt16LE(46), wav.readInt16LE(48)], [1, -2, 32767]);
  });

  it('sizes utterances to fit a frame limit exactly', () => {
    const samples = maxSamplesFor(8 * 1024 * 1024);
    assert.equal(encodeWav(new Int16Array(samples)).byteLength, 8 * 1024 * 1024);
  });
});

describe('UtteranceBuffer and PreRoll', () => {
  it('stops at its maximum and hands the samples over in order', () => {
    const buffer = new UtteranceBuffer(5);
    assert.equal(buffer.append(Int16Array.from([1, 2, 3])), true);
    assert.equal(buffer.append(Int16Array.from([4, 5, 6])), false);
    assert.equal(buffer.full, true);
    assert.equal(buffer.append(Int16Array.from([7])), false);
    assert.deepEqual([...buffer.take()], [1, 2, 3, 4, 5]);
    assert.equal(buffer.samples, 0);
  });

  it('keeps the most recent whole chunks covering at least its length', () => {
    const preRoll = new PreRoll(4);
    for (const chunk of [[1, 2], [3, 4], [5, 6], [7]]) preRoll.push(Int16Array.from(chunk));
    assert.deepEqual(
      preRoll.take().flatMap((chunk) => [...chunk]),
      [3, 4, 5, 6, 7],
    );
    assert.deepEqual(preRoll.take(), []);
  });
});
