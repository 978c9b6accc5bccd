import { constants } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import type { KeepMicrophoneState } from '../actors/microphone-machine.js';
import type { Logger } from '../log/logger.js';
import { removeStaleTemporaries, writeFileAtomically } from '../files/atomic-file.js';

/**
 * The microphone's state kept across restarts in `<state_dir>/microphone.json` (`{"enabled": false}`),
 * replaced atomically on each change before the change is answered, so that a restart neither forgets a
 * disable nor lets a crash leave half a file. The spec's default (enabled) holds when there is no file, or
 * a file that cannot be read (one `error` line says why and that the default is used).
 */

export const MICROPHONE_STATE_FILE = 'microphone.json';

/** Larger than any file this writes; a bigger one is not ours. */
const MAX_STATE_FILE_BYTES = 4096;

export interface MicrophoneStateStore {
  /** Where it is kept. */
  readonly file: string;
  /** The kept state; true (the spec's default) without a file or with one that cannot be read. */
  load(): Promise<boolean>;
  /**
   * Keeps `enabled`; saves run one after the other, the last one wins. Rejects when the state could not
   * be kept (after logging why), so its caller can say so.
   */
  save(enabled: boolean): Promise<void>;
  /** Resolves once every save asked for so far is done, kept or not. */
  settled(): Promise<void>;
}

const parseState = (text: string): boolean => {
  if (Buffer.byteLength(text) > MAX_STATE_FILE_BYTES) {
    throw new Error(`larger than ${MAX_STATE_FILE_BYTES} bytes`);
  }
  const value: unknown = JSON.parse(text);
  if (
    typeof value !== 'object' ||
    value === null ||
    !('enabled' in value) ||
    typeof value.enabled !== 'boolean'
  ) {
    throw new Error('expected {"enabled": true|false}');
  }
  return value.enabled;
};

/**
 * Reads the state file without trusting what is there: opened without blocking (a FIFO would hang start-up
 * before the service listens), refused unless it is a regular file (a link to /dev/zero would read without
 * end), and read no further than the limit. Undefined when there is no file.
 */
const readStateFile = async (file: string): Promise<string | undefined> => {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new Error('not a regular file');
    const buffer = Buffer.alloc(MAX_STATE_FILE_BYTES + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    // One byte past the limit is read, so parseState can tell an oversized file from a full one.
    return buffer.subarray(0, length).toString('utf8');
  } finally {
    await handle.close();
  }
};

export const createMicrophoneStateStore = (stateDir: string, log: Logger): MicrophoneStateStore => {
  const file = join(stateDir, MICROPHONE_STATE_FILE);
  let saving: Promise<void> = Promise.resolve();
  return {
    file,
    load: async () => {
      let text: string | undefined;
      try {
        text = await readStateFile(file);
      } catch (error) {
        log.error(
          { file, reason: error instanceof Error ? error.message : String(error) },
          'cannot read the kept microphone state; starting enabled (the default)',
        );
        return true;
      }
      if (text === undefined) return true;
      try {
        return parseState(text);
      } catch (error) {
        log.error(
          { file, reason: error instanceof Error ? error.message : String(error) },
          'the kept microphone state is corrupt; starting enabled (the default)',
        );
        return true;
      }
    },
    save: (enabled) => {
      const saved = saving.then(async () => {
        try {
          // Every time: a state directory removed while the service runs is made again.
          await mkdir(stateDir, { recursive: true });
          await writeFileAtomically(file, `${JSON.stringify({ enabled })}\n`);
        } catch (error) {
          log.error(
            { err: error, file, enabled },
            'cannot keep the microphone state; the change is refused and the state stays as it was',
          );
          throw error;
        }
      });
      saving = saved.catch(() => undefined);
      return saved;
    },
    settled: () => saving,
  };
};

/** The microphone state a process starts from, and keeping its changes while it runs. */
export interface KeptMicrophoneState {
  /** The state to start from: the kept one, or the spec's default (enabled). */
  readonly enabled: boolean;
  /** Keeps a change before it is answered; undefined without `--state_dir` (nothing is kept). */
  readonly keep: KeepMicrophoneState | undefined;
  /** Resolves once the last change asked for is on disk (or failed). */
  stop(): Promise<void>;
}

/** Reads the kept state under `stateDir` ('' keeps nothing), saying at start which it is. */
export const restoreMicrophoneState = async (stateDir: string, log: Logger): Promise<KeptMicrophoneState> => {
  if (stateDir === '') {
    log.info('no --state_dir: the microphone starts enabled and a restart forgets a disable');
    return { enabled: true, keep: undefined, stop: () => Promise.resolve() };
  }
  const store = createMicrophoneStateStore(stateDir, log);
  // Left by a save that a crash interrupted; they never hold the kept state (only a rename reaches it).
  const stale = await removeStaleTemporaries(store.file).catch(() => []);
  if (stale.length > 0) log.info({ removed: stale }, 'removed temporary files of interrupted saves');
  const enabled = await store.load();
  log.info({ file: store.file, enabled }, 'microphone state restored');
  return { enabled, keep: (change) => store.save(change), stop: () => store.settled() };
};
