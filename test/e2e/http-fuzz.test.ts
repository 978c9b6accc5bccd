import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { fuzzRuns } from '../support/fuzz-runs.js';
import { observeAnswers, request, type HttpResult, type ObservedAnswer } from '../support/http.js';
import {
  brokenArbitrary,
  validArbitrary,
  type Components,
  type JsonSchema,
} from '../support/openapi-arbitrary.js';
import { undocumentedAnswers, type OpenApiStatuses } from '../support/openapi-statuses.js';
import { startSimService, type TestService } from '../support/test-service.js';

interface Operation {
  readonly requestBody?: { readonly content: Record<string, { readonly schema: JsonSchema }> };
  readonly responses: Record<string, unknown>;
}
interface OpenApi extends OpenApiStatuses {
  readonly paths: Record<string, Record<string, Operation | unknown[]>>;
  readonly components: { readonly schemas: Components; readonly responses?: Record<string, unknown> };
}

const DOCUMENTED_5XX = new Set([502, 503, 504]);

/**
 * The invariants every answer keeps, whatever was sent. `leftTheApi`: fetch resolved dot segments in the
 * path out of the operation's (`/tour/..` is sent as `/`), so another route answered, with its own type.
 */
const assertWellFormed = (result: HttpResult, sent: string, leftTheApi = false) => {
  assert.ok(
    result.status < 500 || DOCUMENTED_5XX.has(result.status),
    `undocumented ${result.status} for ${sent}: ${result.text}`,
  );
  const contentType = result.headers.get('content-type') ?? '';
  if (result.status >= 400) {
    assert.match(contentType, /^application\/problem\+json/, sent);
    const body = result.json as Record<string, unknown>;
    assert.equal(body['status'], result.status, sent);
    assert.equal(body['success'], false, sent);
    for (const field of ['type', 'title', 'detail'])
      assert.equal(typeof body[field], 'string', `${field} in ${sent}`);
  } else if (result.status === 204) {
    assert.equal(result.text, '', sent); // an OPTIONS preflight
  } else if (leftTheApi) {
    assert.notEqual(contentType, '', sent); // the kiosk's page, /health, /openapi.json…
  } else if (sent.includes(' /metrics ')) {
    assert.match(contentType, /^text\/plain/, sent); // Prometheus text
  } else {
    assert.match(contentType, /^application\/json/, sent);
    assert.notEqual(result.json, undefined, sent);
  }
};

describe('HTTP API fuzz from the OpenAPI document (fast-check, sim backend)', () => {
  let running: TestService;
  let document: OpenApi;
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  // Every answer the fuzz gets: each status must be one the document gives for that operation.
  const answers: ObservedAnswer[] = [];
  let stopObserving: () => void = () => undefined;

  before(async () => {
    process.on('unhandledRejection', onRejection);
    running = await startSimService({}, { max_body_bytes: '65536' });
    document = (await request(running.baseUrl, 'GET', '/openapi.json')).json as OpenApi;
    stopObserving = observeAnswers((answer) => answers.push(answer));
  });
  after(async () => {
    stopObserving();
    await running.stop();
    process.off('unhandledRejection', onRejection);
  });

  const operations = () =>
    Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([method]) => method !== 'parameters')
        .map(([method, operation]) => ({
          path,
          method: method.toUpperCase(),
          operation: operation as Operation,
        })),
    );

  const pathValue = fc.oneof(
    fc.string({ unit: 'binary', minLength: 1, maxLength: 140 }).map(encodeURIComponent),
    fc.stringMatching(/^(%[0-9A-Fa-f]{0,2}|[a-z./%-]){1,20}$/),
    fc.constant('welcome'),
  );

  it('keeps the invariants for valid, broken and arbitrary requests to every operation', async () => {
    let slowest = 0;
    const components = document.components.schemas;
    const cases = fc
      .tuple(fc.constantFrom(...operations()), pathValue, fc.nat(99))
      .chain(([op, name, pick]) => {
        const schema = op.operation.requestBody?.content['application/json']?.schema;
        const body: fc.Arbitrary<string | undefined> =
          schema === undefined
            ? fc.constant(undefined)
            : fc.oneof(
                validArbitrary(schema, components).map((value) => JSON.stringify(value)),
                brokenArbitrary(schema, components).map((value) => JSON.stringify(value)),
                fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
                fc.string({ maxLength: 50 }),
              );
        const contentType = fc.constantFrom(
          'application/json',
          'application/json; charset=utf-8',
          'text/plain',
          'application/json; charset=utf-16',
          '',
        );
        return fc.record({
          method:
            pick < 90
              ? fc.constant(op.method)
              : fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'),
          path: fc.constant(op.path.replace('{tour_name}', name)),
          body,
          contentType,
        });
      });
    await fc.assert(
      fc.asyncProperty(cases, async ({ method, path, body, contentType }) => {
        // fetch cannot send a body with GET (nor HEAD); the server ignores bodies there anyway.
        const withBody = body !== undefined && method !== 'GET';
        const started = performance.now();
        const result = await request(running.baseUrl, method, path, {
          ...(withBody ? { body } : {}),
          contentType: contentType === '' ? null : contentType,
        });
        const sentPath = new URL(`${running.baseUrl}${path}`).pathname;
        const leftTheApi = sentPath !== path && sentPath !== '/tour' && !sentPath.startsWith('/tour/');
        assertWellFormed(result, `${method} ${path} ${contentType} ${String(body).slice(0, 80)}`, leftTheApi);
        slowest = Math.max(slowest, performance.now() - started);
      }),
      { numRuns: fuzzRuns(300) },
    );
    assert.deepEqual(rejections, []);
    console.log(`slowest answer: ${slowest.toFixed(1)} ms`);
    // The process still answers normally after all of it.
    assert.equal((await request(running.baseUrl, 'GET', '/health')).status, 200);
    assert.deepEqual(undocumentedAnswers(document, answers), [], 'statuses the OpenAPI document omits');
  });

  it('keeps the invariants for bodies at and around the size limit', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -2, max: 2 }), async (delta) => {
        const limit = 65536;
        const prefix = '{"tour_name":"fuzz-limit","map_name":"m","steps":[{"description":"';
        const suffix = '"}]}';
        const body = `${prefix}${'x'.repeat(limit + delta - prefix.length - suffix.length)}${suffix}`;
        assert.equal(body.length, limit + delta);
        const result = await request(running.baseUrl, 'PUT', '/tour', { body });
        assertWellFormed(result, `PUT /tour of ${body.length} bytes`);
        if (delta > 0) assert.equal(result.status, 413);
        else assert.notEqual(result.status, 413);
      }),
      { numRuns: fuzzRuns(20) },
    );
    assert.deepEqual(undocumentedAnswers(document, answers), [], 'statuses the OpenAPI document omits');
  });
});
