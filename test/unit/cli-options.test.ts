import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { helpText, OPTION_SPECS, parseCommandLine } from '../../src/cli/options.js';
import { conversationLimits } from '../../src/app/compose.js';
import { DEFAULT_LIMITS } from '../../src/protocol/ws/index.js';
import { MAX_RECOGNITION_RT } from '../../src/robot/speech/recognition-cost.js';

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

  it('gives a session the protocol module’s default limits, which docs/protocol.md lists', () => {
    assert.deepEqual(conversationLimits(run([])), DEFAULT_LIMITS);
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

  it('chooses the chat interface with --chat_interface or TOUR_BRIDGE_CHAT_INTERFACE, default service', () => {
    assert.equal(run([]).chat_interface, 'service');
    assert.equal(run(['--chat_interface', 'action']).chat_interface, 'action');
    assert.equal(run([], { TOUR_BRIDGE_CHAT_INTERFACE: 'action' }).chat_interface, 'action');
    assert.equal(
      run(['--chat_interface=service'], { TOUR_BRIDGE_CHAT_INTERFACE: 'action' }).chat_interface,
      'service',
    );
    assert.match(
      error(['--chat_interface', 'topic']),
      /--chat_interface must be one of service, action \(got "topic"\)/,
    );
    assert.match(helpText(), /--chat_interface <value> \(service\|action\)/);
  });

  it('takes the sim pipeline: --sim_chat_parts 1..50 (default 1), --sim_part_ms 0..60000 (default 0)', () => {
    assert.equal(run([]).sim_chat_parts, 1);
    assert.equal(run([]).sim_part_ms, 0);
    const options = run(['--sim_chat_parts', '50', '--sim_part_ms=60000']);
    assert.equal(options.sim_chat_parts, 50);
    assert.equal(options.sim_part_ms, 60_000);
    assert.equal(run([], { TOUR_BRIDGE_SIM_CHAT_PARTS: '3' }).sim_chat_parts, 3);
    for (const bad of ['0', '51', '1.5', '']) {
      assert.match(error(['--sim_chat_parts', bad]), /--sim_chat_parts must be a whole number from 1 to 50/);
    }
    assert.match(error(['--sim_part_ms', '60001']), /--sim_part_ms must be a whole number from 0 to 60000/);
  });

  it('takes the recogniser stand-in’s cost: --sim_recognition_rt 0..10, decimals, default 0 (no recognition time)', () => {
    assert.equal(run([]).sim_recognition_rt, 0);
    assert.equal(run(['--sim_recognition_rt', '0.3']).sim_recognition_rt, 0.3);
    assert.equal(run(['--sim_recognition_rt=10']).sim_recognition_rt, MAX_RECOGNITION_RT);
    assert.equal(run([], { TOUR_BRIDGE_SIM_RECOGNITION_RT: '1.25' }).sim_recognition_rt, 1.25);
    for (const bad of ['-0.1', '10.01', '1e-1', '.3', '0.3.1', 'fast', '', 'NaN']) {
      assert.match(
        error(['--sim_recognition_rt', bad]),
        /--sim_recognition_rt must be a number from 0 to 10, such as 0.3/,
        bad,
      );
    }
    assert.match(helpText(), /--sim_recognition_rt <value> \(a number from 0 to 10, such as 0.3\)/);
  });

  it('takes --ros_calls_in_flight from 1 to 1000, default 10 (the services QoS depth)', () => {
    assert.equal(run([]).ros_calls_in_flight, 10);
    assert.equal(run(['--ros_calls_in_flight', '1']).ros_calls_in_flight, 1);
    assert.equal(run(['--ros_calls_in_flight=1000']).ros_calls_in_flight, 1000);
    assert.equal(run([], { TOUR_BRIDGE_ROS_CALLS_IN_FLIGHT: '4' }).ros_calls_in_flight, 4);
    for (const bad of ['0', '1001', '2.5', '-3', 'ten', '']) {
      assert.match(
        error(['--ros_calls_in_flight', bad]),
        /^--ros_calls_in_flight must be a whole number from 1 to 1000 \(got ".*"\)$/,
        bad,
      );
    }
    assert.match(
      error([], { TOUR_BRIDGE_ROS_CALLS_IN_FLIGHT: '0' }),
      /^TOUR_BRIDGE_ROS_CALLS_IN_FLIGHT must be a whole number from 1 to 1000/,
    );
    assert.match(
      helpText(),
      /--ros_calls_in_flight <value> \(a whole number from 1 to 1000\)\n {6}ros backend only \(no effect on sim\).*QoS/,
    );
  });

  it('caps queued audio with --queued_audio_bytes, by default the protocol default of 256 MiB', () => {
    assert.equal(run([]).queued_audio_bytes, DEFAULT_LIMITS.maxQueuedAudioBytes);
    assert.equal(DEFAULT_LIMITS.maxQueuedAudioBytes, 256 * 1024 * 1024);
    assert.equal(
      conversationLimits(run(['--queued_audio_bytes', '3000', '--max_audio_frame_bytes', '3000']))
        .maxQueuedAudioBytes,
      3000,
    );
    assert.match(error(['--queued_audio_bytes', '0']), /--queued_audio_bytes must be a whole number from 1/);
  });

  it('refuses a queued-audio cap below the largest audio frame, naming both flags', () => {
    assert.equal(
      error(['--queued_audio_bytes', '3000']),
      '--queued_audio_bytes (3000) must be at least --max_audio_frame_bytes (2097152): ' +
        'frames of the largest allowed size would always be refused as busy',
    );
    assert.match(
      error([], { TOUR_BRIDGE_QUEUED_AUDIO_BYTES: '1000', TOUR_BRIDGE_MAX_AUDIO_FRAME_BYTES: '1001' }),
      /^--queued_audio_bytes \(1000\) must be at least --max_audio_frame_bytes \(1001\)/,
    );
    assert.equal(
      run(['--queued_audio_bytes', '1001', '--max_audio_frame_bytes', '1001']).queued_audio_bytes,
      1001,
    );
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

  it('says in --help what each constrained option takes, in the words a bad value gets', () => {
    const text = helpText();
    assert.doesNotMatch(text, /\[object /);
    assert.match(
      text,
      /--auth_token <value> \(empty \(off\) or 16 to 1024 printable ASCII characters without spaces\)\n/,
    );
    assert.match(text, /--port <value> \(a whole number from 0 to 65535\)\n/);
    assert.match(error(['--port', 'x']), /must be a whole number from 0 to 65535/);
    assert.match(error(['--auth_token', 'short']), /empty \(off\) or 16 to 1024 printable ASCII characters/);
  });
});
