import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { request, sendJson } from '../support/http.js';
import { startServerProcess } from '../support/server-process.js';
import { scratchDirs } from '../support/scratch-dir.js';
import { KioskClient } from '../support/ws-client.js';

/** The first frame of a new kiosk: the `state` frame with the microphone's state. */
const microphoneOfNewKiosk = async (wsUrl: string): Promise<unknown> => {
  const kiosk = await KioskClient.connect(wsUrl);
  try {
    await kiosk.frameCount(1, 5_000);
    return kiosk.texts()[0]?.['microphone'];
  } finally {
    kiosk.close();
  }
};

// Issue #15: disabled over /microphone/set_enabled, the bridge restarted: kiosks came back enabled.
describe('the microphone across a restart (--state_dir)', () => {
  const freshStateDir = scratchDirs('tour-bridge-state-');

  it('comes back disabled after a restart with the same --state_dir, and enabled again once enabled', async () => {
    const stateDir = await freshStateDir();
    const first = await startServerProcess(['--state_dir', stateDir]);
    try {
      assert.deepEqual(await microphoneOfNewKiosk(first.wsUrl), { enabled: true });
      const answer = await sendJson(first.baseUrl, 'POST', '/sim/microphone', { enabled: false });
      assert.equal(answer.status, 200);
      assert.deepEqual(await microphoneOfNewKiosk(first.wsUrl), { enabled: false });
    } finally {
      await first.stop();
    }
    const second = await startServerProcess(['--state_dir', stateDir]);
    try {
      assert.match(second.startupLog, /microphone state restored/);
      assert.deepEqual(await microphoneOfNewKiosk(second.wsUrl), { enabled: false });
      const answer = await sendJson(second.baseUrl, 'POST', '/sim/microphone', { enabled: false });
      assert.deepEqual(answer.json, { success: true, message: 'microphone already disabled' });
      await sendJson(second.baseUrl, 'POST', '/sim/microphone', { enabled: true });
    } finally {
      await second.stop();
    }
    const log = (await readFile(join(stateDir, 'microphone.log'), 'utf8')).trim().split('\n');
    assert.deepEqual(
      log.map((line) => (JSON.parse(line) as { enabled: boolean }).enabled),
      [false, true],
    );
  });

  it('serves its event log read-only at GET /microphone/events, behind the token, across a restart', async () => {
    const stateDir = await freshStateDir();
    const token = 'microphone-audit-token-0123456789';
    const auth = { authorization: `Bearer ${token}` };
    const first = await startServerProcess(['--state_dir', stateDir, '--auth_token', token]);
    try {
      assert.equal((await request(first.baseUrl, 'GET', '/microphone/events')).status, 401);
      const before = await request(first.baseUrl, 'GET', '/microphone/events', { headers: auth });
      assert.deepEqual(before.json, { enabled: true, kept: true, events: [] });
      await request(first.baseUrl, 'POST', '/sim/microphone', {
        body: JSON.stringify({ enabled: false }),
        headers: auth,
      });
    } finally {
      await first.stop();
    }
    const second = await startServerProcess(['--state_dir', stateDir, '--auth_token', token]);
    try {
      const after = await request(second.baseUrl, 'GET', '/microphone/events', { headers: auth });
      assert.equal(after.status, 200);
      assert.equal(after.headers.get('cache-control'), 'no-store');
      const body = after.json as { enabled: boolean; kept: boolean; events: Record<string, unknown>[] };
      assert.equal(body.enabled, false);
      assert.equal(body.kept, true);
      assert.deepEqual(
        body.events.map((event) => [event['seq'], event['enabled'], event['source'], event['answer']]),
        [[1, false, 'simulation (POST /sim/microphone)', 'microphone disabled']],
      );
      const at = Date.parse(String(body.events.map((event) => event['at'])[0]));
      assert.ok(Math.abs(at - Date.now()) < 60_000, `kept at ${at}`);
      const refused = await request(second.baseUrl, 'POST', '/microphone/events', { headers: auth });
      assert.equal(refused.status, 405, 'read-only');
    } finally {
      await second.stop();
    }
  });

  it('starts enabled, with one error line, when the kept state is corrupt', async () => {
    const stateDir = await freshStateDir();
    await writeFile(join(stateDir, 'microphone.log'), '{"seq":1,"enabled": fal');
    const server = await startServerProcess(['--state_dir', stateDir]);
    try {
      const errors = server.startupLog.split('\n').filter((line) => line.includes('"level":"error"'));
      assert.equal(errors.length, 1, server.startupLog);
      assert.match(errors[0] ?? '', /the kept microphone state is corrupt; starting enabled/);
      assert.deepEqual(await microphoneOfNewKiosk(server.wsUrl), { enabled: true });
    } finally {
      await server.stop();
    }
  });

  it('without --state_dir, says at start that a restart forgets a disable; its log covers the run', async () => {
    const server = await startServerProcess();
    try {
      assert.match(server.startupLog, /no --state_dir: the microphone starts enabled/);
      await sendJson(server.baseUrl, 'POST', '/sim/microphone', { enabled: false });
      const events = await request(server.baseUrl, 'GET', '/microphone/events');
      const body = events.json as { enabled: boolean; kept: boolean; events: { enabled: boolean }[] };
      assert.equal(body.enabled, false);
      assert.equal(body.kept, false);
      assert.deepEqual(
        body.events.map((event) => event.enabled),
        [false],
      );
    } finally {
      await server.stop();
    }
  });
});

describe('the kept microphone state against a hostile or failing state directory', () => {
  const freshStateDir = scratchDirs('tour-bridge-state-');
  const errorLines = (log: string) => log.split('\n').filter((line) => line.includes('"level":"error"'));

  it('starts and listens, enabled with one error line, when the state file is a FIFO or a link to /dev/zero', async () => {
    for (const [what, make] of [
      [
        'a FIFO',
        (file: string) => {
          execFileSync('mkfifo', [file]);
        },
      ],
      [
        'a link to /dev/zero',
        (file: string) => {
          symlinkSync('/dev/zero', file);
        },
      ],
    ] as const) {
      const stateDir = await freshStateDir();
      make(join(stateDir, 'microphone.log'));
      // Before: a FIFO hung start-up before listening; /dev/zero was read for ~600 MB first.
      const server = await startServerProcess(['--state_dir', stateDir], { timeoutMs: 15_000 });
      try {
        const errors = errorLines(server.startupLog);
        assert.equal(errors.length, 1, `${what}: ${server.startupLog}`);
        assert.match(
          errors[0] ?? '',
          /"reason":"not a regular file","msg":"cannot read the kept microphone state/,
        );
        assert.deepEqual(await microphoneOfNewKiosk(server.wsUrl), { enabled: true }, what);
        assert.ok(server.rssBytes() < 300 * 1024 * 1024, `${what}: RSS ${server.rssBytes()}`);
      } finally {
        await server.stop();
      }
    }
  });

  it('keeps a change before answering it: killed right after the answer, it comes back disabled', async () => {
    for (let run = 0; run < 5; run += 1) {
      const stateDir = await freshStateDir();
      const first = await startServerProcess(['--state_dir', stateDir]);
      const answer = await sendJson(first.baseUrl, 'POST', '/sim/microphone', { enabled: false });
      await first.crash();
      assert.deepEqual(answer.json, { success: true, message: 'microphone disabled' });
      const second = await startServerProcess(['--state_dir', stateDir]);
      try {
        assert.deepEqual(await microphoneOfNewKiosk(second.wsUrl), { enabled: false }, `run ${run}`);
      } finally {
        await second.stop();
      }
    }
  });

  it('removes temporary files of interrupted saves at start', async () => {
    const stateDir = await freshStateDir();
    await writeFile(join(stateDir, '.microphone.log.tmp-12345-1'), '{"seq":1,');
    // An earlier version's, next to its snapshot file.
    await writeFile(join(stateDir, '.microphone.json.tmp-12345-2'), '{"enabled":');
    const server = await startServerProcess(['--state_dir', stateDir]);
    try {
      assert.deepEqual(await readdir(stateDir), []);
      assert.match(server.startupLog, /removed temporary files of interrupted saves/);
    } finally {
      await server.stop();
    }
  });

  it('makes a removed state directory again; a change it cannot keep is refused and not shown', async () => {
    const stateDir = await freshStateDir();
    const server = await startServerProcess(['--state_dir', stateDir]);
    try {
      await rm(stateDir, { recursive: true });
      const kept = await sendJson(server.baseUrl, 'POST', '/sim/microphone', { enabled: false });
      assert.deepEqual(kept.json, { success: true, message: 'microphone disabled' });
      const entry = JSON.parse(await readFile(join(stateDir, 'microphone.log'), 'utf8')) as {
        enabled: boolean;
      };
      assert.equal(entry.enabled, false);
      // A file where the directory should be: the save fails, the caller is told, nothing changes.
      await rm(stateDir, { recursive: true });
      await writeFile(stateDir, 'not a directory');
      const refused = await sendJson(server.baseUrl, 'POST', '/sim/microphone', { enabled: true });
      const body = refused.json as { success: boolean; message: string };
      assert.equal(body.success, false);
      assert.match(body.message, /^microphone not enabled: the state could not be kept \(/);
      assert.deepEqual(await microphoneOfNewKiosk(server.wsUrl), { enabled: false });
      await rm(stateDir);
    } finally {
      await server.stop();
    }
  });
});
