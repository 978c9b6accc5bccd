import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { request, sendJson, type HttpResult } from '../support/http.js';
import { tourVersionContract } from './tour-version-contract.js';

/**
 * The tour API's behaviour, whatever backend serves it. Run against the simulation in CI
 * (test/e2e/tour-api.test.ts) and against real ROS 2 nodes by `npm run test:ros`.
 */

export interface ContractTarget {
  readonly baseUrl: string;
}

const uniqueName = (label: string) => `${label}-${randomUUID().slice(0, 8)}`;

const tour = (
  name: string,
  steps: unknown[] = [{ description: 'Start here', destination: 'dock', dialogue: 'Hi' }],
) => ({
  tour_name: name,
  map_name: 'floor-1',
  steps,
});

const pathOf = (name: string) => `/tour/${encodeURIComponent(name)}`;

export const assertProblem = (
  result: HttpResult,
  status: number,
  typeSuffix?: string,
): Record<string, unknown> => {
  assert.equal(result.status, status, `expected ${status}, got ${result.status}: ${result.text}`);
  assert.match(result.headers.get('content-type') ?? '', /^application\/problem\+json/);
  const body = result.json as Record<string, unknown>;
  assert.equal(body['status'], status);
  assert.equal(body['success'], false);
  assert.equal(typeof body['title'], 'string');
  assert.equal(typeof body['detail'], 'string');
  assert.match(String(body['type']), /^urn:tour-bridge:problem:/);
  if (typeSuffix !== undefined) assert.equal(body['type'], `urn:tour-bridge:problem:${typeSuffix}`);
  return body;
};

export const tourApiContract = (target: () => ContractTarget): void => {
  const url = () => target().baseUrl;

  describe('tour API contract', () => {
    it('creates (201), lists, gets, updates and deletes a tour', async () => {
      const name = uniqueName('cycle');
      const created = await sendJson(url(), 'POST', '/tour', tour(name));
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(created.json, { success: true });

      const list = await request(url(), 'GET', '/tour');
      assert.equal(list.status, 200);
      assert.ok(Array.isArray(list.json) && list.json.includes(name), list.text);

      const got = await request(url(), 'GET', pathOf(name));
      assert.equal(got.status, 200);
      assert.deepEqual(got.json, {
        tour_name: name,
        map_name: 'floor-1',
        steps: [{ description: 'Start here', destination: 'dock', dialogue: 'Hi' }],
      });

      const updated = await sendJson(url(), 'PUT', '/tour', { ...tour(name), map_name: 'floor-2' });
      assert.equal(updated.status, 200, updated.text);
      assert.deepEqual(updated.json, { success: true });
      assert.equal(
        ((await request(url(), 'GET', pathOf(name))).json as { map_name: string }).map_name,
        'floor-2',
      );

      const deleted = await request(url(), 'DELETE', pathOf(name));
      assert.equal(deleted.status, 200);
      assert.deepEqual(deleted.json, { success: true });
      assertProblem(await request(url(), 'GET', pathOf(name)), 404, 'tour-not-found');
    });

    it('answers 404 for an unknown tour on GET, PUT and DELETE', async () => {
      const name = uniqueName('ghost');
      assertProblem(await request(url(), 'GET', pathOf(name)), 404, 'tour-not-found');
      assertProblem(await sendJson(url(), 'PUT', '/tour', tour(name)), 404, 'tour-not-found');
      assertProblem(await sendJson(url(), 'PUT', pathOf(name), tour(name)), 404, 'tour-not-found');
      assertProblem(await request(url(), 'DELETE', pathOf(name)), 404, 'tour-not-found');
    });

    it('answers 409 when creating a name that exists', async () => {
      const name = uniqueName('twice');
      assert.equal((await sendJson(url(), 'POST', '/tour', tour(name))).status, 201);
      assertProblem(await sendJson(url(), 'POST', '/tour', tour(name)), 409, 'tour-exists');
    });

    it('lets exactly one of many concurrent creates of one name succeed', async () => {
      const name = uniqueName('race');
      const results = await Promise.all(
        Array.from({ length: 12 }, () => sendJson(url(), 'POST', '/tour', tour(name))),
      );
      const statuses = results.map((result) => result.status).sort();
      assert.deepEqual(statuses, [201, ...Array.from({ length: 11 }, () => 409)]);
    });

    it('keeps null, empty string, unicode and empty steps apart through the round trip', async () => {
      const name = uniqueName('Grüße 東京 🚀');
      const steps = [
        { description: 'null both', destination: null, dialogue: null },
        { description: 'empty both', destination: '', dialogue: '' },
        { description: 'ünïcödé ✓', destination: 'café', dialogue: 'こんにちは 👋' },
        { description: '' },
      ];
      assert.equal((await sendJson(url(), 'POST', '/tour', tour(name, steps))).status, 201);
      const got = await request(url(), 'GET', pathOf(name));
      assert.equal(got.status, 200, got.text);
      assert.deepEqual((got.json as { steps: unknown }).steps, [
        { description: 'null both', destination: null, dialogue: null },
        { description: 'empty both', destination: '', dialogue: '' },
        { description: 'ünïcödé ✓', destination: 'café', dialogue: 'こんにちは 👋' },
        { description: '', destination: null, dialogue: null },
      ]);

      const empty = uniqueName('no-steps');
      assert.equal((await sendJson(url(), 'POST', '/tour', tour(empty, []))).status, 201);
      assert.deepEqual(((await request(url(), 'GET', pathOf(empty))).json as { steps: unknown }).steps, []);
    });

    it('serves names with spaces, %2F and non-ASCII letters end to end', async () => {
      for (const name of [uniqueName('with space'), uniqueName('a/b'), uniqueName('Ørsted-Ĳ')]) {
        assert.equal((await sendJson(url(), 'POST', '/tour', tour(name))).status, 201);
        const got = await request(url(), 'GET', pathOf(name));
        assert.equal(got.status, 200, `${name}: ${got.text}`);
        assert.equal((got.json as { tour_name: string }).tour_name, name);
        assert.equal((await request(url(), 'DELETE', pathOf(name))).status, 200);
      }
    });

    it('PUT /tour/{name}: the path names the tour, a body naming another tour gets 422', async () => {
      const name = uniqueName('path-wins');
      assert.equal((await sendJson(url(), 'POST', '/tour', tour(name))).status, 201);
      const { tour_name: _omitted, ...withoutName } = tour(name);
      const byPath = await sendJson(url(), 'PUT', pathOf(name), { ...withoutName, map_name: 'roof' });
      assert.equal(byPath.status, 200, byPath.text);
      assert.equal(
        ((await request(url(), 'GET', pathOf(name))).json as { map_name: string }).map_name,
        'roof',
      );
      const mismatch = assertProblem(await sendJson(url(), 'PUT', pathOf(name), tour('someone-else')), 422);
      assert.match(String(mismatch['detail']), /tour_name/);
    });

    it('answers 422 naming the field and what is wrong with it', async () => {
      const cases: [unknown, string][] = [
        [{ map_name: 'm', steps: [] }, 'tour_name: missing field'],
        [{ tour_name: 'x', steps: [] }, 'map_name: missing field'],
        [{ tour_name: 'x', map_name: 'm', steps: [{}] }, 'steps.0.description: missing field'],
        [{ tour_name: 'x', map_name: 'm', steps: [5] }, 'steps.0: expected step object, got number'],
        // An array is an object to valibot: without its own check its indices read as unknown fields.
        [{ tour_name: 'x', map_name: 'm', steps: [['d']] }, 'steps.0: expected step object, got array'],
        [{ tour_name: 'x', map_name: 5, steps: [] }, 'map_name: expected string, got number'],
        [
          { tour_name: 'x', map_name: 'm', steps: [{ description: null }] },
          'steps.0.description: expected string, got null',
        ],
        [{ tour_name: 'x', map_name: 'm', steps: 'none' }, 'steps: expected array, got string'],
        ['a tour', '(body): expected tour object, got string'],
        [null, '(body): expected tour object, got null'],
        [
          { tour_name: 'x'.repeat(129), map_name: 'm', steps: [] },
          'tour_name: tour_name must be at most 128 characters',
        ],
        [
          { tour_name: 'bell\u0007', map_name: 'm', steps: [] },
          'tour_name: tour_name must not contain control characters',
        ],
        [
          // No URL can name it (it has no UTF-8 form), so it could never be read or deleted.
          { tour_name: 'lone\udc00', map_name: 'm', steps: [] },
          'tour_name: tour_name must be valid Unicode (it holds a lone UTF-16 surrogate)',
        ],
        [
          { tour_name: 'x', map_name: 'm', steps: [{ description: 'half \ud83d' }] },
          'steps.0.description: description must be valid Unicode (it holds a lone UTF-16 surrogate)',
        ],
        [{ tour_name: 'x', map_name: 'm', steps: [], extra: 1 }, 'extra: unknown field in tour'],
        [
          { tour_name: 'x', map_name: 'm', steps: [{ description: 'd', extra: 1 }] },
          'steps.0.extra: unknown field in step',
        ],
        [[1, 2], '(body): expected tour object, got array'],
        // A new tour's names must show: spaces, a no-break space or a zero-width space alone are no name.
        [
          { tour_name: '   ', map_name: 'm', steps: [] },
          'tour_name: tour_name must not be blank (only spaces or invisible characters)',
        ],
        [
          { tour_name: '\u00a0\u200b', map_name: 'm', steps: [] },
          'tour_name: tour_name must not be blank (only spaces or invisible characters)',
        ],
        [
          { tour_name: 'x', map_name: ' ', steps: [] },
          'map_name: map_name must not be blank (only spaces or invisible characters)',
        ],
        // A dot segment: fetch sends `/tour/..` as `/`, so the tour could be listed and never reached.
        [
          { tour_name: '..', map_name: 'm', steps: [] },
          'tour_name: tour_name must not be "." or ".." (no URL can name such a tour; browsers read /tour/.. as /)',
        ],
        [
          { tour_name: '.', map_name: 'm', steps: [] },
          'tour_name: tour_name must not be "." or ".." (no URL can name such a tour; browsers read /tour/.. as /)',
        ],
      ];
      for (const [body, detail] of cases) {
        const result = assertProblem(await sendJson(url(), 'POST', '/tour', body), 422, 'validation-failed');
        assert.equal(result['detail'], detail, JSON.stringify(body));
        const [field, message] = detail.split(': ');
        assert.deepEqual((result['errors'] as unknown[])[0], { field, message }, JSON.stringify(body));
      }
    });

    it('answers a bounded 422 to a body of many bad elements', async () => {
      // 520,000 steps in a 1 MB body: refused by their number alone, one issue, not one per element.
      const many = `{"tour_name":"b","map_name":"m","steps":[${'1,'.repeat(519_999)}1]}`;
      const tooMany = await request(url(), 'POST', '/tour', {
        body: many,
        headers: { 'content-type': 'application/json' },
      });
      const refused = assertProblem(tooMany, 422, 'validation-failed');
      assert.equal(refused['detail'], 'steps: steps must hold at most 500 entries');
      assert.ok(tooMany.text.length < 2_000, `a ${tooMany.text.length}-character answer`);
      // 500 bad steps (allowed in number): the first 20 issues are listed and the rest counted.
      const bad = assertProblem(
        await sendJson(
          url(),
          'POST',
          '/tour',
          tour(
            uniqueName('bad'),
            Array.from({ length: 500 }, () => 1),
          ),
        ),
        422,
        'validation-failed',
      );
      const errors = bad['errors'] as { field: string }[];
      assert.equal(errors.length, 20);
      assert.deepEqual(errors[19], { field: 'steps.19', message: 'expected step object, got number' });
      assert.equal(bad['errors_omitted'], 480);
    });

    it('accepts a tour name of exactly 128 characters, counted in code points', async () => {
      const name = `${'😀'.repeat(120)}${randomUUID().slice(0, 8)}`;
      assert.equal((await sendJson(url(), 'POST', '/tour', tour(name))).status, 201);
      assert.equal((await request(url(), 'GET', pathOf(name))).status, 200);
    });

    it('answers 400 for malformed JSON and for paths that cannot name a tour at all', async () => {
      assertProblem(await request(url(), 'POST', '/tour', { body: '{"tour_name":' }), 400, 'malformed-json');
      assertProblem(
        await request(url(), 'POST', '/tour', { body: new Uint8Array([0xff, 0xfe]) }),
        400,
        'malformed-json',
      );
      assertProblem(await request(url(), 'GET', '/tour/%E0%A4%A'), 400, 'invalid-tour-name');
      assertProblem(await request(url(), 'DELETE', '/tour/%ZZ'), 400, 'invalid-tour-name');
      assertProblem(await request(url(), 'GET', pathOf('nul\u0000name')), 400, 'invalid-tour-name');
      assertProblem(await request(url(), 'GET', `/tour/${'x'.repeat(5000)}`), 400, 'invalid-tour-name');
    });

    it('lets the tour service decide other names in the path: unknown ones are 404 (spec rules 1, 4, 5)', async () => {
      // Names our own schema would not create may still be held by other ROS nodes; these are not.
      for (const name of [uniqueName('x'.repeat(129)), uniqueName('tab\tname'), uniqueName('bell\u0007')]) {
        assertProblem(await request(url(), 'GET', pathOf(name)), 404, 'tour-not-found');
        assertProblem(await request(url(), 'DELETE', pathOf(name)), 404, 'tour-not-found');
      }
    });

    it('answers 415 for a missing or wrong content type', async () => {
      const body = JSON.stringify(tour(uniqueName('ct')));
      assertProblem(await request(url(), 'POST', '/tour', { body, contentType: null }), 415);
      assertProblem(await request(url(), 'POST', '/tour', { body, contentType: 'text/plain' }), 415);
      assertProblem(
        await request(url(), 'PUT', '/tour', { body, contentType: 'application/json; charset=latin1' }),
        415,
      );
      const ok = await request(url(), 'POST', '/tour', {
        body,
        contentType: 'application/json; charset=utf-8',
      });
      assert.equal(ok.status, 201, ok.text);
    });

    it('answers 413 for a body over the limit', async () => {
      const huge = JSON.stringify(tour(uniqueName('big'), [{ description: 'x'.repeat(2 * 1024 * 1024) }]));
      assertProblem(await request(url(), 'POST', '/tour', { body: huge }), 413, 'payload-too-large');
    });

    it('answers 404 for unknown paths and 405 with Allow for wrong methods', async () => {
      assertProblem(await request(url(), 'GET', '/tours'), 404, 'not-found');
      assertProblem(await request(url(), 'GET', '/tour/a/b'), 404, 'not-found');
      const wrong = assertProblem(await request(url(), 'PATCH', '/tour'), 405, 'method-not-allowed');
      assert.match(String(wrong['detail']), /PATCH/);
      const allowList = (await request(url(), 'DELETE', '/tour')).headers.get('allow');
      // OPTIONS: every path answers a CORS preflight (src/transport/http/router.ts).
      assert.equal(allowList, 'GET, HEAD, POST, PUT, OPTIONS');
      assert.equal(
        (await request(url(), 'POST', pathOf('x'))).headers.get('allow'),
        'GET, HEAD, PUT, DELETE, OPTIONS',
      );
    });
  });

  tourVersionContract(target);
};
