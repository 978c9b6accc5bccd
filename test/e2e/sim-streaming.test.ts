import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { wavOfPcmParts } from '../../src/protocol/ws/index.js';
import { encodePartFrame } from '../../src/protocol/ws/index.js';
import { transcriptText } from '../../src/robot/speech/recognition-cost.js';
import { startSimService } from '../support/test-service.js';
import { KioskClient, pairAt, type ReceivedFrame } from '../support/ws-client.js';

/**
 * The demo's streaming (`--chat_interface action --sim_recognition_rt …`): the real server on the simulation,
 * a real socket streaming parts. The recogniser's transcripts reach the kiosk, the answer is the echo of the
 * streamed speech, a heard report reaches the simulated robot, and abandoned utterances leave nothing held.
 */

/** 100 ms of 16-bit PCM whose bytes say which part they are. */
const pcmPart = (index: number): Uint8Array => new Uint8Array(3_200).fill(index + 1);

const isText = (frame: ReceivedFrame, type: string): boolean =>
  frame.kind === 'text' && frame.json['type'] === type;

/** Waits (bounded) until `check` holds. */
const eventually = async (check: () => boolean, what: string): Promise<void> => {
  for (let attempt = 0; attempt < 300 && !check(); attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.ok(check(), what);
};

describe('the simulation streaming behind the real bridge', () => {
  it('shows the simulated transcripts, answers with the echo of the streamed speech, and takes heard reports', async () => {
    const service = await startSimService(
      { recognitionRt: 0.3, chatParts: 2, partMs: 20 },
      { chat_interface: 'action' },
    );
    const kiosk = await KioskClient.connect(service.wsUrl);
    try {
      await kiosk.frameCount(1);
      kiosk.sendJson({ service: 'utterance_start' });
      for (let index = 0; index < 5; index += 1) {
        kiosk.socket.send(encodePartFrame(1, index, pcmPart(index)));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      kiosk.sendJson({ service: 'utterance_end', turn: 1, parts: 5 });
      await kiosk.until((frames) => frames.some((frame) => isText(frame, 'turn_end')), 'the turn_end');
      const texts = kiosk.texts();
      const transcripts = texts.filter((frame) => frame['type'] === 'transcript');
      assert.deepEqual(transcripts.at(-1), {
        type: 'transcript',
        turn: 1,
        text: transcriptText(0.5),
        final: true,
      });
      // A partial after each part, then the final.
      assert.deepEqual(
        transcripts.filter((frame) => frame['final'] === false).map((frame) => frame['text']),
        [0.1, 0.2, 0.3, 0.4, 0.5].map(transcriptText),
      );
      assert.deepEqual(texts.at(-1), { type: 'turn_end', turn: 1, outcome: 'answered' });
      const pairs = kiosk.frames.flatMap((frame, index) => (isText(frame, 'audio') ? [index] : []));
      assert.equal(pairs.length, 2);
      const answered = Buffer.concat(pairs.map((index) => pairAt(kiosk.frames, index).audio));
      assert.deepEqual(
        new Uint8Array(answered),
        wavOfPcmParts([0, 1, 2, 3, 4].map(pcmPart)),
        'the echo of the parts as one WAV',
      );
      assert.equal(service.sim.recognitionStats().utterances, 0, 'the answered utterance is not held');

      // The visitor stopped the answer in its second part, half of it played.
      const second = pairAt(kiosk.frames, pairs[1] ?? -1);
      kiosk.sendJson({
        service: 'heard',
        turn: 1,
        playedMs: 300,
        messageId: second.messageId,
        partPlayedMs: 50,
        partMs: 100,
      });
      await eventually(() => service.sim.heardHistory().length === 1, 'the heard report reached the robot');
      const heard = service.sim.heardHistory()[0];
      assert.ok(heard !== undefined);
      assert.equal(heard.played_ms, 300);
      assert.match(heard.utterance_id, /-1$/, 'it names the turn’s utterance');
      assert.match(heard.heard_text, /^You spoke for less than a second\. This is what I heard\. This/);
    } finally {
      kiosk.close();
      await service.stop();
    }
  });

  it('leaves the recogniser holding nothing after a storm of abandoned utterances', async () => {
    const service = await startSimService({ recognitionRt: 0.3 }, { chat_interface: 'action' });
    try {
      for (let round = 0; round < 10; round += 1) {
        const kiosk = await KioskClient.connect(service.wsUrl);
        await kiosk.frameCount(1);
        kiosk.sendJson({ service: 'utterance_start' });
        kiosk.socket.send(encodePartFrame(1, 0, pcmPart(0)));
        kiosk.socket.send(encodePartFrame(1, 1, pcmPart(1)));
        if (round % 2 === 0) {
          kiosk.sendJson({ service: 'cancel' });
          await kiosk.until((frames) => frames.some((frame) => isText(frame, 'turn_end')), 'the turn_end');
        }
        kiosk.close();
      }
      await eventually(
        () => service.sim.recognitionStats().dropped.abandoned === 10,
        `every utterance abandoned: ${JSON.stringify(service.sim.recognitionStats())}`,
      );
      const stats = service.sim.recognitionStats();
      assert.deepEqual(
        { utterances: stats.utterances, bytesHeld: stats.bytesHeld, waitingGoals: stats.waitingGoals },
        { utterances: 0, bytesHeld: 0, waitingGoals: 0 },
      );
    } finally {
      await service.stop();
    }
  });
});
