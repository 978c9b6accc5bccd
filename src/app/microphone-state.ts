import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Observable } from 'rxjs';
import type { Logger } from '../log/logger.js';
import { writeFileAtomically } from '../robot/tours/atomic-file.js';

/**
 * The microphone's state kept across restarts in `<state_dir>/microphone.json` (`{"enabled": false}`),
 * replaced atomically on each change, so that a restart neither forgets a disable nor lets a crash
 * leave half a file. The spec's default (enabled) holds when there is no file, or a file that cannot be
 * read (one `error` line says why and that the default is used).
 */

export const MICROPHONE_STATE_FILE = 'microphone.json';

/** Larger than any file this writes; a bigger one is not ours. */
const MAX_STATE_FILE_BYTES = 4096;

export interface MicrophoneStateStore {
  /** Where it is kept. */
  readonly file: string;
  /** The kept state; true (the spec's default) without a file or with one that cannot be read. */
  load(): Promise<boolean>;
  /** Keeps `enabled`; saves run one after the other, the last one wins. Never rejects: failures are logged. */
  save(enabled: boolean): Promise<void>;
  /** Resolves once every save asked for so far is done. */
  settled(): Promise<void>;
}

const parseState = (text: string): boolean => {
  if (text.length > MAX_STATE_FILE_BYTES) throw new Error(`larger than ${MAX_STATE_FILE_BYTES} bytes`);
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

export const createMicrophoneStateStore = (stateDir: string, log: Logger): MicrophoneStateStore => {
  const file = join(stateDir, MICROPHONE_STATE_FILE);
  let saving: Promise<void> = Promise.resolve();
  // Made by the first save that succeeds, not again on every change.
  let directoryMade = false;
  return {
    file,
    load: async () => {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
        log.error(
          { err: error, file },
          'cannot read the kept microphone state; starting enabled (the default)',
        );
        return true;
      }
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
      saving = saving.then(async () => {
        try {
          if (!directoryMade) await mkdir(stateDir, { recursive: true });
          directoryMade = true;
          await writeFileAtomically(file, `${JSON.stringify({ enabled })}\n`);
        } catch (error) {
          log.error(
            { err: error, file, enabled },
            'cannot keep the microphone state; a restart will not restore it',
          );
        }
      });
      return saving;
    },
    settled: () => saving,
  };
};

/** The microphone state a process starts from, and keeping its changes while it runs. */
export interface KeptMicrophoneState {
  /** The state to start from: the kept one, or the spec's default (enabled). */
  readonly enabled: boolean;
  /** Keeps every state `changes$` brings (without `--state_dir`: nothing). */
  keep(changes$: Observable<boolean>): void;
  /** Stops keeping; resolves once the last change is on disk. */
  stop(): Promise<void>;
}

/** Reads the kept state under `stateDir` ('' keeps nothing), saying at start which it is. */
export const restoreMicrophoneState = async (stateDir: string, log: Logger): Promise<KeptMicrophoneState> => {
  if (stateDir === '') {
    log.info('no --state_dir: the microphone starts enabled and a restart forgets a disable');
    return { enabled: true, keep: () => undefined, stop: () => Promise.resolve() };
  }
  const store = createMicrophoneStateStore(stateDir, log);
  const enabled = await store.load();
  log.info({ file: store.file, enabled }, 'microphone state restored');
  const kept: { unsubscribe(): void }[] = [];
  return {
    enabled,
    keep: (changes$) => {
      kept.push(changes$.subscribe((change) => void store.save(change)));
    },
    stop: () => {
      for (const subscription of kept) subscription.unsubscribe();
      return store.settled();
    },
  };
};
