import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as v from 'valibot';
import { EXAMPLE_FRAMES } from '../support/ws-examples.js';
import {
  ERROR_CODE_NAMES,
  readServerMessage,
  ServerMessageSchema,
  type ReceivedMessage,
  type ServerMessage,
} from '../../src/protocol/ws/index.js';

/** The service's example text frames (docs/protocol.md). */
const texts = EXAMPLE_FRAMES.filter((frame) => frame.direction === 'server→client' && frame.kind === 'text');

/** How a client (the kiosk bundles the /ws module) reads what the service sends. */
describe('the /ws module, as the kiosk reads the service', () => {
  it('reads every server message of the protocol examples as the server meant it', () => {
    assert.ok(texts.length >= 4);
    for (const frame of texts) {
      assert.deepEqual(readServerMessage(frame.frame), JSON.parse(frame.frame), frame.frame);
    }
  });

  it('reads the turn of answers and errors, and the end of a turn', () => {
    assert.deepEqual(
      readServerMessage('{"type":"audio","emotion":"happy","text":"Hi.","messageId":3,"turn":2}'),
      { type: 'audio', emotion: 'happy', text: 'Hi.', messageId: 3, turn: 2 },
    );
    assert.deepEqual(readServerMessage('{"type":"error","code":"chat_timeout","message":"late","turn":3}'), {
      type: 'error',
      code: 'chat_timeout',
      message: 'late',
      turn: 3,
    });
    for (const outcome of ['answered', 'failed', 'refused', 'cancelled', 'something-newer']) {
      assert.deepEqual(readServerMessage(`{"type":"turn_end","turn":4,"outcome":"${outcome}"}`), {
        type: 'turn_end',
        turn: 4,
        outcome,
      });
    }
    assert.deepEqual(readServerMessage('{"type":"ack","service":"cancel"}'), {
      type: 'ack',
      service: 'cancel',
    });
  });

  it('reads an error of a code it does not name as unknown_error, so a client still learns of the failure', () => {
    assert.deepEqual(readServerMessage('{"type":"error","code":"something_newer","message":"x","turn":2}'), {
      type: 'unknown_error',
      code: 'something_newer',
      message: 'x',
      turn: 2,
    });
    for (const code of ERROR_CODE_NAMES) {
      assert.equal(readServerMessage(`{"type":"error","code":"${code}","message":"x"}`)?.type, 'error');
    }
  });

  it('ignores malformed or unknown messages instead of failing', () => {
    for (const text of [
      'not json',
      '[]',
      '{"type":"weather"}',
      '{"type":"audio","emotion":"happy","text":"x","messageId":-1}',
      '{"type":"audio","emotion":"happy","text":"x","messageId":4294967296}',
      '{"type":"state","emotion":"happy","text":"x","microphone":{}}',
      '{"type":"microphone","enabled":"yes"}',
      '{"type":"audio","emotion":"happy","text":"x","messageId":1,"turn":0}',
      '{"type":"audio","emotion":"happy","text":"x","messageId":1,"turn":"2"}',
      '{"type":"error","code":"busy","message":"x","turn":1.5}',
      '{"type":"turn_end","turn":1}',
      '{"type":"turn_end","outcome":"answered"}',
    ]) {
      assert.equal(readServerMessage(text), undefined, text);
    }
  });
});

describe('the kiosk reads what the service sends, by type', () => {
  it('has an example of every message type of the service’s schema, so the reader is checked on each', () => {
    const shown = new Set(texts.map((frame) => (JSON.parse(frame.frame) as { type: string }).type));
    for (const option of ServerMessageSchema.options) {
      assert.ok(shown.has(option.entries.type.literal), option.entries.type.literal);
    }
  });

  it('takes every message of the service’s schema as a message the kiosk reads', () => {
    // Compile-time half: a message the service may send is a message the kiosk's reader types accept
    // (tsc fails here when they part). Run-time half: the examples, sent through the service's schema.
    const asRead = (message: ServerMessage): ReceivedMessage => message;
    for (const frame of texts) {
      const sent = v.parse(ServerMessageSchema, JSON.parse(frame.frame));
      assert.deepEqual(readServerMessage(frame.frame), asRead(sent), frame.frame);
    }
  });
});
