import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeFrames, KioskClient, pairAt } from '../support/ws-client.js';

/**
 * The /ws conversation's behaviour that does not depend on how the robot side is reached: the echo
 * `/chat` of the simulation and of the reference demo chat node, `/clear_history`, and the protocol's
 * error frames. Run against the simulation in CI (test/e2e/ws-conversation.test.ts) and against real
 * ROS 2 nodes by `npm run test:ros`. What needs the simulation's controls (/sim/*) or the server's
 * internals stays in the sim suite.
 */

export interface WsContractTarget {
  readonly wsUrl: string;
}

/** The frame budget of the slowest answer: a real graph is slower than the simulation. */
const FRAME_TIMEOUT_MS = 10_000;

export const wsConversationContract = (target: () => WsContractTarget): void => {
  const openKiosk = async (): Promise<KioskClient> => {
    const kiosk = await KioskClient.connect(target().wsUrl);
    await kiosk.frameCount(1, FRAME_TIMEOUT_MS);
    return kiosk;
  };

  describe('/ws conversation contract', () => {
    it('sends the initial state on connect', async () => {
      const kiosk = await openKiosk();
      assert.deepEqual(kiosk.frames[0], {
        kind: 'text',
        json: {
          type: 'state',
          emotion: 'neutral',
          text: '',
          microphone: { enabled: true },
          limits: { utteranceMs: 65_534 },
        },
      });
      kiosk.close();
    });

    it('answers an audio frame with a metadata frame and a binary frame headed by the same id, then turn_end', async () => {
      const kiosk = await openKiosk();
      const audio = Buffer.from(Array.from({ length: 1000 }, (_, index) => index % 251));
      kiosk.socket.send(audio);
      await kiosk.frameCount(4, FRAME_TIMEOUT_MS);
      const pair = pairAt(kiosk.frames, 1);
      assert.equal(pair.meta['emotion'], 'happy');
      assert.equal(pair.meta['text'], 'I heard you. This is what you sent me.');
      assert.equal(pair.meta['messageId'], pair.messageId);
      assert.equal(pair.meta['turn'], 1);
      assert.deepEqual(pair.audio, audio);
      assert.deepEqual(kiosk.frames[3], {
        kind: 'text',
        json: { type: 'turn_end', turn: 1, outcome: 'answered' },
      });
      kiosk.close();
    });

    it('answers several audio frames in order with increasing ids and turns; an empty frame is a refused turn', async () => {
      const kiosk = await openKiosk();
      for (const size of [3, 0, 7]) kiosk.socket.send(Buffer.alloc(size, size));
      // Turn 1: pair and turn_end; turn 2: audio_too_short and turn_end; turn 3: pair and turn_end.
      await kiosk.frameCount(1 + 3 + 2 + 3, FRAME_TIMEOUT_MS);
      // A refusal goes out on arrival (docs/protocol.md, "Ordering and queueing"): before turn 1's answer
      // when the robot takes longer than the frames take to arrive, after it when it answers at once.
      const frames = kiosk.frames.slice(1);
      const refusalAt = frames.findIndex((frame) => frame.kind === 'text' && frame.json['type'] === 'error');
      const refusal = frames[refusalAt];
      assert.ok(refusal?.kind === 'text', describeFrames(kiosk.frames));
      assert.equal(refusal.json['code'], 'audio_too_short');
      assert.equal(refusal.json['turn'], 2);
      assert.deepEqual(frames[refusalAt + 1], {
        kind: 'text',
        json: { type: 'turn_end', turn: 2, outcome: 'refused' },
      });
      const answers = [...frames.slice(0, refusalAt), ...frames.slice(refusalAt + 2)];
      const first = pairAt(answers, 0);
      const third = pairAt(answers, 3);
      assert.deepEqual([first.audio.byteLength, third.audio.byteLength], [3, 7]);
      assert.deepEqual([first.meta['turn'], third.meta['turn']], [1, 3]);
      assert.ok(third.messageId > first.messageId);
      assert.deepEqual(answers[2], {
        kind: 'text',
        json: { type: 'turn_end', turn: 1, outcome: 'answered' },
      });
      assert.deepEqual(answers[5], {
        kind: 'text',
        json: { type: 'turn_end', turn: 3, outcome: 'answered' },
      });
      kiosk.close();
    });

    it('acknowledges cancel when nothing runs', async () => {
      const kiosk = await openKiosk();
      kiosk.sendJson({ service: 'cancel' });
      await kiosk.frameCount(2, FRAME_TIMEOUT_MS);
      assert.deepEqual(kiosk.texts()[1], { type: 'ack', service: 'cancel' });
      kiosk.close();
    });

    it('acknowledges clear_history', async () => {
      const kiosk = await openKiosk();
      kiosk.sendJson({ service: 'clear_history' });
      await kiosk.frameCount(2, FRAME_TIMEOUT_MS);
      assert.deepEqual(kiosk.texts()[1], { type: 'ack', service: 'clear_history' });
      kiosk.close();
    });

    it('answers bad commands with error frames and keeps the session open', async () => {
      const kiosk = await openKiosk();
      kiosk.socket.send('{not json');
      kiosk.sendJson({ service: 'launch_rocket' });
      kiosk.sendJson({ service: 42 });
      kiosk.sendJson(['clear_history']);
      kiosk.socket.send(JSON.stringify({ service: 'clear_history', pad: 'x'.repeat(70 * 1024) }));
      kiosk.sendJson({ service: 'clear_history' });
      await kiosk.frameCount(7, FRAME_TIMEOUT_MS);
      const codes = kiosk
        .texts()
        .slice(1)
        .map((message) => message['code'] ?? message['type']);
      assert.deepEqual(codes, [
        'invalid_json',
        'unknown_service',
        'invalid_command',
        'invalid_command',
        'text_frame_too_large',
        'ack',
      ]);
      for (const message of kiosk.texts().slice(1, 6)) {
        assert.equal(message['type'], 'error');
        assert.equal(typeof message['message'], 'string');
      }
      assert.equal(kiosk.closeEvent, undefined);
      kiosk.close();
    });
  });
};
