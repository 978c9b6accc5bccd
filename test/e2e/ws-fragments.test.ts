import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sendJson } from '../support/http.js';
import { startSimService, type TestService } from '../support/test-service.js';
import { WireWsClient, type WireFrame } from '../support/wire-ws-client.js';
import { FRAGMENT_BYTES } from '../../src/transport/ws/ws-endpoint.js';

/** The binary messages among `frames`, each as the frames that carried it (first, continuations…). */
const binaryMessages = (frames: readonly WireFrame[]): WireFrame[][] => {
  const messages: WireFrame[][] = [];
  let current: WireFrame[] | undefined;
  for (const frame of frames) {
    if (frame.opcode === 2) current = [frame];
    else if (frame.opcode === 0 && current !== undefined) current.push(frame);
    else continue;
    if (frame.fin) {
      messages.push(current);
      current = undefined;
    }
  }
  return messages;
};

/** What a message's frames say about its cut: opcodes and FIN bits in order, and every payload's size. */
const cut = (message: readonly WireFrame[]) => ({
  opcodes: message.map((frame) => frame.opcode),
  fins: message.map((frame) => frame.fin),
  largest: Math.max(...message.map((frame) => frame.payload.byteLength)),
});

const joined = (message: readonly WireFrame[]) => Buffer.concat(message.map((frame) => frame.payload));

describe('binary messages on the wire: fragments of at most FRAGMENT_BYTES', () => {
  let running: TestService;
  before(async () => {
    running = await startSimService();
  });
  after(async () => {
    await running.stop();
  });

  it('cuts a /play_audio message past FRAGMENT_BYTES into fragments and sends a small one whole', async () => {
    const kiosk = await WireWsClient.connect(running.wsUrl);
    try {
      await kiosk.until((frames) => frames.length > 0, 'the first frame');
      const large = randomBytes(3 * FRAGMENT_BYTES + 1000);
      const small = randomBytes(1024);
      for (const audio of [large, small]) {
        const published = await sendJson(running.baseUrl, 'POST', '/sim/play_audio', {
          emotion: 'happy',
          text: `${audio.byteLength} bytes`,
          audio: audio.toString('base64'),
        });
        assert.equal(published.status, 200, published.text);
      }
      await kiosk.until((frames) => binaryMessages(frames).length === 2, 'two binary messages');
      const [first, second] = binaryMessages(kiosk.frames);
      assert.ok(first !== undefined && second !== undefined);
      // 4-byte id + audio = 3 × FRAGMENT_BYTES + 1004 bytes: three full fragments and a fourth.
      assert.deepEqual(cut(first), {
        opcodes: [2, 0, 0, 0],
        fins: [false, false, false, true],
        largest: FRAGMENT_BYTES,
      });
      assert.deepEqual(joined(first).subarray(4), large);
      assert.deepEqual(cut(second), { opcodes: [2], fins: [true], largest: 4 + small.byteLength });
      assert.deepEqual(joined(second).subarray(4), small);
    } finally {
      kiosk.close();
    }
  });

  it('sends a chat answer past FRAGMENT_BYTES as its header, then the audio in fragments', async () => {
    const kiosk = await WireWsClient.connect(running.wsUrl);
    try {
      await kiosk.until((frames) => frames.length > 0, 'the first frame');
      const utterance = randomBytes(2 * FRAGMENT_BYTES + 10);
      kiosk.sendBinary(utterance);
      await kiosk.until((frames) => binaryMessages(frames).length === 1, 'the answer');
      const [answer] = binaryMessages(kiosk.frames);
      assert.ok(answer !== undefined);
      assert.deepEqual(cut(answer), {
        opcodes: [2, 0, 0, 0],
        fins: [false, false, false, true],
        largest: FRAGMENT_BYTES,
      });
      assert.equal(answer[0]?.payload.byteLength, 4);
      // The echo answers with the utterance itself.
      assert.deepEqual(joined(answer).subarray(4), utterance);
    } finally {
      kiosk.close();
    }
  });
});
