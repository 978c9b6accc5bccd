import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sendJson } from '../support/http.js';
import { startServerProcess } from '../support/server-process.js';
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
  const scratch: string[] = [];
  after(async () => {
    for (const directory of scratch) await rm(directory, { recursive: true, force: true });
  });

  it('comes back disabled after a restart with the same --state_dir, and enabled again once enabled', async () => {
    const stateDir = await mkdtemp(join(tmpdir(), 'tour-bridge-state-'));
    scratch.push(stateDir);
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
    assert.deepEqual(JSON.parse(await readFile(join(stateDir, 'microphone.json'), 'utf8')), {
      enabled: true,
    });
  });

  it('starts enabled, with one error line, when the kept state is corrupt', async () => {
    const stateDir = await mkdtemp(join(tmpdir(), 'tour-bridge-state-'));
    scratch.push(stateDir);
    await writeFile(join(stateDir, 'microphone.json'), '{"enabled": fal');
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

  it('without --state_dir, says at start that a restart forgets a disable', async () => {
    const server = await startServerProcess();
    try {
      assert.match(server.startupLog, /no --state_dir: the microphone starts enabled/);
    } finally {
      await server.stop();
    }
  });
});
