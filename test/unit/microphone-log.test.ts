import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { pino } from 'pino';
import { isMicrophoneEnabled, startMicrophoneActor } from '../../src/actors/microphone-machine.js';
import { createMicrophoneStateStore, MICROPHONE_STATE_FILE } from '../../src/app/microphone-state.js';

const scratch: string[] = [];
after(async () => {
  for (const directory of scratch) await rm(directory, { recursive: true, force: true });
});
const freshDir = async () => {
  const directory = await mkdtemp(join(tmpdir(), 'tour-bridge-state-'));
  scratch.push(directory);
  return directory;
};
const capture = () => {
  const lines: { level: number; msg: string; file?: string; reason?: string }[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as never) });
  return { log, lines };
};

describe('microphone state kept under --state_dir', () => {
  it('starts enabled without a file, saves each change atomically, and loads what was saved', async () => {
    const directory = join(await freshDir(), 'not-yet-made');
    const { log, lines } = capture();
    const store = createMicrophoneStateStore(directory, log);
    assert.equal(await store.load(), true);
    await store.save(false);
    assert.equal(await readFile(join(directory, MICROPHONE_STATE_FILE), 'utf8'), '{"enabled":false}\n');
    // Written by rename from a temporary file: none is left next to it.
    assert.deepEqual(await readdir(directory), [MICROPHONE_STATE_FILE]);
    assert.equal(await createMicrophoneStateStore(directory, log).load(), false);
    void store.save(true);
    void store.save(false);
    await store.settled();
    assert.equal(await createMicrophoneStateStore(directory, log).load(), false, 'the last save wins');
    assert.deepEqual(lines, []);
  });

  for (const [what, content] of [
    ['half a file', '{"enab'],
    ['another shape', '{"enabled":"no"}'],
    ['not an object', 'false'],
    ['a file far too large', `{"enabled":false,"pad":"${'x'.repeat(10_000)}"}`],
  ] as const) {
    it(`logs one clear error and starts enabled (the spec's default) on ${what}`, async () => {
      const directory = await freshDir();
      await writeFile(join(directory, MICROPHONE_STATE_FILE), content);
      const { log, lines } = capture();
      assert.equal(await createMicrophoneStateStore(directory, log).load(), true);
      assert.equal(lines.length, 1);
      const [line] = lines;
      assert.ok(line);
      assert.equal(line.level, 50);
      assert.match(line.msg, /microphone state is corrupt; starting enabled/);
      assert.equal(line.file, join(directory, MICROPHONE_STATE_FILE));
    });
  }

  it('logs a failed save and rejects, so the caller can be told (a file where the directory should be)', async () => {
    const parent = await freshDir();
    const notADirectory = join(parent, 'file');
    await writeFile(notADirectory, 'x');
    const { log, lines } = capture();
    const store = createMicrophoneStateStore(notADirectory, log);
    await assert.rejects(store.save(false), /EEXIST|ENOTDIR/);
    await store.settled();
    assert.equal(lines.length, 1);
    assert.match(lines[0]?.msg ?? '', /cannot keep the microphone state/);
  });

  it('starts the microphone machine from the restored state; later events fold onto it', () => {
    const restored = startMicrophoneActor(false);
    assert.equal(isMicrophoneEnabled(restored.getSnapshot()), false);
    const answers: string[] = [];
    restored.send({ type: 'microphone.set', enabled: true, respond: (r) => answers.push(r.message) });
    assert.equal(isMicrophoneEnabled(restored.getSnapshot()), true);
    assert.deepEqual(answers, ['microphone enabled']);
    assert.equal(isMicrophoneEnabled(startMicrophoneActor().getSnapshot()), true);
  });
});
