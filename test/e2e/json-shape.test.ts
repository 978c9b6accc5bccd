import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { healthWhile } from '../support/health-probe.js';
import { metric } from '../support/metric.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { KioskClient } from '../support/ws-client.js';

/**
 * JSON whose parsing would cost far more than its size (deep nesting, thousands of keys) is refused on its
 * bytes, before it is parsed, on /ws and over HTTP; the bridge keeps answering everyone else meanwhile.
 */

/** A command-shaped text frame of about 64 KiB holding thousands of keys (7,76x). */
const manyKeysCommand = (): string => {
  const members = ['"service":"clear_history"'];
  for (let key = 0; members.join(',').length < 64 * 1024 - 64; key += 1) members.push(`"k${key}":1`);
  return `{${members.join(',')}}`;
};

const post = (baseUrl: string, body: string | Uint8Array) =>
  fetch(`${baseUrl}/tour`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

const percentile = (values: readonly number[], share: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0;
};

describe('JSON whose cost follows its shape, not its size', () => {
  let server: ServerProcess;
  before(async () => {
    server = await startServerProcess();
  });
  after(async () => {
    await server.stop();
  });

  it('a /ws text frame of 7,000+ keys is refused before parsing, and /health keeps answering within 100 ms', async () => {
    const text = manyKeysCommand();
    const senders = await Promise.all([KioskClient.connect(server.wsUrl), KioskClient.connect(server.wsUrl)]);
    try {
      await Promise.all(senders.map((sender) => sender.frameCount(1)));
      await fetch(`${server.baseUrl}/health`);
      // 40 frames each, the inbound budget's burst: parsed and validated, they cost ~6 ms of CPU each.
      const frameCount = 40;
      const answered = Promise.all(
        senders.map((sender) =>
          sender.until(
            (frames) => frames.filter((frame) => frame.kind === 'text').length >= 1 + frameCount,
            'an answer to every frame',
            20_000,
          ),
        ),
      );
      const cpuBefore = server.cpuMs();
      for (let index = 0; index < frameCount; index += 1)
        for (const sender of senders) sender.socket.send(text);
      const health = await healthWhile(server.baseUrl, answered);
      await answered;
      const cpu = server.cpuMs() - cpuBefore;
      console.log(
        `# ${2 * frameCount} frames of ${text.length} bytes: server CPU ${cpu.toFixed(0)} ms; /health p99 ${percentile(health, 0.99).toFixed(1)} ms`,
      );
      for (const sender of senders) {
        const errors = sender.texts().filter((message) => message['type'] === 'error');
        assert.equal(errors.length, frameCount);
        const [first] = errors;
        assert.ok(first !== undefined);
        assert.equal(first['code'], 'invalid_command');
        assert.match(String(first['message']), /more than 8 object members/);
        assert.equal(sender.closeEvent, undefined, 'the session stays open');
      }
      assert.ok(Math.max(0, ...health) < 100, `/health took up to ${Math.max(0, ...health).toFixed(1)} ms`);
      assert.ok(
        (await metric(server.baseUrl, 'tour_bridge_ws_refused_frames_total{reason="invalid_command"}')) >=
          2 * frameCount,
      );
    } finally {
      for (const sender of senders) sender.close();
    }
  });

  it('a /ws command nested in arrays is refused by its depth', async () => {
    const kiosk = await KioskClient.connect(server.wsUrl);
    try {
      await kiosk.frameCount(1);
      kiosk.socket.send(`{"service":${'['.repeat(30_000)}`);
      await kiosk.frameCount(2);
      const answer = kiosk.texts()[1];
      assert.ok(answer !== undefined);
      assert.equal(answer['code'], 'invalid_command');
      assert.match(String(answer['message']), /nest more than 1 deep/);
    } finally {
      kiosk.close();
    }
  });

  it('1 MiB HTTP bodies of nested "[" from four senders get 422 at once, and /health keeps answering', async () => {
    const body = Buffer.from('['.repeat(1024 * 1024 - 1));
    await fetch(`${server.baseUrl}/health`);
    const cpuBefore = server.cpuMs();
    const answers = Promise.all(
      Array.from({ length: 4 }, async () => {
        const replies = [];
        for (let round = 0; round < 5; round += 1) {
          const reply = await post(server.baseUrl, body);
          replies.push({ status: reply.status, problem: (await reply.json()) as { detail?: string } });
        }
        return replies;
      }),
    );
    const health = await healthWhile(server.baseUrl, answers);
    const replies = (await answers).flat();
    const cpu = server.cpuMs() - cpuBefore;
    console.log(
      `# 20 bodies of 1 MiB nested "[": server CPU ${cpu.toFixed(0)} ms; /health p99 ${percentile(health, 0.99).toFixed(1)} ms of ${health.length}`,
    );
    for (const reply of replies) {
      assert.equal(reply.status, 422);
      assert.match(String(reply.problem.detail), /nest more than 3 deep/);
    }
    assert.ok(percentile(health, 0.99) < 100, `/health p99 ${percentile(health, 0.99).toFixed(1)} ms`);
  });

  it('a tour body of more members than 500 steps hold is refused before parsing, naming the limit', async () => {
    const members = Array.from({ length: 20_000 }, (_, key) => `"k${key}":1`).join(',');
    const reply = await post(server.baseUrl, `{${members}}`);
    assert.equal(reply.status, 422);
    const problem = (await reply.json()) as { detail: string; errors: { field: string; message: string }[] };
    assert.match(problem.detail, /more than 1503 object members/);
    assert.equal(problem.errors[0]?.field, '(body)');
  });

  it('a tour of 500 steps (the most a tour holds) still passes the shape check', async () => {
    const steps = Array.from({ length: 500 }, (_, index) => ({
      description: `step ${index}`,
      destination: 'hall',
      dialogue: null,
    }));
    const reply = await post(
      server.baseUrl,
      JSON.stringify({ tour_name: 'Longest tour', map_name: 'museum', steps }),
    );
    assert.equal(reply.status, 201);
  });
});
