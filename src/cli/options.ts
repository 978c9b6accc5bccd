import * as v from 'valibot';
import { LOG_LEVELS } from '../log/logger.js';
import { CHAT_INTERFACES } from '../protocol/ws/index.js';
import { decimal, integer, oneOf, option, type OptionSpec } from './option-schemas.js';

/**
 * Every start-up option: its flag, environment variable, default and validation in one table, so
 * `--help`, the docs and the parser cannot disagree. Command line beats environment beats default.
 */

// The options' vocabularies live with what they configure (log levels with the logger, chat interfaces with
// the conversation protocol); this module imports only those constants, as it is parsed before anything runs.

export const BACKENDS = ['ros', 'sim'] as const;

const KIB = 1024;
const MIB = 1024 * KIB;

export const OPTION_SPECS = {
  host: option(
    'host',
    '0.0.0.0',
    'Address to listen on',
    v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(255, 'is too long')),
  ),
  port: option('port', '7000', 'TCP port to listen on (0 picks a free one)', integer(0, 65535)),
  log_level: option('log_level', 'info', 'Log level', oneOf(LOG_LEVELS)),
  backend: option(
    'backend',
    'ros',
    'ROS backend: ros (rclnodejs, needs ROS 2 sourced) or sim (simulated robot inside the process)',
    oneOf(BACKENDS),
  ),
  ros_timeout_ms: option(
    'ros_timeout_ms',
    '5000',
    'Time-out of the tour service calls behind HTTP requests',
    integer(1, 600_000),
  ),
  chat_interface: option(
    'chat_interface',
    'service',
    'How a kiosk utterance reaches the robot: service (one /chat call, one answer) or action (a goal of the Converse action /converse, its answer streamed in parts, each sent to the kiosk as it arrives)',
    oneOf(CHAT_INTERFACES),
  ),
  chat_timeout_ms: option(
    'chat_timeout_ms',
    '60000',
    'Time-out of one turn: one /chat call, or one Converse goal with all its parts',
    integer(1, 3_600_000),
  ),
  /*
   * Why 10: the services QoS profile (rmw's `rmw_qos_profile_services_default`, which rclcpp, rclpy and
   * this bridge use) keeps the last 10 samples: a server's request queue and a client's response queue
   * each hold 10 unread messages, and every RMW drops the oldest beyond that (DDS keep-last history;
   * rmw_zenoh's query and reply queues likewise). A burst of more concurrent calls loses requests or
   * answers silently, each ending as a time-out: `npm run test:ros` saw 100 concurrent GET /tour/{name}
   * answer 80 times 504. With at most this many calls outstanding per service neither queue overflows,
   * whatever the server's RMW; the rest wait in order in the bridge (the call wrapper, src/ros/port/ros-calls.ts).
   * Raising it is only safe when the servers' and the bridge's queues are deeper.
   */
  ros_calls_in_flight: option(
    'ros_calls_in_flight',
    '10',
    'ros backend only (no effect on sim): calls to one ROS service sent and not yet answered at once; more wait in order in the bridge. The default is the depth of the services QoS profile (10 requests kept at a server, 10 answers at a client), beyond which a burst loses calls',
    integer(1, 1000),
  ),
  max_body_bytes: option('max_body_bytes', String(MIB), 'Largest HTTP request body', integer(1, 64 * MIB)),
  max_audio_frame_bytes: option(
    'max_audio_frame_bytes',
    String(2 * MIB),
    "Largest binary (audio) WebSocket frame from a kiosk (the default holds the kiosk page's longest utterance, 60 s); larger closes the session with 1009",
    integer(1, 256 * MIB),
  ),
  min_audio_frame_bytes: option(
    'min_audio_frame_bytes',
    '1',
    'Smallest binary (audio) WebSocket frame from a kiosk; a smaller one is answered "audio_too_short" and never reaches /chat. The default refuses empty frames only: set the floor of a real utterance in the format your kiosks send (the kiosk page never sends less than 8,044 bytes)',
    integer(1, 256 * MIB),
  ),
  max_text_frame_bytes: option(
    'max_text_frame_bytes',
    String(64 * KIB),
    'Largest text (JSON) WebSocket frame from a kiosk',
    integer(16, 16 * MIB),
  ),
  max_sessions: option(
    'max_sessions',
    '1000',
    'Most WebSocket sessions at once; more are refused',
    integer(1, 100_000),
  ),
  chat_queue: option(
    'chat_queue',
    '4',
    'Audio frames a session may queue behind its running /chat call before it gets "busy"',
    integer(0, 64),
  ),
  send_buffer_bytes: option(
    'send_buffer_bytes',
    String(16 * MIB),
    'Per-session cap of bytes waiting to be sent to a slow kiosk (backpressure policy in docs/protocol.md)',
    integer(64 * KIB, 1024 * MIB),
  ),
  outbound_buffer_bytes: option(
    'outbound_buffer_bytes',
    String(256 * MIB),
    'Bytes that may wait to be sent to all kiosks together; past it the kiosks furthest behind lose their oldest /play_audio',
    integer(1 * MIB, 16 * 1024 * MIB),
  ),
  send_timeout_seconds: option(
    'send_timeout_seconds',
    '60',
    'A /ws client that reads nothing (answers no ping) for this long is closed with 1008; 0: never',
    integer(0, 3600),
  ),
  ws_frames_per_second: option(
    'ws_frames_per_second',
    '20',
    'Client frames a /ws session may send per second, sustained (bursts of 2 s worth pass); beyond, the session is closed with 1008',
    integer(1, 100_000),
  ),
  ws_bytes_per_second: option(
    'ws_bytes_per_second',
    String(MIB),
    'Client bytes a /ws session may send per second, sustained (a burst of twice the largest frame, or of 2 s worth if more, passes); beyond, the session is closed with 1008',
    integer(KIB, 1024 * MIB),
  ),
  ws_total_frame_rate: option(
    'ws_total_frame_rate',
    '3000',
    'Client frames all /ws sessions together may send per second (bursts of 2 s worth pass); past it, a session of an address sending the most is closed with 1008, the other addresses pass',
    integer(1, 10_000_000),
  ),
  ws_total_byte_rate: option(
    'ws_total_byte_rate',
    String(32 * MIB),
    'Client bytes all /ws sessions together may send per second (bursts of 2 s worth pass), shared among addresses as --ws_total_frame_rate',
    integer(MIB, 64 * 1024 * MIB),
  ),
  max_part_bytes: option(
    'max_part_bytes',
    String(64 * KIB),
    'Largest audio of one part of a streamed utterance, in bytes (64 KiB: 2 s of 16 kHz 16-bit PCM); a larger part abandons its utterance with "part_too_large"',
    integer(KIB, 16 * MIB),
  ),
  max_stream_lead_ms: option(
    'max_stream_lead_ms',
    '2000',
    'How far the audio of a streamed utterance may run ahead of the time since it opened, in milliseconds; beyond, the utterance is abandoned with "utterance_too_fast"',
    integer(100, 60_000),
  ),
  utterance_stall_ms: option(
    'utterance_stall_ms',
    '5000',
    'Longest wait for the next part (or the end) of an open streamed utterance, in milliseconds; then it is abandoned with "utterance_stalled"',
    integer(100, 600_000),
  ),
  max_stream_lag_ms: option(
    'max_stream_lag_ms',
    '5000',
    'How far the audio of a streamed utterance may fall behind the time since it opened, in milliseconds; beyond, the utterance is abandoned with "utterance_too_slow"',
    integer(100, 600_000),
  ),
  ws_sessions_per_address: option(
    'ws_sessions_per_address',
    '16',
    'Sessions one client address may hold at once; one more is closed with 1013. Each socket may keep up to twice --max_audio_frame_bytes of an inbound message (docs/operations.md, Memory), so this bounds what one client pins. Behind a front end every kiosk has its address: raise it to the number of kiosks. 0: no limit',
    integer(0, 100_000),
  ),
  queued_audio_bytes: option(
    'queued_audio_bytes',
    String(256 * MIB),
    'Process-wide cap of kiosk audio bytes held by the /chat calls of all sessions, running or waiting; an audio frame past it gets "busy". Must be at least --max_audio_frame_bytes',
    integer(1, 64 * 1024 * MIB),
  ),
  audio_bytes_per_address: option(
    'audio_bytes_per_address',
    '0',
    'Kiosk audio bytes the sessions of one client address may hold of --queued_audio_bytes; an audio frame or part past it gets "busy". 0: a sixteenth of --queued_audio_bytes, at least --max_audio_frame_bytes (16 MiB by default). Behind a front end that gives every kiosk its address this is per kiosk; raise it when kiosks share one',
    integer(0, 64 * 1024 * MIB),
  ),
  play_audio_buffer_bytes: option(
    'play_audio_buffer_bytes',
    String(64 * MIB),
    '/play_audio audio the bridge holds between taking messages from ROS and writing them to the kiosks (a burst published back to back waits here); a message past it is dropped and counted in tour_bridge_play_audio_dropped_total',
    integer(1, 4 * 1024 * MIB),
  ),
  state_dir: option(
    'state_dir',
    '',
    'Directory where the bridge keeps state across restarts (the microphone event log: microphone.log); created if missing. Empty: nothing is kept, the microphone starts enabled',
    v.pipe(v.string(), v.maxLength(4096, 'is too long')),
  ),
  shutdown_timeout_ms: option(
    'shutdown_timeout_ms',
    '5000',
    'On SIGINT/SIGTERM, the whole stop: in-flight requests may run until a quarter of it (at most 1 s) is left, then get 503 and the process exits 1; exits 0 when all finished',
    integer(0, 600_000),
  ),
  auth_token: option(
    'auth_token',
    '',
    'Bearer token required for /tour, /sim, /metrics, /microphone/events and /ws (empty: no authentication). Prefer the environment variable: arguments show in ps',
    v.union(
      [
        v.literal(''),
        v.pipe(
          v.string(),
          v.regex(
            /^[\x21-\x7e]{16,1024}$/,
            'must be empty (off) or 16 to 1024 printable ASCII characters without spaces',
          ),
        ),
      ],
      'must be empty (off) or 16 to 1024 printable ASCII characters without spaces',
    ),
  ),
  allowed_origins: option(
    'allowed_origins',
    '',
    'Comma-separated browser origins allowed for /ws and CORS, e.g. https://kiosk.local (empty: any origin, no CORS)',
    v.pipe(
      v.string(),
      v.maxLength(4096, 'is too long'),
      v.check(
        (list) =>
          list
            .split(',')
            .map((origin) => origin.trim())
            .filter((origin) => origin !== '')
            .every((origin) => /^https?:\/\/[^/\s,]+$/.test(origin)),
        'must be a comma-separated list of origins like https://kiosk.local:8443 (scheme://host[:port], no path)',
      ),
    ),
  ),
  sim_latency_ms: option(
    'sim_latency_ms',
    '0',
    'sim backend only: artificial latency of every simulated service call',
    integer(0, 600_000),
  ),
  sim_chat_parts: option(
    'sim_chat_parts',
    '1',
    'sim backend only: parts of the echo answer (text sentences; audio cut in consecutive slices that concatenate to the utterance). /chat answers them whole, the Converse action one feedback per part',
    integer(1, 50),
  ),
  sim_part_ms: option(
    'sim_part_ms',
    '0',
    'sim backend only: wait before each part of the echo answer: /chat answers after parts × this, the Converse action sends part k after k × this',
    integer(0, 60_000),
  ),
  sim_recognition_rt: option(
    'sim_recognition_rt',
    '0',
    'sim backend only: cost of the simulated speech recogniser, as a share of the speech it hears (0.3: 300 ms per second of speech). A streamed utterance is recognised part by part as it arrives, with a partial transcript after each; a whole one (a Converse goal with audio, /chat) after it has all arrived, before the answer. 0: no recognition time',
    decimal(0, 10),
  ),
} as const satisfies Record<string, OptionSpec>;

export type OptionName = keyof typeof OPTION_SPECS;
export type Options = { readonly [K in OptionName]: v.InferOutput<(typeof OPTION_SPECS)[K]['schema']> };

export type ParsedCommandLine =
  | { readonly kind: 'run'; readonly options: Options }
  | { readonly kind: 'help'; readonly text: string }
  | { readonly kind: 'error'; readonly message: string };

const OPTION_NAMES = Object.keys(OPTION_SPECS) as OptionName[];
const isOptionName = (name: string): name is OptionName => (OPTION_NAMES as string[]).includes(name);

/**
 * What an option's schema accepts, for --help: a picklist's values, else the schema's own "must be …"
 * message (a union's, or the first in its pipe), so the text is the one a bad value gets.
 */
const constraintOf = (schema: OptionSpec['schema']): string | undefined => {
  if (schema.type === 'picklist' && 'options' in schema) return (schema.options as string[]).join('|');
  const pipe = 'pipe' in schema ? (schema.pipe as readonly { message?: unknown }[]) : [];
  const messages = ['message' in schema ? schema.message : undefined, ...pipe.map((item) => item.message)];
  const must = messages.find(
    (message): message is string => typeof message === 'string' && message.startsWith('must be '),
  );
  return must?.slice('must be '.length);
};

export const helpText = (): string => {
  const lines = [
    'Usage: tour-bridge [options]',
    '',
    "Bridges tour-guide robot kiosks (WebSocket /ws, HTTP /tour) to the robot's ROS 2 graph.",
    '',
    'Options (each also read from its environment variable; the command line wins):',
  ];
  for (const name of OPTION_NAMES) {
    const spec: OptionSpec = OPTION_SPECS[name];
    const constraint = constraintOf(spec.schema);
    const allowed = constraint === undefined ? '' : ` (${constraint})`;
    lines.push(`  --${spec.flag} <value>${allowed}`);
    lines.push(`      ${spec.help}. Default: ${spec.defaultValue}. Env: ${spec.env}`);
  }
  lines.push('  --help', '      Print this help and exit');
  return lines.join('\n');
};

const validate = (
  name: OptionName,
  raw: string,
  source: string,
): { value: unknown } | { message: string } => {
  const spec: OptionSpec = OPTION_SPECS[name];
  const parsed = v.safeParse(spec.schema, raw);
  if (parsed.success) return { value: parsed.output };
  const reason = parsed.issues[0].message;
  // A rejected token is still a secret: say how long it was, never what.
  if (name === 'auth_token') return { message: `${source} ${reason} (got ${raw.length} characters)` };
  const display = raw.length > 40 ? `${raw.slice(0, 40)}…` : raw;
  return { message: `${source} ${reason} (got ${JSON.stringify(display)})` };
};

/** Options valid one by one that contradict each other: each rule names both flags, or passes. */
const OPTION_RELATIONS: readonly ((options: Options) => string | undefined)[] = [
  ...(['queued_audio_bytes', 'audio_bytes_per_address'] as const).map(
    (flag) => (options: Options) =>
      options[flag] > 0 && options[flag] < options.max_audio_frame_bytes
        ? `--${flag} (${options[flag]}) must be at least --max_audio_frame_bytes ` +
          `(${options.max_audio_frame_bytes}): frames of the largest allowed size would always be refused as busy`
        : undefined,
  ),
  (options) =>
    options.min_audio_frame_bytes > options.max_audio_frame_bytes
      ? `--min_audio_frame_bytes (${options.min_audio_frame_bytes}) must be at most --max_audio_frame_bytes ` +
        `(${options.max_audio_frame_bytes}): every audio frame would be refused`
      : undefined,
];

/** Parses argv (without node and script) and the environment. Never throws, never exits. */
export const parseCommandLine = (
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ParsedCommandLine => {
  const raw = new Map<OptionName, { value: string; source: string }>();
  for (const name of OPTION_NAMES) {
    const envValue = env[OPTION_SPECS[name].env];
    if (envValue !== undefined) raw.set(name, { value: envValue, source: OPTION_SPECS[name].env });
  }
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] ?? '';
    if (argument === '--help' || argument === '-h') return { kind: 'help', text: helpText() };
    if (!argument.startsWith('--')) {
      return { kind: 'error', message: `unexpected argument ${JSON.stringify(argument)}; see --help` };
    }
    const equals = argument.indexOf('=');
    const name = argument.slice(2, equals === -1 ? undefined : equals);
    if (!isOptionName(name)) {
      return {
        kind: 'error',
        message: `unknown option --${name}; known options: ${OPTION_NAMES.map((known) => `--${known}`).join(', ')}, --help`,
      };
    }
    let value: string | undefined;
    if (equals !== -1) {
      value = argument.slice(equals + 1);
    } else {
      value = argv[index + 1];
      index += 1;
    }
    if (value === undefined) return { kind: 'error', message: `--${name} needs a value; see --help` };
    raw.set(name, { value, source: `--${name}` });
  }
  const options: Record<string, unknown> = {};
  for (const name of OPTION_NAMES) {
    const given = raw.get(name) ?? { value: OPTION_SPECS[name].defaultValue, source: `default of --${name}` };
    const checked = validate(name, given.value, given.source);
    if ('message' in checked) return { kind: 'error', message: checked.message };
    options[name] = checked.value;
  }
  const parsed = options as Options;
  for (const rule of OPTION_RELATIONS) {
    const message = rule(parsed);
    if (message !== undefined) return { kind: 'error', message };
  }
  return { kind: 'run', options: parsed };
};
