import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';

interface Loaded {
  readonly beforeScrape: readonly string[];
  readonly afterScrape: readonly string[];
  readonly status: number;
}

/** Runs test/fixtures/metrics-lazy-child.ts in a fresh process and reads its line. Bounded. */
const runChild = (): Promise<Loaded> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/metrics-lazy-child.ts'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the fixture did not finish within 30 s: ${stdout}${stderr}`));
    }, 30_000);
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      const line = stdout.split('\n').find((each) => each.startsWith('{'));
      if (code !== 0 || line === undefined) {
        reject(new Error(`the fixture exited with ${String(code)}: ${stdout}${stderr}`));
        return;
      }
      resolve(JSON.parse(line) as Loaded);
    });
  });

describe('prom-client is loaded at the first scrape of /metrics', () => {
  it('a started bridge that counted a request holds none of it; the first scrape loads the registry and collectors only', async () => {
    const loaded = await runChild();
    assert.deepEqual(loaded.beforeScrape, []);
    assert.equal(loaded.status, 200);
    assert.ok(loaded.afterScrape.includes('prom-client/lib/registry.js'), loaded.afterScrape.join(', '));
    // Its index loads the push gateway, the cluster aggregator and the default metrics, whose CPU
    // collector loads @opentelemetry/api; the bridge needs none of them.
    for (const unused of [
      'prom-client/index.js',
      'prom-client/lib/pushgateway.js',
      'prom-client/lib/cluster.js',
    ]) {
      assert.ok(!loaded.afterScrape.includes(unused), `${unused} stays unloaded`);
    }
    assert.deepEqual(
      loaded.afterScrape.filter((path) => path.startsWith('@opentelemetry/')),
      [],
    );
  });
});
