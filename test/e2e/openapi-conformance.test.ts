import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { scratchDirs } from '../support/scratch-dir.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';

/**
 * The OpenAPI document against the running service, checked by an independent tool: Schemathesis (from
 * PyPI) reads `GET /openapi.json`, sends the requests it derives from it (the documented examples and the
 * coverage of every schema's edges), and fails on any answer the document does not describe, an input it
 * says is invalid that is accepted, a valid one refused, or a guard it declares that does not hold.
 * `TOUR_BRIDGE_SCHEMATHESIS` names the program (CI installs it: .ci/run); without it the test skips,
 * saying so, unless `TOUR_BRIDGE_REQUIRE_SCHEMATHESIS=1`.
 */
const SCHEMATHESIS = process.env['TOUR_BRIDGE_SCHEMATHESIS'] ?? 'schemathesis';
const found = spawnSync(SCHEMATHESIS, ['--version'], { encoding: 'utf8', timeout: 60_000 }).status === 0;
const required = process.env['TOUR_BRIDGE_REQUIRE_SCHEMATHESIS'] === '1';
const skip = !found && !required ? `no ${SCHEMATHESIS} (pip install schemathesis)` : false;

const TOKEN = 'conformance-token-0123456789';
const RUN_TIMEOUT_MS = 240_000;

const runSchemathesis = (service: ServerProcess, configFile: string, extraArgs: readonly string[]) => {
  const run = spawnSync(
    SCHEMATHESIS,
    [
      '--config-file',
      configFile,
      '--no-color',
      'run',
      `${service.baseUrl}/openapi.json`,
      '--checks',
      'all',
      '--phases',
      'examples,coverage',
      '--workers',
      '1',
      '--max-failures',
      '20',
      ...extraArgs,
    ],
    {
      // Its cache of findings goes to the scratch directory, beside the configuration, not into the clone.
      cwd: dirname(configFile),
      encoding: 'utf8',
      timeout: RUN_TIMEOUT_MS,
      env: { ...process.env, SCHEMATHESIS_TELEMETRY: 'false' },
    },
  );
  return { status: run.status, output: `${run.stdout}\n${run.stderr}` };
};

/**
 * Schemathesis's configuration: the methods no path takes that it sends to every path, all of its own
 * list except QUERY on the Node.js 20 build of uWebSockets.js, which closes the connection on a method it
 * does not know before our code sees the request (test/e2e/uws-build-limits.test.ts pins it); the
 * official build answers QUERY 405 with `Allow`, and there it is sent.
 */
const configFor = async (service: ServerProcess, dir: string): Promise<string> => {
  const ready = (await (await fetch(`${service.baseUrl}/ready`)).json()) as { uws?: { line?: string } };
  const methods = ['get', 'put', 'post', 'delete', 'options', 'patch', 'trace'];
  if (ready.uws?.line !== 'node20') methods.push('query');
  const file = join(dir, 'schemathesis.toml');
  writeFileSync(
    file,
    [
      '[phases.coverage]',
      `unexpected-methods = ${JSON.stringify(methods)}`,
      // A plain GET of /ws, access granted, is answered 426 (Upgrade Required), as documented.
      '[[operations]]',
      'include-path = "/ws"',
      'checks.positive_data_acceptance.expected-statuses = [426]',
      // The body must name the tour of the path (else 422), a rule between two parameters that JSON
      // Schema cannot state; the operation's description says it, and test/e2e/tour-api.test.ts checks it.
      '[[operations]]',
      'include-name = "PUT /tour/{tour_name}"',
      'checks.positive_data_acceptance.expected-statuses = [200, 404, 412, 422]',
      '',
    ].join('\n'),
  );
  return file;
};

describe('the OpenAPI document describes the running service (Schemathesis)', { skip }, () => {
  const scratchDir = scratchDirs('tour-bridge-schemathesis-');
  for (const [name, args, headers] of [
    ['without a token: no operation declares one', [], []],
    [
      'with a token: every guarded operation declares it, and refuses a request without it',
      ['--auth_token', TOKEN],
      ['--header', `Authorization: Bearer ${TOKEN}`],
    ],
  ] as const) {
    describe(name, () => {
      let service: ServerProcess;
      before(async () => {
        service = await startServerProcess([...args]);
      });
      after(async () => {
        await service.stop();
      });

      it('passes every check', async () => {
        const { status, output } = runSchemathesis(
          service,
          await configFor(service, await scratchDir()),
          headers,
        );
        assert.equal(status, 0, output);
        assert.match(output, /\d+ passed/, output);
      });
    });
  }
});
