import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { createPlayAudioLosses } from '../../src/app/play-audio-losses.js';
import { createBridgeMetrics } from '../../src/metrics/bridge-metrics.js';
import { logCapture } from '../support/log-capture.js';

const OPERATIONS = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');

const setUp = () => {
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: 'info' }, logCapture(lines));
  const metrics = createBridgeMetrics();
  const losses = createPlayAudioLosses({
    metrics,
    log,
    playAudioBufferBytes: 4_096,
    sendBufferBytes: 2_048,
  });
  const dropped = async (reason: string): Promise<number> => {
    const text = await metrics.registry().metrics();
    const match = new RegExp(
      `^tour_bridge_play_audio_dropped_total\\{reason="${reason}"\\} (\\d+)$`,
      'm',
    ).exec(text);
    return Number(match?.[1] ?? Number.NaN);
  };
  return { lines, losses, dropped };
};

describe('/play_audio losses: counted by reason, and said in the warn lines docs/operations.md lists', () => {
  it('buffer_full: each message counts; the first is a line at once with the limit, the rest on close', async () => {
    const { lines, losses, dropped } = setUp();
    losses.playAudioDropped('buffer_full', 1, 1_000);
    assert.equal(await dropped('buffer_full'), 1);
    assert.equal(lines.length, 1);
    const first = lines[0] ?? {};
    assert.equal(first['level'], 40, 'a warn line');
    assert.equal(first['dropped'], 1);
    assert.equal(first['droppedBytes'], 1_000);
    assert.equal(first['playAudioBufferBytes'], 4_096);
    assert.ok(
      OPERATIONS.includes(String(first['msg'])),
      `docs/operations.md names "${String(first['msg'])}"`,
    );

    losses.playAudioDropped('buffer_full', 1, 10);
    losses.playAudioDropped('buffer_full', 1, 20);
    assert.equal(await dropped('buffer_full'), 3);
    assert.equal(lines.length, 1, 'a burst writes no line per message');
    losses.close();
    assert.deepEqual(
      [lines[1]?.['dropped'], lines[1]?.['droppedBytes'], lines[1]?.['droppedTotal']],
      [2, 30, 3],
    );
    assert.equal(await dropped('slow_kiosk'), 0);
    assert.equal(await dropped('middleware_lost'), 0);
  });

  it('slow_kiosk: counts as many as were dropped at once, with the kiosk buffer limit and no bytes', async () => {
    const { lines, losses, dropped } = setUp();
    losses.playAudioDropped('slow_kiosk', 5);
    assert.equal(await dropped('slow_kiosk'), 5);
    const line = lines[0] ?? {};
    assert.deepEqual([line['dropped'], line['droppedTotal'], line['sendBufferBytes']], [5, 5, 2_048]);
    assert.equal(line['droppedBytes'], undefined);
    assert.ok(OPERATIONS.includes(String(line['msg'])), `docs/operations.md names "${String(line['msg'])}"`);
    losses.close();
    assert.equal(await dropped('buffer_full'), 0);
  });

  it('middleware_lost: the middleware’s count, in one step', async () => {
    const { lines, losses, dropped } = setUp();
    losses.playAudioDropped('middleware_lost', 7);
    losses.playAudioDropped('middleware_lost', 2);
    assert.equal(await dropped('middleware_lost'), 9);
    const line = lines[0] ?? {};
    assert.deepEqual([line['dropped'], line['droppedTotal']], [7, 7]);
    assert.ok(OPERATIONS.includes(String(line['msg'])), `docs/operations.md names "${String(line['msg'])}"`);
    losses.close();
    assert.deepEqual([lines[1]?.['dropped'], lines[1]?.['droppedTotal']], [2, 9]);
  });
});
