import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { UtteranceEvent, type UtteranceAudioMsg } from '../../src/ros/port/ros-messages.js';
import { wavOfPcmParts } from '../../src/protocol/ws/index.js';
import { encodePartFrame } from '../../src/protocol/ws/index.js';
import { echoChatParts } from '../../src/robot/echo-chat.js';
import { historyTopicOf } from '../../src/robot/nodes/history-topics.js';
import { pcmSeconds, transcriptText } from '../../src/robot/speech/recognition-cost.js';
import { KioskClient, type ReceivedFrame } from '../support/ws-client.js';
import type { Child } from './processes.js';
import { ALL_SERVERS, GRAPH_LIMITS, pollUntil, readyDetail, type Bridge, type RosGraph } from './graph.js';

/**
 * A visitor's voice streamed to the robot while they speak (issue #39), over the real graph: a kiosk (a
 * real WebSocket client) streams through the shipped bridge (`dist/src/server.js`, `--chat_interface
 * action`) to the reference demo chat with its streaming recogniser stand-in (`--recognition_rt`), while
 * the probe subscribes to /utterance/audio as a robot's recogniser would and reads the Converse server's
 * dialogue history back from its transient-local topic. Every name of the three is under
 * `<prefix>/stream`, so no other bridge or node of the run meets them.
 */

/** The stream demo chat: the stand-in's stated cost, and its answer in parts (so a barge-in has one to cut). */
export const STREAM_CHAT = { rt: 0.3, parts: 3, partMs: 300 } as const;
/** A part as a kiosk sends it while the visitor speaks: 160 ms of 16-bit mono 16 kHz PCM. */
const PART_MS = 160;
const PART_BYTES = PART_MS * 32;
const FRAME_TIMEOUT_MS = 20_000;

/** PCM a shifted, truncated or reordered copy would not match: every part's bytes differ. */
const pcmPart = (utterance: number, index: number): Uint8Array =>
  Uint8Array.from({ length: PART_BYTES }, (_, at) => (at * 13 + index * 7 + utterance * 31) & 0xff);

const isText =
  (type: string, turn?: number) =>
  (frame: ReceivedFrame): frame is { kind: 'text'; json: Record<string, unknown> } =>
    frame.kind === 'text' &&
    frame.json['type'] === type &&
    (turn === undefined || frame.json['turn'] === turn);

/** The answer pairs of `turn`: metadata without the message id, and the audio. */
const pairsOf = (frames: readonly ReceivedFrame[], turn: number) =>
  frames.flatMap((frame, index) => {
    const binary = frames[index + 1];
    if (!isText('audio', turn)(frame) || binary?.kind !== 'binary') return [];
    const { messageId, ...meta } = frame.json;
    return [{ meta, messageId: messageId as number, audio: [...binary.bytes.subarray(4)] }];
  });

interface Stream {
  readonly bridge: Bridge;
  readonly demoChat: Child;
  /** Every /utterance/audio event the probe took, in order. */
  readonly events: UtteranceAudioMsg[];
  /** Every dialogue history the probe took, the last one the current. */
  readonly histories: string[];
}

/** The events of the utterance whose first event the probe took at `from` or later. */
const eventsOfUtterance = (events: readonly UtteranceAudioMsg[], from: number): UtteranceAudioMsg[] => {
  const id = events[from]?.utterance_id;
  return id === undefined ? [] : events.filter((event) => event.utterance_id === id);
};

const untilEvents = (
  stream: Stream,
  from: number,
  what: string,
  check: (events: UtteranceAudioMsg[]) => boolean,
) => pollUntil(what, FRAME_TIMEOUT_MS, () => Promise.resolve(check(eventsOfUtterance(stream.events, from))));

const openKiosk = async (wsUrl: string): Promise<KioskClient> => {
  const kiosk = await KioskClient.connect(wsUrl);
  await kiosk.frameCount(1, FRAME_TIMEOUT_MS);
  return kiosk;
};

/** Sends parts of turn `turn` at the speed of speech, as a kiosk does while the visitor speaks. */
const speak = async (kiosk: KioskClient, turn: number, parts: readonly Uint8Array[], first = 0) => {
  for (const [index, part] of parts.entries()) {
    kiosk.socket.send(encodePartFrame(turn, first + index, part));
    await sleep(PART_MS);
  }
};

export const streamingSuite = (graph: () => RosGraph): void => {
  describe("a visitor's voice streamed to the robot while they speak, on the real graph (issue #39)", () => {
    let current: Stream | undefined;
    const stream = (): Stream => {
      if (current === undefined) throw new Error('the streaming graph did not start');
      return current;
    };

    before(async () => {
      const running = graph();
      const { silentPrefix, probe } = running;
      const prefix = `${silentPrefix}/stream`;
      const under = (names: readonly string[]) =>
        names.flatMap((name) => ['-r', `${name}:=${prefix}${name}`]);
      const speech = ['/utterance/audio', '/utterance/transcript', '/conversation/heard'];
      const events = probe.recordUtteranceAudio(`${prefix}/utterance/audio`);
      const histories = probe.recordStrings(historyTopicOf(`${prefix}/converse`));
      const demoChat = running.startDemoChat(
        'demo-chat-stream',
        [
          '--recognition_rt',
          String(STREAM_CHAT.rt),
          '--converse_parts',
          String(STREAM_CHAT.parts),
          '--converse_part_ms',
          String(STREAM_CHAT.partMs),
        ],
        [
          '-r',
          '__node:=demo_chat_stream',
          ...under(['/converse', '/chat', '/clear_history', ...speech]),
          // Its greeting goes where no bridge listens: the kiosks here hear only their answers.
          '-r',
          `/play_audio:=${prefix}/demo_chat/play_audio`,
        ],
      );
      const bridge = await running.startBridge(
        'stream-bridge',
        [
          '--chat_interface',
          'action',
          '--ros-args',
          '-r',
          '__node:=tour_bridge_stream',
          ...under([
            '/converse',
            '/chat',
            '/clear_history',
            '/play_audio',
            '/microphone/set_enabled',
            ...speech,
          ]),
        ],
        { shipped: true },
      );
      await pollUntil(
        'the stream bridge seeing a server for every service and the action',
        GRAPH_LIMITS.graphReadyMs,
        async () => {
          const ready = await readyDetail(bridge.baseUrl);
          return ready.status === 200 && ALL_SERVERS.test(ready.detail);
        },
      );
      // Volatile topics: what is published before a subscription is matched is gone. Every end is there.
      await pollUntil('the streaming topics matched on the graph', GRAPH_LIMITS.graphReadyMs, () =>
        Promise.resolve(
          probe.publishersOf(`${prefix}/utterance/audio`) >= 1 &&
            probe.subscribersOf(`${prefix}/utterance/audio`) >= 2 &&
            probe.publishersOf(`${prefix}/utterance/transcript`) >= 1 &&
            probe.subscribersOf(`${prefix}/utterance/transcript`) >= 1 &&
            probe.publishersOf(`${prefix}/conversation/heard`) >= 1 &&
            probe.subscribersOf(`${prefix}/conversation/heard`) >= 1 &&
            histories.length >= 1,
        ),
      );
      current = { bridge, demoChat, events, histories };
    });

    it('passes every part to the robot as it is spoken, in order, byte for byte, then END; partial transcripts reach the kiosk while it speaks; the goal names the utterance and its answer is the echo of what was streamed', async () => {
      const { bridge, demoChat, events } = stream();
      const kiosk = await openKiosk(bridge.wsUrl);
      const from = events.length;
      const mark = demoChat.mark();
      const parts = Array.from({ length: 8 }, (_, index) => pcmPart(1, index));
      kiosk.sendJson({ service: 'utterance_start' });
      await speak(kiosk, 1, parts.slice(0, 3));
      // The robot's words come back while the visitor is still speaking (the utterance is open).
      await kiosk.until(
        (frames) => frames.some(isText('transcript', 1)),
        'a partial transcript while speaking',
        FRAME_TIMEOUT_MS,
      );
      assert.equal(kiosk.frames.filter(isText('transcript', 1)).at(0)?.json['final'], false);
      await speak(kiosk, 1, parts.slice(3), 3);
      kiosk.sendJson({ service: 'utterance_end', turn: 1, parts: parts.length });
      await kiosk.until(
        (frames) => frames.some(isText('turn_end', 1)),
        'turn_end of turn 1',
        FRAME_TIMEOUT_MS,
      );

      const utterance = eventsOfUtterance(events, from);
      const id = utterance[0]?.utterance_id ?? '';
      assert.match(id, /-1$/, 'turn 1 names the utterance');
      assert.deepEqual(
        utterance.map((event) => [event.event, event.sequence, [...event.audio]]),
        [
          ...parts.map((part, index) => [UtteranceEvent.PART, index, [...part]]),
          [UtteranceEvent.END, parts.length, []],
        ],
        'every part in order, nothing lost or changed, then END',
      );
      const goal = await demoChat.waitFor(
        new RegExp(
          `"utteranceId":"${id}","streamed":(true|false),"audioBytes":(\\d+).*converse goal accepted`,
        ),
        'the Converse goal of the utterance',
        FRAME_TIMEOUT_MS,
        mark,
      );
      assert.deepEqual([goal[1], goal[2]], ['true', '0'], 'a streamed goal, its audio on /utterance/audio');

      const wav = wavOfPcmParts(parts);
      assert.deepEqual(
        pairsOf(kiosk.frames, 1).map(({ meta, audio }) => ({ meta, audio })),
        echoChatParts({ audio: wav }, STREAM_CHAT.parts).map((part) => ({
          meta: { type: 'audio', emotion: part.emotion, text: part.text, turn: 1 },
          audio: [...part.audio],
        })),
        'the answer echoes the streamed PCM as one WAV',
      );
      const heardSoFar = (count: number) => transcriptText(pcmSeconds(count * PART_BYTES));
      assert.deepEqual(
        kiosk.frames
          .filter(isText('transcript', 1))
          .map((frame) => [frame.json['text'], frame.json['final']]),
        [...parts.map((_, index) => [heardSoFar(index + 1), false]), [heardSoFar(parts.length), true]],
        'a partial transcript after each part, then the final one',
      );
      assert.deepEqual(kiosk.frames.filter(isText('turn_end', 1)).at(0)?.json, {
        type: 'turn_end',
        turn: 1,
        outcome: 'answered',
      });
      kiosk.close();
    });

    it('a cancel mid-utterance reaches the robot as ABANDONED after the parts sent, and the recogniser lets it go', async () => {
      const { bridge, demoChat, events } = stream();
      const kiosk = await openKiosk(bridge.wsUrl);
      const from = events.length;
      const mark = demoChat.mark();
      kiosk.sendJson({ service: 'utterance_start' });
      await speak(kiosk, 1, [pcmPart(2, 0), pcmPart(2, 1), pcmPart(2, 2)]);
      await untilEvents(
        stream(),
        from,
        'the three parts at the probe',
        (utterance) => utterance.length === 3,
      );
      kiosk.sendJson({ service: 'cancel' });
      await kiosk.until((frames) => frames.some(isText('ack')), 'the cancel ack', FRAME_TIMEOUT_MS);
      await untilEvents(stream(), from, 'ABANDONED at the probe', (utterance) => utterance.length === 4);
      assert.deepEqual(
        eventsOfUtterance(events, from).map((event) => [event.event, event.sequence, event.audio.byteLength]),
        [
          [UtteranceEvent.PART, 0, PART_BYTES],
          [UtteranceEvent.PART, 1, PART_BYTES],
          [UtteranceEvent.PART, 2, PART_BYTES],
          [UtteranceEvent.ABANDONED, 3, 0],
        ],
      );
      const id = events[from]?.utterance_id ?? '';
      await demoChat.waitFor(
        new RegExp(`"utteranceId":"${id}","parts":3.*utterance abandoned`),
        'the demo chat letting the utterance go',
        FRAME_TIMEOUT_MS,
        mark,
      );
      assert.deepEqual(
        kiosk.texts().filter((json) => json['type'] === 'turn_end' || json['type'] === 'ack'),
        [
          { type: 'turn_end', turn: 1, outcome: 'cancelled' },
          { type: 'ack', service: 'cancel' },
        ],
      );
      kiosk.close();
    });

    it('a kiosk that disconnects mid-utterance: the robot is told ABANDONED after the parts sent', async () => {
      const { bridge, events } = stream();
      const kiosk = await openKiosk(bridge.wsUrl);
      const from = events.length;
      kiosk.sendJson({ service: 'utterance_start' });
      await speak(kiosk, 1, [pcmPart(3, 0), pcmPart(3, 1)]);
      await untilEvents(stream(), from, 'the two parts at the probe', (utterance) => utterance.length === 2);
      kiosk.close();
      await untilEvents(stream(), from, 'ABANDONED at the probe', (utterance) => utterance.length === 3);
      assert.deepEqual(
        eventsOfUtterance(events, from).map((event) => [event.event, event.sequence]),
        [
          [UtteranceEvent.PART, 0],
          [UtteranceEvent.PART, 1],
          [UtteranceEvent.ABANDONED, 2],
        ],
      );
    });

    it('a heard report after a barge-in reaches the Converse server: its dialogue history holds what was heard', async () => {
      const { bridge, events, histories } = stream();
      const kiosk = await openKiosk(bridge.wsUrl);
      const from = events.length;
      const parts = Array.from({ length: 4 }, (_, index) => pcmPart(4, index));
      kiosk.sendJson({ service: 'utterance_start' });
      await speak(kiosk, 1, parts);
      kiosk.sendJson({ service: 'utterance_end', turn: 1, parts: parts.length });
      await kiosk.until(
        (frames) => pairsOf(frames, 1).length >= 1,
        'the first part of the answer',
        FRAME_TIMEOUT_MS,
      );
      const [first] = pairsOf(kiosk.frames, 1);
      assert.ok(first);
      // The visitor talks over the robot 400 ms into the first part of the answer (of 1,000 ms, say).
      kiosk.sendJson({ service: 'cancel' });
      kiosk.sendJson({
        service: 'heard',
        turn: 1,
        playedMs: 400,
        messageId: first.messageId,
        partPlayedMs: 400,
        partMs: 1_000,
      });
      const id = events[from]?.utterance_id ?? '';
      const words = String(first.meta['text']).split(' ');
      const heardText = words.slice(0, Math.round(words.length * 0.4)).join(' ');
      const robotEntry = () => {
        const last = histories.at(-1);
        const entries =
          last === undefined ? [] : (JSON.parse(last) as { entries: Record<string, unknown>[] }).entries;
        return entries.find((entry) => entry['role'] === 'robot' && entry['utterance_id'] === id);
      };
      await pollUntil("the heard report in the Converse server's history", FRAME_TIMEOUT_MS, () =>
        Promise.resolve(robotEntry()?.['heard'] !== undefined),
      );
      assert.deepEqual(robotEntry(), {
        role: 'robot',
        utterance_id: id,
        text: heardText,
        heard: { played_ms: 400 },
      });
      const visitor = (
        JSON.parse(histories.at(-1) ?? '{}') as { entries: Record<string, unknown>[] }
      ).entries.find((entry) => entry['role'] === 'visitor' && entry['utterance_id'] === id);
      assert.deepEqual(visitor, {
        role: 'visitor',
        utterance_id: id,
        text: transcriptText(pcmSeconds(parts.length * PART_BYTES)),
      });
      assert.equal(kiosk.frames.filter(isText('error')).length, 0, 'the report was taken (no heard_invalid)');
      kiosk.close();
    });

    // Its own processes: the graph's last test stops (and counts) the processes every run starts.
    it('the stream bridge and its demo chat exit 0 on SIGTERM', async () => {
      const { bridge, demoChat } = stream();
      const codes = await Promise.all(
        [bridge.child, demoChat].map(async (child) => {
          await child.stop();
          return [child.name, await child.exited] as const;
        }),
      );
      assert.deepEqual(codes, [
        ['stream-bridge', 0],
        ['demo-chat-stream', 0],
      ]);
    });
  });
};
