import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * docs/architecture.md shows the files each of four event paths runs, as `npm run paths` measures them
 * (V8 precise coverage of one event in the running service): the tool is run here and the doc must show
 * what it printed.
 */
describe('the event paths of docs/architecture.md', () => {
  it('are what `npm run paths` measures', () => {
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'bench/paths.ts', '--check', 'docs/architecture.md'],
      { cwd: ROOT, encoding: 'utf8', timeout: 120_000 },
    );
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /^\/play_audio → every kiosk: \d+ files$/m);
  });
});
