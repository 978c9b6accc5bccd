import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as server from '../../src/protocol/ws-protocol.js';
import { EXAMPLE_FRAMES } from '../../src/protocol/ws-examples.js';
import { TOUR_LIMITS as SERVER_TOUR_LIMITS } from '../../src/protocol/tour-schema.js';
import * as web from '../../web/src/protocol.js';
import { TOUR_LIMITS as WEB_TOUR_LIMITS } from '../../web/src/tour-model.js';

/** The browser build keeps its own copies of a few server constants; they must not drift. */
describe('the kiosk agrees with the service', () => {
  it('on the frame header and the audio frame limit', () => {
    assert.equal(web.AUDIO_HEADER_BYTES, server.AUDIO_HEADER_BYTES);
    assert.equal(web.DEFAULT_MAX_AUDIO_FRAME_BYTES, server.DEFAULT_LIMITS.maxBinaryFrameBytes);
  });

  it('on the tour limits', () => {
    assert.deepEqual(WEB_TOUR_LIMITS, SERVER_TOUR_LIMITS);
  });

  it('reads every server message of the protocol examples as the server meant it', () => {
    const texts = EXAMPLE_FRAMES.filter(
      (frame) => frame.direction === 'server→client' && frame.kind === 'text',
    );
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
