import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { echoChatParts } from '../../src/robot/echo-chat.js';
import { KioskClient, type ReceivedFrame } from '../support/ws-client.js';
import { ACTION_SILENT_TIMEOUT_MS, CONVERSE, type RosGraph } from './graph.js';

/**
 * Streamed turns through the bridge (`--chat_interface action`, issue #12) over /ws, against the demo
 * chat nodes' Converse action servers on the real graph: the parts as pairs with their `turn`, the end of
 * a turn, barge-in (`{"service":"cancel"}`) reaching the action server, and a server that never answers.
 * The wire protocol: /work/brief/turn-protocol.md, docs/protocol.md.
 */

const FRAME_TIMEOUT_MS = 20_000;

/** Bytes with every value 0–255, in a pattern a shifted or truncated copy would not match. */
const patternBytes = (length: number, seed: number): Uint8Array =>
  Uint8Array.from({ length }, (_, index) => (index * 11 + (index >> 8) + seed) & 0xff);

/** The frames after the state frame, pairs folded: what a kiosk saw of its turns, in order. */
type Seen =
  | { kind: 'pair'; meta: Record<string, unknown>; messageId: number; audio: Buffer }
  | { kind: 'text'; json: Record<string, unknown> };

const seenOf = (frames: readonly ReceivedFrame[]): Seen[] => {
  const seen: Seen[] = [];
  for (let index = 1; index < frames.length; index += 1) {
    const frame = frames[index];
    const next = frames[index + 1];
    if (frame?.kind !== 'text') continue;
    if (frame.json['type'] === 'audio' && next?.kind === 'binary') {
      seen.push({
        kind: 'pair',
        meta: frame.json,
        messageId: next.bytes.readUInt32BE(0),
        audio: next.bytes.subarray(4),
      });
      index += 1;
    } else {
      seen.push({ kind: 'text', json: frame.json });
    }
  }
  return seen;
};

const openKiosk = async (wsUrl: string): Promise<KioskClient> => {
  const kiosk = await KioskClient.connect(wsUrl);
  await kiosk.frameCount(1, FRAME_TIMEOUT_MS);
  return kiosk;
};

const isTurnEnd = (turn: number) => (seen: Seen) =>
  seen.kind === 'text' && seen.json['type'] === 'turn_end' && seen.json['turn'] === turn;

const untilSeen = (
  kiosk: KioskClient,
  what: string,
  predicate: (seen: Seen) => boolean,
  timeoutMs = FRAME_TIMEOUT_MS,
) => kiosk.until((frames) => seenOf(frames).some(predicate), what, timeoutMs);

/** The pairs expected for one utterance: the demo chat's parts, each with the turn it answers. */
const expectedPairs = (audio: Uint8Array, turn: number) =>
  echoChatParts({ audio }, CONVERSE.parts).map((part) => ({
    meta: { type: 'audio', emotion: part.emotion, text: part.text, turn },
    audio: [...part.audio],
  }));

const pairsOfTurn = (seen: readonly Seen[], turn: number) =>
  seen.flatMap((each) =>
    each.kind === 'pair' && each.meta['turn'] === turn
      ? [
          {
            meta: Object.fromEntries(Object.entries(each.meta).filter(([key]) => key !== 'messageId')),
            audio: [...each.audio],
          },
        ]
      : [],
  );

export const converseBridgeSuite = (graph: () => RosGraph): void => {
  describe('streamed turns through the bridge (--chat_interface action) on the real graph', () => {
    it('sends each part as a pair with its turn the moment it arrives, then turn_end answered', async () => {
      const { actionBridge } = graph();
      const kiosk = await openKiosk(actionBridge.wsUrl);
      const first = patternBytes(3_001, 1);
      const second = patternBytes(20, 2);
      kiosk.socket.send(first);
      await untilSeen(kiosk, 'the first pair of turn 1', (seen) => seen.kind === 'pair');
      // A part is sent when it arrives, not gathered: the turn is still running when the first pair is here.
      assert.equal(seenOf(kiosk.frames).filter(isTurnEnd(1)).length, 0, 'turn 1 not over at its first part');
      await untilSeen(kiosk, 'turn_end of turn 1', isTurnEnd(1));
      kiosk.socket.send(second);
      await untilSeen(kiosk, 'turn_end of turn 2', isTurnEnd(2));

      const seen = seenOf(kiosk.frames);
      assert.deepEqual(pairsOfTurn(seen, 1), expectedPairs(first, 1));
      assert.deepEqual(pairsOfTurn(seen, 2), expectedPairs(second, 2));
      assert.deepEqual(
        seen.map((each) => (each.kind === 'pair' ? `pair ${String(each.meta['turn'])}` : each.json)),
        [
          ...Array.from({ length: CONVERSE.parts }, () => 'pair 1'),
          { type: 'turn_end', turn: 1, outcome: 'answered' },
          ...Array.from({ length: CONVERSE.parts }, () => 'pair 2'),
          { type: 'turn_end', turn: 2, outcome: 'answered' },
        ],
      );
      const ids = seen.flatMap((each) => (each.kind === 'pair' ? [each.messageId] : []));
      seen.forEach((each) => {
        if (each.kind === 'pair') assert.equal(each.meta['messageId'], each.messageId);
      });
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => a - b),
        'message ids increase',
      );
      assert.equal(new Set(ids).size, ids.length);
      kiosk.close();
    });

    it('cancel mid-turn: turn_end cancelled, then the ack, nothing after; the action server saw the cancel', async () => {
      const { actionBridge, demoChat } = graph();
      const kiosk = await openKiosk(actionBridge.wsUrl);
      const mark = demoChat.mark();
      kiosk.socket.send(patternBytes(900, 3));
      await untilSeen(kiosk, 'the first pair', (seen) => seen.kind === 'pair');
      kiosk.sendJson({ service: 'cancel' });
      await untilSeen(kiosk, 'the cancel ack', (seen) => seen.kind === 'text' && seen.json['type'] === 'ack');
      await demoChat.waitFor(
        /converse cancel requested/,
        'the demo chat seeing the cancel',
        FRAME_TIMEOUT_MS,
        mark,
      );
      const canceled = await demoChat.waitFor(
        /"partsSent":(\d+),"parts":(\d+).*converse goal canceled/,
        'the demo chat ending the goal canceled',
        FRAME_TIMEOUT_MS,
        mark,
      );
      assert.ok(Number(canceled[1]) < CONVERSE.parts, `the server stopped after ${canceled[1]} part(s)`);
      // Long enough for the rest of the answer, had it gone on.
      await sleep(CONVERSE.parts * CONVERSE.partMs);
      const seen = seenOf(kiosk.frames);
      const ackAt = seen.findIndex((each) => each.kind === 'text' && each.json['type'] === 'ack');
      assert.deepEqual(seen.slice(ackAt - 1), [
        { kind: 'text', json: { type: 'turn_end', turn: 1, outcome: 'cancelled' } },
        { kind: 'text', json: { type: 'ack', service: 'cancel' } },
      ]);
      const pairs = seen.filter((each) => each.kind === 'pair');
      assert.ok(
        pairs.length >= 1 && pairs.length < CONVERSE.parts,
        `${pairs.length} pair(s) before the cancel`,
      );
      // The session goes on: the next utterance is turn 2, answered in full.
      kiosk.socket.send(patternBytes(12, 4));
      await untilSeen(kiosk, 'turn_end of turn 2', isTurnEnd(2));
      assert.deepEqual(pairsOfTurn(seenOf(kiosk.frames), 2), expectedPairs(patternBytes(12, 4), 2));
      kiosk.close();
    });

    it('a Converse server that never answers: chat_timeout, turn_end failed, and the goal is cancelled on the server', async () => {
      const { actionSilentBridge, demoChatSilent, silentPrefix } = graph();
      const kiosk = await openKiosk(actionSilentBridge.wsUrl);
      const mark = demoChatSilent.mark();
      kiosk.socket.send(patternBytes(50, 5));
      await demoChatSilent.waitFor(
        /converse goal accepted/,
        'the silent server taking the goal',
        FRAME_TIMEOUT_MS,
        mark,
      );
      await untilSeen(kiosk, 'turn_end of turn 1', isTurnEnd(1), ACTION_SILENT_TIMEOUT_MS + FRAME_TIMEOUT_MS);
      const seen = seenOf(kiosk.frames);
      assert.deepEqual(
        seen.map((each) =>
          each.kind === 'text'
            ? [each.json['type'], each.json['code'] ?? each.json['outcome'], each.json['turn']]
            : 'pair',
        ),
        [
          ['error', 'chat_timeout', 1],
          ['turn_end', 'failed', 1],
        ],
      );
      const error = seen[0];
      assert.ok(error?.kind === 'text');
      assert.match(
        String(error.json['message']),
        new RegExp(`${silentPrefix}/converse.*${ACTION_SILENT_TIMEOUT_MS} ms`),
      );
      // The call wrapper cancels a timed-out call in the port, which cancels the goal on the graph.
      await demoChatSilent.waitFor(
        /converse cancel requested/,
        'the silent server seeing the cancel',
        FRAME_TIMEOUT_MS,
        mark,
      );
      assert.equal(kiosk.closeEvent, undefined, 'the session stays open');
      kiosk.close();
    });
  });
};
