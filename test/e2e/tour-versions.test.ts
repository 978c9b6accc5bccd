import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertProblem } from '../contract/tour-api-contract.js';
import { request, sendJson } from '../support/http.js';
import type { SimBackend } from '../../src/robot/sim/sim-backend.js';
import { startSimService, type TestService } from '../support/test-service.js';

/** Polls `done` every 10 ms for at most 5 s. */
const waitFor = async (done: () => boolean, what: string): Promise<void> => {
  for (let attempt = 0; attempt < 500 && !done(); attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.ok(done(), `waited 5 s for ${what}`);
};

/**
 * Conditional changes (If-Match) against a tour service that takes time to answer, as a real node does:
 * each simulated call answers after 25 ms, so concurrent requests would all read the tour before any of
 * them writes it, unless the bridge runs them one at a time per tour.
 */

const LATENCY_MS = 25;
const tourOf = (name: string, description: string) => ({
  tour_name: name,
  map_name: 'floor-1',
  steps: [{ description, destination: null, dialogue: null }],
});

describe('conditional changes on a slow tour service', () => {
  let running: TestService & { sim: SimBackend };
  before(async () => {
    // A short ROS time-out: two tests hang a read on purpose and wait for it.
    running = await startSimService({ latencyMs: LATENCY_MS }, { ros_timeout_ms: '1000' });
  });
  after(async () => {
    await running.stop();
  });

  const etagOf = async (name: string): Promise<string> => {
    const got = await request(running.baseUrl, 'GET', `/tour/${name}`);
    assert.equal(got.status, 200, got.text);
    return got.headers.get('etag') ?? '';
  };
  const put = (name: string, etag: string, description: string) =>
    request(running.baseUrl, 'PUT', `/tour/${name}`, {
      headers: { 'if-match': etag },
      body: JSON.stringify(tourOf(name, description)),
    });

  it('shows ETag, If-Match, 412 and the blank-name rule in the OpenAPI document', async () => {
    interface Operation {
      parameters?: { name: string; in: string; required: boolean }[];
      responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, unknown> }>;
    }
    const document = (await request(running.baseUrl, 'GET', '/openapi.json')).json as {
      paths: Record<string, Record<string, Operation>>;
      components: { schemas: Record<string, { properties: Record<string, { pattern?: string }> }> };
    };
    const byName = document.paths['/tour/{tour_name}'] ?? {};
    assert.ok(byName['get']?.responses['200']?.headers?.['etag'], 'GET /tour/{tour_name} 200 names ETag');
    const changes = [document.paths['/tour']?.['put'], byName['put'], byName['delete']];
    for (const operation of changes) {
      assert.ok(operation !== undefined);
      assert.deepEqual(
        operation.parameters?.map(({ name, in: where, required }) => ({ name, where, required })),
        [{ name: 'if-match', where: 'header', required: false }],
      );
      const precondition = operation.responses['412'];
      assert.ok(precondition?.headers?.['etag'], '412 names the current ETag');
      assert.ok(precondition.content?.['application/problem+json']);
    }
    // POST takes the new-tour schema: a name with something visible in it.
    const pattern = new RegExp(
      document.components.schemas['NewTour']?.properties['tour_name']?.pattern ?? '',
      'u',
    );
    assert.equal(pattern.test('garden'), true);
    assert.equal(pattern.test(' \u00a0\u200b'), false);
  });

  it('lets one of many concurrent changes with the same version through; the rest get 412', async () => {
    assert.equal((await sendJson(running.baseUrl, 'POST', '/tour', tourOf('race', 'first'))).status, 201);
    const etag = await etagOf('race');
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, index) => put('race', etag, `writer ${index}`)),
    );
    const statuses = results.map((result) => result.status);
    assert.deepEqual(
      [...statuses].sort(),
      [200, 412, 412, 412, 412, 412],
      `statuses in order of sending: ${statuses.join(' ')}`,
    );
    const winner = statuses.indexOf(200);
    const stored = (await request(running.baseUrl, 'GET', '/tour/race')).json as {
      steps: { description: string }[];
    };
    assert.equal(stored.steps[0]?.description, `writer ${winner}`);
    // Changes to other tours do not wait for this one's turn.
    assert.equal((await sendJson(running.baseUrl, 'POST', '/tour', tourOf('other', 'x'))).status, 201);
  });

  it('answers 503 tour-busy with Retry-After beyond 32 waiting changes to one tour', async () => {
    assert.equal((await sendJson(running.baseUrl, 'POST', '/tour', tourOf('busy', 'first'))).status, 201);
    const etag = await etagOf('busy');
    // The first change's read hangs (until its time-out): it holds the turn while 35 more arrive.
    running.sim.faults.setUnresponsive('tour_get', true);
    const settled: number[] = [];
    const results = Array.from({ length: 36 }, (_, index) =>
      put('busy', etag, `${index}`).then((result) => {
        settled.push(result.status);
        return result;
      }),
    );
    // 32 wait behind it; the other 3 are refused at once.
    await waitFor(() => settled.length >= 3, 'three refusals');
    assert.deepEqual(settled, [503, 503, 503]);
    running.sim.faults.setUnresponsive('tour_get', false);
    const all = await Promise.all(results);
    const statuses = all.map((result) => result.status);
    // The holder's read timed out (504); the next change went through, the 31 behind it found it stale.
    assert.deepEqual(
      [...statuses].sort(),
      [200, ...Array.from({ length: 31 }, () => 412), 503, 503, 503, 504],
      statuses.join(' '),
    );
    for (const result of all.filter((answer) => answer.status === 503)) {
      assertProblem(result, 503, 'tour-busy');
      assert.equal(result.headers.get('retry-after'), '1');
    }
    // The queue drained: a change with the current version goes through.
    assert.equal((await put('busy', await etagOf('busy'), 'after')).status, 200);
  });

  it('gives the turn on when a client leaves while its change waits', async () => {
    assert.equal((await sendJson(running.baseUrl, 'POST', '/tour', tourOf('gone', 'first'))).status, 201);
    const etag = await etagOf('gone');
    running.sim.faults.setUnresponsive('tour_get', true);
    const first = put('gone', etag, 'timed out');
    const leaving = new AbortController();
    const abandoned = fetch(`${running.baseUrl}/tour/gone`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'if-match': etag },
      body: JSON.stringify(tourOf('gone', 'abandoned')),
      signal: leaving.signal,
    }).catch((error: unknown) => error);
    // Time for the second request to reach the bridge and wait behind the hung first one; then it leaves.
    await new Promise((resolve) => setTimeout(resolve, 200));
    leaving.abort();
    assert.ok((await abandoned) instanceof Error);
    running.sim.faults.setUnresponsive('tour_get', false);
    assert.equal((await first).status, 504);
    // Nothing is stuck behind the client that left: the next change runs.
    const next = await put('gone', etag, 'next');
    assert.equal(next.status, 200, next.text);
  });
});
