import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Subject } from 'rxjs';
import { UtteranceEvent, type ChatResponseMsg } from '../../src/ros/port/ros-messages.js';
import { encodePartFrame, WAV_HEADER_BYTES } from '../../src/protocol/ws/index.js';
import { settledGauges } from '../support/conversation-gauges.js';
import { ScriptedPort } from '../support/scripted-port.js';
import { startTestService } from '../support/test-service.js';
import { KioskClient } from '../support/ws-client.js';

/** 100 ms of 16-bit PCM at 16 kHz whose bytes say which part they are. */
const pcmPart = (index: number): Uint8Array => new Uint8Array(3_200).fill(index + 1);

/** Waits (bounded) until the port has seen `count` /utterance/audio events. */
const published = async (port: ScriptedPort, count: number): Promise<void> => {
  for (let attempt = 0; attempt < 500 && port.utteranceAudio.length < count; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.ok(port.utteranceAudio.length >= count, `${port.utteranceAudio.length} of ${count} events`);
};

describe('/ws streamed utterances, over the real server and sockets (the robot scripted at the port)', () => {
  it('passes the parts on in order as they come, answers the turn, and routes transcripts to the kiosk', async () => {
    const answers = new Subject<ChatResponseMsg>();
    const port = new ScriptedPort({ chat: () => answers });
    const service = await startTestService(port);
    const kiosk = await KioskClient.connect(service.wsUrl);
    try {
      await kiosk.frameCount(1, 5_000);
      kiosk.sendJson({ service: 'utterance_start' });
      kiosk.socket.send(encodePartFrame(1, 0, pcmPart(0)));
      // The first part reaches the robot while the visitor still speaks.
      await published(port, 1);
      const utteranceId = port.utteranceAudio[0]?.utterance_id ?? '';
      assert.match(utteranceId, /^[0-9a-f]{8}-\d+-1$/);
      port.transcripts.next({ utterance_id: utteranceId, text: 'where is', final: false });
      await kiosk.until(
        (frames) => frames.some((frame) => frame.kind === 'text' && frame.json['type'] === 'transcript'),
        'the partial transcript',
        5_000,
      );
      for (let index = 1; index < 10; index += 1)
        kiosk.socket.send(encodePartFrame(1, index, pcmPart(index)));
      kiosk.sendJson({ service: 'utterance_end', turn: 1, parts: 10 });
      await published(port, 11);
      assert.deepEqual(
        port.utteranceAudio.map((message) => [
          message.sequence,
          message.event,
          message.audio[0],
          message.audio.length,
        ]),
        [
          ...Array.from({ length: 10 }, (_, index) => [index, UtteranceEvent.PART, index + 1, 3_200]),
          [10, UtteranceEvent.END, undefined, 0],
        ],
      );
      // The robot without streaming (/chat) gets the parts as one WAV file.
      const chat = port.calls.find((call) => call.service === 'chat');
      const audio = (chat?.request as { audio: Uint8Array } | undefined)?.audio;
      assert.equal(audio?.byteLength, WAV_HEADER_BYTES + 32_000);
      assert.equal(audio[WAV_HEADER_BYTES + 3_200 * 9], 10);
      answers.next({ emotion: 'happy', text: 'Over there.', audio: new Uint8Array(8) });
      answers.complete();
      await kiosk.until(
        (frames) => frames.some((frame) => frame.kind === 'text' && frame.json['type'] === 'turn_end'),
        'the turn_end',
        5_000,
      );
      const said = kiosk.texts().filter((frame) => frame['type'] !== 'state');
      assert.deepEqual(
        said.map(({ messageId: _id, ...rest }) => rest),
        [
          { type: 'transcript', turn: 1, text: 'where is', final: false },
          { type: 'audio', emotion: 'happy', text: 'Over there.', turn: 1 },
          { type: 'turn_end', turn: 1, outcome: 'answered' },
        ],
      );
    } finally {
      kiosk.close();
      await service.stop();
    }
  });

  it('tells the robot an utterance was abandoned when its kiosk disconnects mid-utterance, and holds nothing after', async () => {
    const port = new ScriptedPort({});
    const service = await startTestService(port);
    try {
      for (let round = 0; round < 20; round += 1) {
        const kiosk = await KioskClient.connect(service.wsUrl);
        await kiosk.frameCount(1, 5_000);
        kiosk.sendJson({ service: 'utterance_start' });
        kiosk.socket.send(encodePartFrame(1, 0, pcmPart(0)));
        kiosk.socket.send(encodePartFrame(1, 1, pcmPart(1)));
        await published(port, round * 3 + 2);
        kiosk.close();
        await published(port, round * 3 + 3);
        assert.deepEqual(
          [port.utteranceAudio.at(-1)?.event, port.utteranceAudio.at(-1)?.sequence],
          [UtteranceEvent.ABANDONED, 2],
        );
      }
      const gauges = await settledGauges(service);
      assert.deepEqual(
        { ...gauges, followedUtterances: service.service.hub.speech.followed },
        {
          liveSessions: 0,
          openSubscriptions: 0,
          inFlightRosCalls: 0,
          queuedAudioBytes: 0,
          followedUtterances: 0,
        },
      );
    } finally {
      await service.stop();
    }
  });

  it('keeps the one-frame path of the specification for a kiosk that never opens an utterance', async () => {
    const port = new ScriptedPort({ chat: () => new Subject<ChatResponseMsg>() });
    const service = await startTestService(port);
    const kiosk = await KioskClient.connect(service.wsUrl);
    try {
      await kiosk.frameCount(1, 5_000);
      const whole = new Uint8Array(16).fill(7);
      kiosk.socket.send(whole);
      for (let attempt = 0; attempt < 500 && port.calls.length === 0; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.deepEqual((port.calls[0]?.request as { audio: Uint8Array } | undefined)?.audio, whole);
      assert.equal(port.utteranceAudio.length, 0, 'nothing streamed');
    } finally {
      kiosk.close();
      await service.stop();
    }
  });
});
