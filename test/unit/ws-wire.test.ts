import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as v from 'valibot';
import { EXAMPLE_FRAMES } from '../support/ws-examples.js';
import * as server from '../../src/protocol/ws-protocol.js';
import * as web from '../../src/protocol/ws-wire.js';

/** The service's example text frames (docs/protocol.md). */
const texts = EXAMPLE_FRAMES.filter((frame) => frame.direction === 'server→client' && frame.kind === 'text');

/** How a client (the kiosk compiles against this module) reads what the service sends. */
describe('the /ws wire module, as the kiosk reads the service', () => {
  it('reads every server message of the protocol examples as the server meant it', () => {
    assert.ok(texts.length >= 4);
    for (const frame of texts) {
      assert.deepEqual(web.parseServerMessage(frame.frame), JSON.parse(frame.frame), frame.frame);
    }
  });

  it('reads the turn of answers and errors, and the end of a turn', () => {
    assert.deepEqual(
      web.parseServerMessage('{"type":"audio","emotion":"happy","text":"Hi.","messageId":3,"turn":2}'),
      { type: 'audio', emotion: 'happy', text: 'Hi.', messageId: 3, turn: 2 },
    );
    assert.deepEqual(
      web.parseServerMessage('{"type":"error","code":"chat_timeout","message":"late","turn":3}'),
      { type: 'error', code: 'chat_timeout', message: 'late', turn: 3 },
    );
    for (const outcome of ['answered', 'failed', 'refused', 'cancelled', 'something-newer']) {
      assert.deepEqual(web.parseServerMessage(`{"type":"turn_end","turn":4,"outcome":"${outcome}"}`), {
        type: 'turn_end',
        turn: 4,
        outcome,
      });
    }
    assert.deepEqual(web.parseServerMessage('{"type":"ack","service":"cancel"}'), {
      type: 'ack',
      service: 'cancel',
    });
  });

  it('reads an error of a code it does not name as unknown_error, so a client still learns of the failure', () => {
    assert.deepEqual(
      web.parseServerMessage('{"type":"error","code":"something_newer","message":"x","turn":2}'),
      { type: 'unknown_error', code: 'something_newer', message: 'x', turn: 2 },
    );
    for (const code of web.ERROR_CODE_NAMES) {
      assert.equal(web.parseServerMessage(`{"type":"error","code":"${code}","message":"x"}`)?.type, 'error');
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
      assert.equal(web.parseServerMessage(text), undefined, text);
    }
  });
});

describe('the kiosk reads what the service sends, by type', () => {
  it('takes every message of the service’s schema as a message of the wire module', () => {
    // Compile-time half: a message the service may send is a message the kiosk's reader types accept
    // (tsc fails here when they part). Run-time half: the examples, sent through the service's schema.
    const asRead = (message: server.ServerMessage): web.ServerMessage => message;
    for (const frame of texts) {
      const sent = v.parse(server.ServerMessageSchema, JSON.parse(frame.frame));
      assert.deepEqual(web.parseServerMessage(frame.frame), asRead(sent), frame.frame);
    }
  });
});
