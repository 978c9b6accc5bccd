import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { describe, it } from 'node:test';
import { UtteranceEvent, type UtteranceAudioMsg } from '../../src/ros/port/ros-messages.js';
import { CHAT_INTERFACES, encodePartFrame } from '../../src/protocol/ws/index.js';
import { createSimBackend, type SimBackendOptions } from '../../src/robot/sim/sim-backend.js';
import { sendJson } from '../support/http.js';
import { metric } from '../support/metric.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { KioskClient, type ReceivedFrame } from '../support/ws-client.js';

/**
 * What one connection, or a few addresses, may hold of a streamed utterance, against the real server on
 * the simulated robot with real sockets, in both `--chat_interface` modes: a mute abandons what is open at
 * once, and kiosks that hold utterances open from a few addresses leave an honest kiosk its turns.
 */

/** 100 ms of 16-bit PCM. */
const PART = new Uint8Array(3_200).fill(7);

/** The budgets of the hold test, and what each attacker's utterance takes of them at once. */
const BUDGET_BYTES = 2 * 1024 * 1024;
const ATTACK_BYTES = 30_000;

const sleep = (ms: number) =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

const turnEnd = (frames: readonly ReceivedFrame[], turn: number) =>
  frames.find(
    (frame) => frame.kind === 'text' && frame.json['type'] === 'turn_end' && frame.json['turn'] === turn,
  );

/** The server on a simulation whose /utterance/audio events are recorded with the time they reach it. */
const startRecorded = async (
  overrides: Record<string, string>,
  simOptions: SimBackendOptions = {},
): Promise<TestService & { readonly heard: { message: UtteranceAudioMsg; at: number }[] }> => {
  const sim = createSimBackend(simOptions);
  const heard: { message: UtteranceAudioMsg; at: number }[] = [];
  const publish = sim.publishUtteranceAudio.bind(sim);
  (sim as { publishUtteranceAudio: typeof publish }).publishUtteranceAudio = (message) => {
    heard.push({ message, at: performance.now() });
    publish(message);
  };
  const service = await startTestService(sim, { overrides, sim: sim.sim });
  return { ...service, heard };
};

for (const chatInterface of CHAT_INTERFACES) {
  describe(`holding utterances (--chat_interface ${chatInterface})`, () => {
    it('a mute abandons the open utterance at once: nothing after it reaches the robot or is answered', async () => {
      const service = await startRecorded({ chat_interface: chatInterface }, { latencyMs: 300 });
      const streaming = await KioskClient.connect(service.wsUrl);
      const whole = await KioskClient.connect(service.wsUrl);
      try {
        await streaming.frameCount(1);
        await whole.frameCount(1);
        streaming.sendJson({ service: 'utterance_start' });
        let sequence = 0;
        for (; sequence < 3; sequence += 1) {
          streaming.socket.send(encodePartFrame(1, sequence, PART));
          await sleep(100);
        }
        // A whole frame that arrives before the switch is still answered (its call runs through the mute).
        whole.socket.send(new Uint8Array(8_000).fill(3));
        await sleep(50);
        const muted = await sendJson(service.baseUrl, 'POST', '/sim/microphone', { enabled: false });
        assert.equal(muted.status, 200);
        const mutedAt = performance.now();
        // The kiosk goes on speaking for 1.5 s, as one that missed the news would, then ends.
        for (; sequence < 18; sequence += 1) {
          streaming.socket.send(encodePartFrame(1, sequence, PART));
          await sleep(100);
        }
        streaming.sendJson({ service: 'utterance_end', turn: 1, parts: sequence });
        await streaming.until((frames) => turnEnd(frames, 1) !== undefined, 'the turn_end of turn 1');
        await whole.until((frames) => turnEnd(frames, 1) !== undefined, 'the whole frame answered', 10_000);
        await sleep(500);

        const late = service.heard.filter(
          ({ message, at }) => message.event === UtteranceEvent.PART && at > mutedAt + 1_000,
        );
        assert.equal(
          late.length,
          0,
          `parts that reached the robot more than 1 s after the mute: ${late.length}`,
        );
        const events = service.heard.map(({ message }) => message.event);
        assert.ok(events.includes(UtteranceEvent.ABANDONED), 'the robot is told the utterance was abandoned');
        assert.ok(!events.includes(UtteranceEvent.END), 'no END: the utterance never ended');
        const texts = streaming.texts();
        assert.deepEqual(turnEnd(streaming.frames, 1), {
          kind: 'text',
          json: { type: 'turn_end', turn: 1, outcome: 'abandoned' },
        });
        assert.ok(
          texts.some(
            (text) =>
              text['type'] === 'error' && text['code'] === 'microphone_disabled' && text['turn'] === 1,
          ),
          'the kiosk is told why',
        );
        assert.ok(!texts.some((text) => text['type'] === 'audio'), 'the streamed turn is not answered');
        assert.ok(
          texts.some((text) => text['type'] === 'error' && text['code'] === 'part_invalid'),
          'later parts are refused',
        );
        assert.deepEqual(turnEnd(whole.frames, 1), {
          kind: 'text',
          json: { type: 'turn_end', turn: 1, outcome: 'answered' },
        });
        // Counted by reason.
        assert.equal(
          await metric(service.baseUrl, 'tour_bridge_ws_refused_frames_total{reason="microphone_disabled"} '),
          1,
        );
        assert.equal(await metric(service.baseUrl, 'tour_bridge_ws_turns_total{outcome="abandoned"} '), 1);
      } finally {
        streaming.close();
        whole.close();
        await service.stop();
      }
    });

    it('100 sessions from 4 addresses holding utterances open leave an honest kiosk 8 of 10 turns at least', async () => {
      // Budgets small enough that the attack fills them within the test: the bridge's audio budget (with
      // /chat) and the simulated recogniser's bytes (with Converse).
      const service = await startRecorded(
        {
          chat_interface: chatInterface,
          ws_sessions_per_address: '0',
          queued_audio_bytes: String(BUDGET_BYTES),
          max_audio_frame_bytes: String(128 * 1024),
        },
        { recogniserLimits: { maxBytes: BUDGET_BYTES } },
      );
      const attackers: KioskClient[] = [];
      const stopAttack = new AbortController();
      const stopped = (): boolean => stopAttack.signal.aborted;
      const attacks: Promise<void>[] = [];
      try {
        for (let index = 0; index < 100; index += 1) {
          const attacker = await KioskClient.connect(service.wsUrl, {
            localAddress: `127.0.0.${2 + (index % 4)}`,
          });
          attackers.push(attacker);
        }
        // Each holds an utterance open as long as it is let: about 1 s of audio at once (together more
        // than the budget, so what is left is less than one of them), then an empty part every 2 s; when
        // one is abandoned it opens the next.
        const hold = async (attacker: KioskClient): Promise<void> => {
          await attacker.frameCount(1, 10_000);
          let turn = 0;
          for (let round = 0; round < 40 && !stopped(); round += 1) {
            turn += 1;
            const opened = turn;
            attacker.sendJson({ service: 'utterance_start' });
            attacker.socket.send(encodePartFrame(opened, 0, new Uint8Array(ATTACK_BYTES).fill(1)));
            for (let sequence = 1; sequence < 40; sequence += 1) {
              await sleep(2_000);
              if (stopped() || turnEnd(attacker.frames, opened) !== undefined) break;
              attacker.socket.send(encodePartFrame(opened, sequence, new Uint8Array(0)));
            }
          }
        };
        for (const attacker of attackers) attacks.push(hold(attacker));
        await sleep(3_000);

        const honest = await KioskClient.connect(service.wsUrl);
        await honest.frameCount(1);
        let answered = 0;
        // 1 s of speech a turn: more than the room the attackers leave.
        for (let turn = 1; turn <= 10; turn += 1) {
          honest.sendJson({ service: 'utterance_start' });
          for (let sequence = 0; sequence < 10; sequence += 1) {
            honest.socket.send(encodePartFrame(turn, sequence, PART));
            await sleep(100);
          }
          honest.sendJson({ service: 'utterance_end', turn, parts: 10 });
          await honest.until((frames) => turnEnd(frames, turn) !== undefined, `turn ${turn}'s end`, 15_000);
          const end = turnEnd(honest.frames, turn);
          if (end?.kind === 'text' && end.json['outcome'] === 'answered') answered += 1;
        }
        honest.close();
        assert.ok(
          answered >= 8,
          `honest turns answered: ${answered} of 10; ${JSON.stringify(
            honest
              .texts()
              .filter((text) => text['type'] === 'error')
              .slice(0, 3),
          )}`,
        );
      } finally {
        stopAttack.abort();
        for (const attacker of attackers) attacker.close();
        await Promise.allSettled(attacks);
        await service.stop();
      }
    });
  });
}
