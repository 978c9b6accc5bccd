import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  readAudioFrame,
  createMessageIdAllocator,
  ackFrame,
  encodeAudioBinary,
  encodeAudioPair,
  encodeSharedAudioPair,
  errorFrame,
  parseClientText,
  parseServerMessage,
  serializeServerMessage,
  AUDIO_HEADER_BYTES,
  ClientCommandSchema,
  CLOSE_CODES,
  DEFAULT_LIMITS,
  ERROR_CODE_NAMES,
  ERROR_CODES,
  MAX_MESSAGE_ID,
  ServerMessageSchema,
  type ServerMessage,
} from '../../src/protocol/ws/index.js';
import * as v from 'valibot';
import { RosTimeoutError } from '../../src/ros/port/ros-port.js';
import { EXAMPLE_FRAMES } from '../support/ws-examples.js';
import { LIMIT_DESCRIPTIONS } from '../support/ws-limits.js';

const LIMIT = DEFAULT_LIMITS.maxTextFrameBytes;

describe('server messages', () => {
  const messages: ServerMessage[] = [
    {
      type: 'state',
      emotion: 'neutral',
      text: '',
      microphone: { enabled: true },
      limits: { utteranceMs: 65_534 },
    },
    { type: 'audio', emotion: 'happy', text: 'Grüß Gott 👋', messageId: MAX_MESSAGE_ID },
    { type: 'microphone', enabled: false },
    { type: 'ack', service: 'clear_history' },
    { type: 'error', code: 'busy', message: 'wait' },
  ];

  for (const message of messages) {
    it(`round-trips a ${message.type} message`, () => {
      assert.deepEqual(parseServerMessage(serializeServerMessage(message)), message);
    });
  }

  it('puts emotion and text at the top level of the initial state', () => {
    const text = serializeServerMessage(messages[0]!);
    assert.equal(
      text,
      '{"type":"state","emotion":"neutral","text":"","microphone":{"enabled":true},"limits":{"utteranceMs":65534}}',
    );
  });

  it('rejects off-protocol server messages', () => {
    assert.throws(() => parseServerMessage('{"type":"audio","emotion":"x","text":"y","messageId":-1}'));
    assert.throws(() =>
      parseServerMessage('{"type":"audio","emotion":"x","text":"y","messageId":4294967296}'),
    );
    assert.throws(() => parseServerMessage('{"type":"error","code":"nope","message":""}'));
  });

  it('builds ack and error frames that carry both the message and its text', () => {
    const ack = ackFrame('clear_history');
    assert.equal(ack.text, '{"type":"ack","service":"clear_history"}');
    const error = errorFrame('microphone_disabled');
    assert.deepEqual(JSON.parse(error.text), error.message);
    assert.equal(
      error.message.type === 'error' ? error.message.message : '',
      ERROR_CODES.microphone_disabled.description,
    );
  });
});

describe('binary audio frames', () => {
  it('heads the audio with the message id, big-endian', () => {
    const frame = encodeAudioBinary(0x01020304, Uint8Array.of(9, 8));
    assert.deepEqual([...frame], [1, 2, 3, 4, 9, 8]);
  });

  it('encodes the largest id and an empty audio', () => {
    assert.deepEqual([...encodeAudioBinary(MAX_MESSAGE_ID, new Uint8Array(0))], [255, 255, 255, 255]);
  });

  it('encodes what the kiosk reads (readAudioFrame of the wire module)', () => {
    const encoded = encodeAudioBinary(77, Uint8Array.of(1, 2, 3));
    const read = readAudioFrame(encoded.slice().buffer);
    assert.deepEqual(read && { messageId: read.messageId, audio: [...new Uint8Array(read.audio)] }, {
      messageId: 77,
      audio: [1, 2, 3],
    });
    assert.equal(readAudioFrame(Uint8Array.of(0, 0, 1).buffer), undefined);
  });

  it('refuses ids outside 32 bits', () => {
    assert.throws(() => encodeAudioBinary(MAX_MESSAGE_ID + 1, new Uint8Array(0)), RangeError);
    assert.throws(() => encodeAudioBinary(-1, new Uint8Array(0)), RangeError);
    assert.throws(() => encodeAudioBinary(1.5, new Uint8Array(0)), RangeError);
  });

  it('pairs metadata and binary under the same id', () => {
    const audio = Uint8Array.of(7);
    const pair = encodeAudioPair(5, { emotion: 'sad', text: 'bye', audio });
    assert.deepEqual(JSON.parse(pair.meta), { type: 'audio', emotion: 'sad', text: 'bye', messageId: 5 });
    const [header, fragment] = pair.binary;
    assert.equal(readAudioFrame(header.slice().buffer)?.messageId, 5);
    assert.equal(header.byteLength, AUDIO_HEADER_BYTES);
    assert.equal(fragment, audio, 'the audio itself, not a copy: the transport writes it after the header');
  });

  it('builds a shared pair (fan-out) as one whole binary frame with the same bytes', () => {
    const content = { emotion: 'sad', text: 'bye', audio: Uint8Array.of(7) };
    const shared = encodeSharedAudioPair(5, content);
    assert.equal(shared.meta, encodeAudioPair(5, content).meta);
    assert.equal(shared.binary.length, 1);
    assert.deepEqual(Buffer.concat(shared.binary), Buffer.concat(encodeAudioPair(5, content).binary));
    assert.deepEqual(Buffer.concat(shared.binary), Buffer.from(encodeAudioBinary(5, content.audio)));
  });
});

describe('message ids', () => {
  it('increase by one and wrap from 0xFFFFFFFF to 0', () => {
    const ids = createMessageIdAllocator(MAX_MESSAGE_ID - 1);
    assert.deepEqual([ids.next(), ids.next(), ids.next(), ids.next()], [0xfffffffe, 0xffffffff, 0, 1]);
  });

  it('refuses a first id outside 32 bits', () => {
    assert.throws(() => createMessageIdAllocator(MAX_MESSAGE_ID + 1), RangeError);
  });
});

describe('client text frames', () => {
  it('accepts clear_history', () => {
    assert.deepEqual(parseClientText('{"service":"clear_history"}', LIMIT), {
      ok: true,
      command: { service: 'clear_history' },
    });
  });

  it('accepts the same command as UTF-8 bytes', () => {
    const bytes = new TextEncoder().encode('{"service":"clear_history"}');
    assert.equal(parseClientText(bytes, LIMIT).ok, true);
  });

  const failures: [label: string, data: string | Uint8Array, code: string, messagePart: string][] = [
    ['broken JSON', '{"service":', 'invalid_json', ''],
    ['invalid UTF-8', Uint8Array.of(0x7b, 0xff, 0x7d), 'invalid_json', 'UTF-8'],
    ['a JSON string', '"clear_history"', 'invalid_command', 'JSON object'],
    ['a JSON array', '[{"service":"clear_history"}]', 'invalid_command', 'JSON object'],
    ['null', 'null', 'invalid_command', 'JSON object'],
    ['a missing service', '{}', 'invalid_command', '"service" is required'],
    ['a numeric service', '{"service":3}', 'invalid_command', 'service must be a string'],
    ['an unknown service', '{"service":"reboot"}', 'unknown_service', '"reboot"'],
    [
      'an unknown field',
      '{"service":"clear_history","force":true}',
      'invalid_command',
      'unknown field "force"',
    ],
  ];
  for (const [label, data, code, messagePart] of failures) {
    it(`answers ${label} with ${code}`, () => {
      const result = parseClientText(data, LIMIT);
      if (result.ok) assert.fail('expected a failure');
      assert.equal(result.code, code);
      assert.ok(result.message.includes(messagePart), result.message);
    });
  }

  it('enforces the text frame limit in bytes, not characters', () => {
    // 'é' is 2 bytes in UTF-8: a frame of exactly `limit` characters ending in it is limit + 1 bytes.
    const base = '{"service":"clear_history"}';
    const atLimit = base + ' '.repeat(LIMIT - base.length);
    assert.equal(parseClientText(atLimit, LIMIT).ok, true);
    const overByMultibyte = base + ' '.repeat(LIMIT - base.length - 1) + 'é';
    assert.equal(overByMultibyte.length, LIMIT);
    const result = parseClientText(overByMultibyte, LIMIT);
    assert.deepEqual(result.ok ? undefined : result.code, 'text_frame_too_large');
    const bytesOver = new Uint8Array(LIMIT + 1).fill(0x20);
    assert.deepEqual(parseClientText(bytesOver, LIMIT).ok, false);
  });

  it('derives command types from the schema', () => {
    assert.equal(v.safeParse(ClientCommandSchema, { service: 'clear_history' }).success, true);
    assert.equal(v.safeParse(ClientCommandSchema, { service: 'x' }).success, false);
  });
});

describe('protocol tables', () => {
  it('shows in its chat_timeout example the words the bridge sends (RosTimeoutError)', () => {
    const examples = EXAMPLE_FRAMES.filter((example) => example.frame.includes('"chat_timeout"'));
    assert.equal(examples.length, 1);
    const frame = JSON.parse(examples[0]!.frame) as { message: string };
    assert.equal(frame.message, new RosTimeoutError('chat', DEFAULT_LIMITS.chatTimeoutMs).message);
  });

  it('describes every error code', () => {
    for (const code of ERROR_CODE_NAMES) {
      assert.ok(ERROR_CODES[code].description.length > 10, code);
    }
  });

  it('has the error codes the clients rely on', () => {
    for (const code of [
      'invalid_json',
      'unknown_service',
      'invalid_command',
      'chat_failed',
      'chat_timeout',
      'chat_unavailable',
      'clear_history_failed',
      'busy',
      'microphone_disabled',
      'text_frame_too_large',
    ]) {
      assert.ok(code in ERROR_CODES, code);
    }
  });

  it('uses registered WebSocket close codes with reasons that fit a close frame', () => {
    assert.equal(CLOSE_CODES.binaryFrameTooLarge.code, 1009);
    assert.equal(CLOSE_CODES.goingAway.code, 1001);
    for (const [name, close] of Object.entries(CLOSE_CODES)) {
      assert.ok(close.code >= 1000 && close.code < 1015, name);
      assert.ok(Buffer.byteLength(close.reason) <= 123, name);
    }
  });

  it('describes every limit and keeps the text limit below the binary one', () => {
    for (const key of Object.keys(DEFAULT_LIMITS) as (keyof typeof DEFAULT_LIMITS)[]) {
      assert.ok(LIMIT_DESCRIPTIONS[key].length > 10, key);
      assert.ok(DEFAULT_LIMITS[key] > 0, key);
    }
    assert.ok(DEFAULT_LIMITS.maxTextFrameBytes < DEFAULT_LIMITS.maxBinaryFrameBytes);
    assert.equal(DEFAULT_LIMITS.chatTimeoutMs, 60_000);
    assert.equal(DEFAULT_LIMITS.maxWaitingCalls, 4);
  });

  it('gives examples that match the schemas', () => {
    const text = EXAMPLE_FRAMES.filter((example) => example.kind === 'text');
    assert.ok(text.length >= 5);
    for (const example of text) {
      if (example.direction === 'client→server') {
        assert.equal(parseClientText(example.frame, LIMIT).ok, true, example.frame);
      } else {
        const parsed = v.parse(ServerMessageSchema, JSON.parse(example.frame));
        assert.equal(serializeServerMessage(parsed), example.frame);
      }
    }
    const audio = text.find((example) => example.frame.includes('"type":"audio"'));
    const binary = EXAMPLE_FRAMES.find(
      (example) => example.direction === 'server→client' && example.kind === 'binary',
    );
    const id = audio === undefined ? undefined : (JSON.parse(audio.frame) as { messageId: number }).messageId;
    assert.equal(binary?.frame.startsWith(encodeHex(id ?? -1)), true);
  });
});

const encodeHex = (id: number): string =>
  [...encodeAudioBinary(id, new Uint8Array(0))].map((byte) => byte.toString(16).padStart(2, '0')).join(' ');
