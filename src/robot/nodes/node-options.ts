import { LOG_LEVELS, type LogLevel } from '../../log/logger.js';
import { TOUR_STORE_LIMITS } from '../tours/durable-tour-store.js';
import {
  CONVERSE_LIMITS,
  CONVERSE_MODES,
  DEFAULT_CONVERSE,
  DEFAULT_RECOGNITION,
  RECOGNITION_LIMITS,
  type ConverseMode,
  type ConverseServerOptions,
  type RecognitionOptions,
} from './converse-server.js';

export const NODE_COMMANDS = ['tour-store', 'demo-chat'] as const;
export type NodeCommand = (typeof NODE_COMMANDS)[number];

export interface NodeOptions {
  readonly command: NodeCommand;
  readonly logLevel: LogLevel;
  /** tour-store only: the store's file. */
  readonly file: string | undefined;
  readonly maxTours: number;
  /** demo-chat only: the Converse action's parts, their spacing, and whether it answers at all. */
  readonly converse: ConverseServerOptions;
  /** demo-chat only: the stand-in recogniser's cost, and a streamed goal's wait for its utterance. */
  readonly recognition: RecognitionOptions;
  /** Everything from `--ros-args` on, for rcl_init. */
  readonly rosArgs: readonly string[];
}

export type ParsedNodeCommandLine =
  | { readonly kind: 'run'; readonly options: NodeOptions }
  | { readonly kind: 'help'; readonly text: string }
  | { readonly kind: 'error'; readonly message: string };

const PATH_MAX_CHARS = 4096;

export const NODE_HELP = [
  'Usage: node dist/src/robot/nodes/main.js <tour-store|demo-chat> [options] [--ros-args ...]',
  '',
  'Reference ROS 2 nodes for bring-up and tests (see docs/deployment.md).',
  '  tour-store   serves /tour_list, /tour_get, /tour_create, /tour_update, /tour_delete from a file',
  '  demo-chat    serves /chat (echo), /clear_history and the Converse action /converse (the echo in',
  '               parts, streamed utterances included), greets on /play_audio; recognises',
  '               /utterance/audio as it arrives (partial and final /utterance/transcript), keeps the',
  '               dialogue history with /conversation/heard and publishes it on /converse/history',
  '',
  'Options:',
  '  --file <path>       tour-store: the store file (env TOUR_STORE_FILE); its directory must exist',
  `  --max_tours <n>     tour-store: most tours held, 1 to 100000. Default: ${TOUR_STORE_LIMITS.maxTours}`,
  `  --converse_parts <n>    demo-chat: parts of a Converse answer (text sentences, audio slices), 1 to ${CONVERSE_LIMITS.maxParts}. Default: ${DEFAULT_CONVERSE.parts}`,
  `  --converse_part_ms <ms> demo-chat: wait before each part (part k after k × ms), 0 to ${CONVERSE_LIMITS.maxPartMs}. Default: ${DEFAULT_CONVERSE.partMs}`,
  `  --converse_mode <mode>  demo-chat: answer, or silent (accepts goals, never answers; cancel ends them). Default: ${DEFAULT_CONVERSE.mode}`,
  `  --recognition_rt <x>    demo-chat: the stand-in recogniser's cost, x × the speech's duration (0.3: 300 ms a second), paid per part as a streamed utterance arrives, after the whole one on /chat and a whole Converse goal; 0 to ${RECOGNITION_LIMITS.maxRt}. Default: ${DEFAULT_RECOGNITION.rt}`,
  `  --utterance_wait_ms <ms> demo-chat: how long a streamed Converse goal waits for its utterance's END before it is answered INVALID, ${RECOGNITION_LIMITS.minWaitMs} to ${RECOGNITION_LIMITS.maxWaitMs}. Default: ${DEFAULT_RECOGNITION.utteranceWaitMs}`,
  `  --log_level <level> ${LOG_LEVELS.join(', ')}. Default: info`,
  '  --help              print this help and exit',
  'Arguments after --ros-args go to ROS (remapping, namespace).',
].join('\n');

/** Parses the reference nodes' command line. Never throws. */
export const parseNodeCommandLine = (
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ParsedNodeCommandLine => {
  const rosIndex = argv.indexOf('--ros-args');
  const own = rosIndex === -1 ? argv : argv.slice(0, rosIndex);
  const rosArgs = rosIndex === -1 ? [] : argv.slice(rosIndex);
  if (own.includes('--help') || own.includes('-h')) return { kind: 'help', text: NODE_HELP };
  const [command, ...rest] = own;
  if (!(NODE_COMMANDS as readonly (string | undefined)[]).includes(command)) {
    return { kind: 'error', message: `the first argument must be ${NODE_COMMANDS.join(' or ')}; see --help` };
  }
  let logLevel: LogLevel = 'info';
  let file = env['TOUR_STORE_FILE'] === '' ? undefined : env['TOUR_STORE_FILE'];
  let maxTours: number = TOUR_STORE_LIMITS.maxTours;
  let converseParts = DEFAULT_CONVERSE.parts;
  let conversePartMs = DEFAULT_CONVERSE.partMs;
  let converseMode: ConverseMode = DEFAULT_CONVERSE.mode;
  let recognitionRt = DEFAULT_RECOGNITION.rt;
  let utteranceWaitMs = DEFAULT_RECOGNITION.utteranceWaitMs;
  for (let index = 0; index < rest.length; index += 2) {
    const flag = rest[index] ?? '';
    const value = rest[index + 1];
    if (value === undefined) return { kind: 'error', message: `${flag} needs a value; see --help` };
    switch (flag) {
      case '--log_level':
        if (!(LOG_LEVELS as readonly string[]).includes(value)) {
          return { kind: 'error', message: `--log_level must be one of ${LOG_LEVELS.join(', ')}` };
        }
        logLevel = value as LogLevel;
        break;
      case '--file':
        if (value === '' || value.length > PATH_MAX_CHARS || value.includes('\0')) {
          return { kind: 'error', message: `--file must be a path of 1 to ${PATH_MAX_CHARS} characters` };
        }
        file = value;
        break;
      case '--max_tours':
        if (!/^\d{1,6}$/.test(value) || Number(value) < 1 || Number(value) > 100_000) {
          return { kind: 'error', message: '--max_tours must be a whole number from 1 to 100000' };
        }
        maxTours = Number(value);
        break;
      case '--converse_parts':
        if (!/^\d{1,2}$/.test(value) || Number(value) < 1 || Number(value) > CONVERSE_LIMITS.maxParts) {
          return {
            kind: 'error',
            message: `--converse_parts must be a whole number from 1 to ${CONVERSE_LIMITS.maxParts}`,
          };
        }
        converseParts = Number(value);
        break;
      case '--converse_part_ms':
        if (!/^\d{1,5}$/.test(value) || Number(value) > CONVERSE_LIMITS.maxPartMs) {
          return {
            kind: 'error',
            message: `--converse_part_ms must be a whole number from 0 to ${CONVERSE_LIMITS.maxPartMs}`,
          };
        }
        conversePartMs = Number(value);
        break;
      case '--converse_mode':
        if (!(CONVERSE_MODES as readonly string[]).includes(value)) {
          return { kind: 'error', message: `--converse_mode must be one of ${CONVERSE_MODES.join(', ')}` };
        }
        converseMode = value as ConverseMode;
        break;
      case '--recognition_rt':
        if (!/^\d{1,2}(\.\d{1,3})?$/.test(value) || Number(value) > RECOGNITION_LIMITS.maxRt) {
          return {
            kind: 'error',
            message: `--recognition_rt must be a number from 0 to ${RECOGNITION_LIMITS.maxRt} with at most 3 decimals`,
          };
        }
        recognitionRt = Number(value);
        break;
      case '--utterance_wait_ms':
        if (
          !/^\d{1,6}$/.test(value) ||
          Number(value) < RECOGNITION_LIMITS.minWaitMs ||
          Number(value) > RECOGNITION_LIMITS.maxWaitMs
        ) {
          return {
            kind: 'error',
            message: `--utterance_wait_ms must be a whole number from ${RECOGNITION_LIMITS.minWaitMs} to ${RECOGNITION_LIMITS.maxWaitMs}`,
          };
        }
        utteranceWaitMs = Number(value);
        break;
      default:
        return { kind: 'error', message: `unknown option ${flag}; see --help` };
    }
  }
  if (command === 'tour-store' && own.some((flag) => flag.startsWith('--converse_'))) {
    return { kind: 'error', message: 'the --converse_* options are for demo-chat' };
  }
  const recognitionFlag = own.find((flag) => flag === '--recognition_rt' || flag === '--utterance_wait_ms');
  if (command === 'tour-store' && recognitionFlag !== undefined) {
    return { kind: 'error', message: `${recognitionFlag} is for demo-chat` };
  }
  if (command === 'tour-store' && file === undefined) {
    return { kind: 'error', message: 'tour-store needs --file <path> (or TOUR_STORE_FILE)' };
  }
  return {
    kind: 'run',
    options: {
      command: command as NodeCommand,
      logLevel,
      file,
      maxTours,
      converse: { parts: converseParts, partMs: conversePartMs, mode: converseMode },
      recognition: { rt: recognitionRt, utteranceWaitMs },
      rosArgs,
    },
  };
};
