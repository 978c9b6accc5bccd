import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parseCommandLine } from '../../src/cli/options.js';

/**
 * `npm run demo` runs the simulation without a token, so it listens on loopback unless told otherwise
 * (`npm run demo -- --host 0.0.0.0`); the service's own default (all interfaces) stays for the image.
 */

const scripts = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    scripts: Record<string, string>;
  }
).scripts;

/** The options the demo's server command gives, with `extra` appended as `npm run demo -- …` does. */
const demoArguments = (extra: readonly string[]): string[] => {
  const command = scripts['demo'] ?? '';
  const server = /node dist\/src\/server\.js(.*)$/.exec(command);
  assert.ok(server, `the demo script runs the server: ${command}`);
  return [...server[1]!.trim().split(/\s+/), ...extra];
};

describe('npm run demo', () => {
  it('listens on loopback only by default', () => {
    const parsed = parseCommandLine(demoArguments([]), {});
    assert.ok(parsed.kind === 'run', JSON.stringify(parsed));
    assert.equal(parsed.options.host, '127.0.0.1');
    assert.equal(parsed.options.backend, 'sim');
  });

  it('listens on all interfaces when told to', () => {
    const parsed = parseCommandLine(demoArguments(['--host', '0.0.0.0']), {});
    assert.ok(parsed.kind === 'run', JSON.stringify(parsed));
    assert.equal(parsed.options.host, '0.0.0.0');
  });

  it('takes every `npm run demo -- …` command the README shows', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const commands = [...readme.matchAll(/`npm run demo -- ([^`]+)`/g)].map((match) => match[1] ?? '');
    assert.ok(
      commands.some((command) => command.includes('--sim_recognition_rt')),
      'the README shows the demo with a recogniser cost',
    );
    for (const command of commands) {
      const parsed = parseCommandLine(demoArguments(command.trim().split(/\s+/)), {});
      // `--help` is a command the README shows too: it prints the options instead of running.
      const expected = command.trim() === '--help' ? 'help' : 'run';
      assert.equal(parsed.kind, expected, `npm run demo -- ${command}: ${JSON.stringify(parsed)}`);
    }
  });

  it('leaves the service’s own default on all interfaces (the image publishes its port)', () => {
    const parsed = parseCommandLine([], {});
    assert.ok(parsed.kind === 'run', JSON.stringify(parsed));
    assert.equal(parsed.options.host, '0.0.0.0');
  });
});
