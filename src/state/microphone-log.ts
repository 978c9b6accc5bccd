import { mkdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import * as v from 'valibot';
import type { KeepMicrophoneState, MicrophoneChange } from '../actors/microphone-machine.js';
import { appendDurably, removeStaleTemporaries, writeFileAtomically } from '../files/atomic-file.js';
import { createFailureLog } from '../log/failure-log.js';
import { readRegularFile } from '../files/read-regular-file.js';
import type { Logger } from '../log/logger.js';

/**
 * The microphone's state as an append-only log of its changes, `<state_dir>/microphone.log`: one JSON line
 * per change (its number, when, to what, who asked, what they were told), appended and synced before the
 * change is answered or shown, so a caller told "disabled" finds it so after a crash. The state a process
 * starts in is the fold of the log (the last change; enabled, the spec's default, without one). Past
 * `maxEntries` the log is rewritten atomically with its newest `keep` entries. Operators read it at
 * `GET /microphone/events`. Without --state_dir the log lives in memory: the audit covers the run only.
 */

export const MICROPHONE_LOG_FILE = 'microphone.log';
/** Where earlier versions kept a snapshot (`{"enabled": false}`): moved into the log once, then removed. */
export const LEGACY_STATE_FILE = 'microphone.json';

export const MICROPHONE_LOG_LIMITS = {
  /** Entries held, in memory and on disk; one more and the log is compacted to `keep`. */
  maxEntries: 512,
  keep: 256,
  /** Far more than `maxEntries` lines of this log; a larger file is not ours. */
  maxFileBytes: 1024 * 1024,
  /** Larger than any snapshot an earlier version wrote. */
  maxLegacyBytes: 4096,
} as const;

const SOURCE_MAX = 200;
const LegacySource = 'microphone.json, kept by an earlier version';

const EntrySchema = v.object({
  seq: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
  at: v.pipe(v.string(), v.maxLength(40)),
  enabled: v.boolean(),
  source: v.pipe(v.string(), v.maxLength(SOURCE_MAX)),
  answer: v.pipe(v.string(), v.maxLength(SOURCE_MAX)),
});

/** One change as the log holds it: numbered from 1, with the time it was kept (ISO 8601, UTC). */
export type MicrophoneLogEntry = v.InferOutput<typeof EntrySchema>;

export interface ParsedMicrophoneLog {
  readonly entries: MicrophoneLogEntry[];
  /** Lines that are not entries; a last line without its newline is one (a crash cut its append). */
  readonly damaged: number;
}

export const parseMicrophoneLog = (text: string): ParsedMicrophoneLog => {
  const lines = text.split('\n');
  // '' when the text ends with a newline; otherwise an append that never finished, never answered.
  const unfinished = lines.pop() ?? '';
  let damaged = unfinished === '' ? 0 : 1;
  const entries: MicrophoneLogEntry[] = [];
  for (const line of lines) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      damaged += 1;
      continue;
    }
    const entry = v.safeParse(EntrySchema, value);
    if (entry.success) entries.push(entry.output);
    else damaged += 1;
  }
  return { entries, damaged };
};

/** The state the entries leave: the last change, or enabled (the spec's default) without one. */
export const foldMicrophoneLog = (entries: readonly MicrophoneLogEntry[]): boolean =>
  entries.at(-1)?.enabled ?? true;

const entryLine = (entry: MicrophoneLogEntry): string => `${JSON.stringify(entry)}\n`;

/** The entries a log holds: past `maxEntries`, the newest `keep`. */
const bounded = (entries: MicrophoneLogEntry[]): MicrophoneLogEntry[] =>
  entries.length > MICROPHONE_LOG_LIMITS.maxEntries ? entries.slice(-MICROPHONE_LOG_LIMITS.keep) : entries;

/** A new change, numbered after the last one held (numbers go on across compaction and restarts). */
const nextEntry = (entries: readonly MicrophoneLogEntry[], change: MicrophoneChange, at: Date) => ({
  seq: (entries.at(-1)?.seq ?? 0) + 1,
  at: at.toISOString(),
  ...change,
});

const parseLegacyState = (text: string): boolean => {
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

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export interface MicrophoneLog {
  /** Where the log is kept; undefined without --state_dir (in memory only). */
  readonly file: string | undefined;
  /** The state to start from: the fold of the log read at start. */
  readonly enabled: boolean;
  /** Records a change; rejects (after logging why) when it could not be kept, and it is then refused. */
  readonly keep: KeepMicrophoneState;
  /** The entries held, oldest first. */
  entries(): readonly MicrophoneLogEntry[];
  /** Resolves once every change asked for so far is kept or refused. */
  settled(): Promise<void>;
}

interface Restored {
  readonly entries: MicrophoneLogEntry[];
  /** The state from a legacy snapshot, when there is no log yet. */
  readonly legacy?: boolean;
  /** The file on disk is not a clean log of `entries`: the next change rewrites it whole. */
  readonly rewrite: boolean;
}

/** Reads the log, or an earlier version's snapshot where there is no log; never throws. */
const restore = async (file: string, legacyFile: string, log: Logger): Promise<Restored> => {
  let text: string | undefined;
  try {
    text = await readRegularFile(file, MICROPHONE_LOG_LIMITS.maxFileBytes);
  } catch (error) {
    log.error(
      { file, reason: reasonOf(error) },
      'cannot read the kept microphone state; starting enabled (the default)',
    );
    return { entries: [], rewrite: true };
  }
  if (text !== undefined) {
    const { entries, damaged } = parseMicrophoneLog(text);
    const held = entries.slice(-MICROPHONE_LOG_LIMITS.maxEntries);
    if (damaged > 0 && entries.length === 0) {
      log.error(
        { file, damagedLines: damaged },
        'the kept microphone state is corrupt; starting enabled (the default)',
      );
    } else if (damaged > 0) {
      log.error(
        { file, damagedLines: damaged, enabled: foldMicrophoneLog(held) },
        'the kept microphone log has damaged lines; they are skipped and the next change rewrites the log',
      );
    }
    return { entries: held, rewrite: damaged > 0 || held.length < entries.length };
  }
  let legacyText: string | undefined;
  try {
    legacyText = await readRegularFile(legacyFile, MICROPHONE_LOG_LIMITS.maxLegacyBytes);
    if (legacyText === undefined) return { entries: [], rewrite: false };
    return { entries: [], legacy: parseLegacyState(legacyText), rewrite: false };
  } catch (error) {
    log.error(
      { file: legacyFile, reason: reasonOf(error) },
      legacyText === undefined
        ? 'cannot read the kept microphone state; starting enabled (the default)'
        : 'the kept microphone state is corrupt; starting enabled (the default)',
    );
    return { entries: [], rewrite: false };
  }
};

const inMemoryLog = (log: Logger, now: () => Date): MicrophoneLog => {
  log.info('no --state_dir: the microphone starts enabled and a restart forgets a disable');
  let entries: MicrophoneLogEntry[] = [];
  return {
    file: undefined,
    enabled: true,
    keep: (change: MicrophoneChange) => {
      entries = bounded([...entries, nextEntry(entries, change, now())]);
      return Promise.resolve();
    },
    entries: () => entries,
    settled: () => Promise.resolve(),
  };
};

/**
 * Opens the microphone's log under `stateDir` ('' keeps it in memory), saying at start which state it
 * restored. A log that cannot be read, or has damaged lines, is logged and rewritten by the next change.
 */
export const openMicrophoneLog = async (
  stateDir: string,
  log: Logger,
  now: () => Date = () => new Date(),
): Promise<MicrophoneLog> => {
  if (stateDir === '') return inMemoryLog(log, now);
  const file = join(stateDir, MICROPHONE_LOG_FILE);
  const legacyFile = join(stateDir, LEGACY_STATE_FILE);
  // Left by a rewrite a crash interrupted; they never hold the kept state (only a rename reaches it).
  const stale = [
    ...(await removeStaleTemporaries(file).catch(() => [])),
    ...(await removeStaleTemporaries(legacyFile).catch(() => [])),
  ];
  if (stale.length > 0) log.info({ removed: stale }, 'removed temporary files of interrupted saves');

  const restored = await restore(file, legacyFile, log);
  let entries = restored.entries;
  let rewrite = restored.rewrite;
  let saving: Promise<void> = Promise.resolve();

  const write = async (entry: MicrophoneLogEntry): Promise<void> => {
    // Every time: a state directory removed while the service runs is made again.
    await mkdir(stateDir, { recursive: true });
    const next = [...entries, entry];
    const held = bounded(next);
    if (rewrite || held !== next) {
      await writeFileAtomically(file, held.map(entryLine).join(''));
      entries = held;
      rewrite = false;
      return;
    }
    try {
      await appendDurably(file, entryLine(entry));
    } catch (error) {
      // Part of the line may have reached the file; the next change rewrites it whole.
      rewrite = true;
      throw error;
    }
    entries = next;
  };

  // A disk that stays full refuses every change: one line, then a summary per interval, not one a change.
  const failures = createFailureLog(log, {
    keyField: 'file',
    firstMessage: 'cannot keep the microphone state; the change is refused and the state stays as it was',
    level: 'error',
  });
  const keep = (change: MicrophoneChange): Promise<void> => {
    const kept = saving.then(async () => {
      try {
        await write(nextEntry(entries, change, now()));
      } catch (error) {
        failures.failed(file, error instanceof Error ? error : new Error(String(error)), {
          enabled: change.enabled,
        });
        throw error;
      }
      failures.succeeded(file);
    });
    saving = kept.catch(() => undefined);
    return kept;
  };

  let enabled = foldMicrophoneLog(entries);
  if (restored.legacy !== undefined) {
    enabled = restored.legacy;
    // The log becomes the one place the state is kept; the snapshot goes once the log holds it.
    try {
      await keep({ enabled, source: LegacySource, answer: 'moved into the log' });
      await unlink(legacyFile);
    } catch {
      // Logged by keep; the snapshot stays and the next start tries again.
    }
  }
  log.info({ file, enabled, entries: entries.length }, 'microphone state restored');
  return { file, enabled, keep, entries: () => entries, settled: () => saving };
};
