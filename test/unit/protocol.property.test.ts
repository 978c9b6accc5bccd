import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  readAudioFrame,
  encodeAudioBinary,
  parseClientText,
  parseServerMessage,
  encodeAudioPair,
  ERROR_CODES,
  MAX_MESSAGE_ID,
} from '../../src/protocol/ws/index.js';
import fc from 'fast-check';
import { fuzzRuns } from '../support/fuzz-runs.js';

const LIMIT = 4096;

describe('WebSocket protocol properties (fast-check)', () => {
  it('parseClientText never throws and always answers a command or a documented error code', () => {
    const anyText = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.json({ maxDepth: 3 }),
      fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify({ service: value })),
      fc
        .record(
          {
            service: fc.constantFrom('clear_history', 'CLEAR_HISTORY', ''),
            extra: fc.jsonValue({ maxDepth: 2 }),
          },
          { requiredKeys: ['service'] },
        )
        .map((value) => JSON.stringify(value)),
    );
    fc.assert(
      fc.property(
        fc.oneof(
          anyText,
          anyText.map((text) => new TextEncoder().encode(text)),
          fc.uint8Array({ maxLength: 300 }),
        ),
        (data) => {
          const result = parseClientText(data, LIMIT);
          if (result.ok) {
            assert.deepEqual(result.command, { service: 'clear_history' });
          } else {
            assert.ok(result.code in ERROR_CODES, result.code);
            assert.ok(result.message.length > 0);
          }
        },
      ),
      { numRuns: fuzzRuns(500) },
    );
  });

  it('accepts exactly the frames within the text limit, at and around it', () => {
    fc.assert(
      fc.property(fc.integer({ min: -3, max: 3 }), fc.integer({ min: 32, max: 4096 }), (delta, limit) => {
        const base = '{"service":"clear_history","p":""}';
        const size = Math.max(base.length, limit + delta);
        const text = `{"service":"clear_history","p":"${'x'.repeat(size - base.length)}"}`;
        assert.equal(text.length, size);
        const result = parseClientText(text, limit);
        if (size > limit) assert.equal(!result.ok && result.code, 'text_frame_too_large');
        else assert.equal(!result.ok && result.code, 'invalid_command'); // "p" is an unknown field
      }),
      { numRuns: fuzzRuns(300) },
    );
  });

  it('audio binary frames round-trip any id and payload, big-endian', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: MAX_MESSAGE_ID }),
        fc.uint8Array({ maxLength: 512 }),
        (messageId, audio) => {
          const frame = encodeAudioBinary(messageId, audio);
          assert.equal(frame.byteLength, 4 + audio.byteLength);
          assert.equal(Buffer.from(frame).readUInt32BE(0), messageId);
          const read = readAudioFrame(frame.slice().buffer);
          assert.equal(read?.messageId, messageId);
          assert.deepEqual(new Uint8Array(read.audio), audio);
        },
      ),
      { numRuns: fuzzRuns(300) },
    );
  });

  it('audio metadata frames are valid protocol messages for any emotion and text', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: MAX_MESSAGE_ID }),
        fc.string(),
        fc.string(),
        (messageId, emotion, text) => {
          const pair = encodeAudioPair(messageId, { emotion, text, audio: new Uint8Array() });
          assert.deepEqual(parseServerMessage(pair.meta), { type: 'audio', emotion, text, messageId });
        },
      ),
      { numRuns: fuzzRuns(300) },
    );
  });

  it('refuses message ids outside unsigned 32 bits', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ max: -1 }),
          fc.integer({ min: 1, max: 2 ** 31 - 1 }).map((excess) => MAX_MESSAGE_ID + excess),
          fc.double({ noInteger: true }),
        ),
        (messageId) => {
          assert.throws(() => encodeAudioBinary(messageId, new Uint8Array()), RangeError);
        },
      ),
      { numRuns: fuzzRuns(200) },
    );
  });
});
