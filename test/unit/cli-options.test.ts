import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { helpText, OPTION_SPECS, parseCommandLine } from '../../src/cli/options.js';

const run = (argv: string[], env: Record<string, string> = {}) => {
  const parsed = parseCommandLine(argv, env);
  if (parsed.kind !== 'run') throw new Error(`expected options, got ${JSON.stringify(parsed)}`);
  return parsed.options;
};
const error = (argv: string[], env: Record<string, string> = {}) => {
  const parsed = parseCommandLine(argv, env);
  if (parsed.kind !== 'error') throw new Error(`expected an error, got ${JSON.stringify(parsed)}`);
  assert.doesNotMatch(parsed.message, /\n/, 'errors are one line');
  return parsed.message;
};

describe('command line', () => {
  it('has the spec defaults', () => {
    const options = run([]);
    assert.equal(options.host, '0.0.0.0');
    assert.equal(options.port, 7000);
    assert.equal(options.log_level, 'info');
    assert.equal(options.backend, 'ros');
    assert.equal(options.ros_timeout_ms, 5000);
    assert.equal(options.max_body_bytes, 1024 * 1024);
  });

  it('reads --flag value and --flag=value', () => {
    const options = run(['--host', '127.0.0.1', '--port=8080', '--log_level', 'critical', '--backend=sim']);
    assert.equal(options.host, '127.0.0.1');
    assert.equal(options.port, 8080);
    assert.equal(options.log_level, 'critical');
    assert.equal(options.backend, 'sim');
  });

  it('takes environment variables, and the command line wins over them', () => {
    assert.equal(run([], { TOUR_BRIDGE_PORT: '9000' }).port, 9000);
    assert.equal(run(['--port', '9001'], { TOUR_BRIDGE_PORT: '9000' }).port, 9001);
    assert.equal(run([], { TOUR_BRIDGE_BACKEND: 'sim' }).backend, 'sim');
  });

  it('names the flag and the allowed values for a bad value', () => {
    assert.match(
      error(['--log_level', 'loud']),
      /--log_level must be one of critical, error, info, warn, debug \(got "loud"\)/,
    );
    assert.match(error(['--backend', 'gazebo']), /--backend must be one of ros, sim/);
    assert.match(error(['--port', '70000']), /--port must be a whole number from 0 to 65535/);
    assert.match(error(['--port', '12ab']), /--port must be a whole number/);
    assert.match(error([], { TOUR_BRIDGE_PORT: '-1' }), /TOUR_BRIDGE_PORT must be a whole number/);
  });

  it('rejects unknown flags, missing values and stray arguments', () => {
    assert.match(error(['--log-level', 'info']), /unknown option --log-level; known options: --host, --port/);
    assert.match(error(['--port']), /--port needs a value/);
    assert.match(error(['serve']), /unexpected argument "serve"/);
  });

  it('lists every option with its default and environment variable in --help', () => {
    const parsed = parseCommandLine(['--port', 'x', '--help'], {});
    assert.equal(parsed.kind, 'help');
    const text = helpText();
    for (const spec of Object.values(OPTION_SPECS)) {
      assert.ok(text.includes(`--${spec.flag}`), spec.flag);
      assert.ok(text.includes(spec.env), spec.env);
      assert.ok(text.includes(`Default: ${spec.defaultValue}`), spec.flag);
    }
    assert.match(text, /--log_level <value> \(critical\|error\|info\|warn\|debug\)/);
  });
});
