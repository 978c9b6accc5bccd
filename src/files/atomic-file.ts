import { constants } from 'node:fs';
import { open, readdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Replacing a file so that a crash at any moment leaves either the old or the new content, never a
 * mix, and so that once the write returns the new content survives a power loss:
 *
 *   1. write the new content to a temporary file in the same directory (same file system, so the
 *      rename below is atomic) and fsync it: its bytes are on disk before any name points at them;
 *   2. rename it over the target: atomic on POSIX file systems; readers see old or new;
 *   3. fsync the directory: the rename itself (a directory entry) is on disk.
 *
 * Only after step 3 may a caller report the change as done.
 */

/** The points between the steps, for tests that crash the process there. */
export type AtomicWriteStep = 'temp-opened' | 'temp-written' | 'renamed' | 'directory-synced';

export interface AtomicWriteOptions {
  /** Called after each step; a test hook may pause (and the test kill the process) there. */
  readonly afterStep?: (step: AtomicWriteStep, temporaryFile: string) => Promise<void> | void;
  /** Permission bits of a newly created file. */
  readonly mode?: number;
}

let sequence = 0;

/** Temporary files of `file` are named `.<name>.tmp-<pid>-<n>` next to it. */
export const temporaryPrefix = (file: string): string => `.${basename(file)}.tmp-`;

/** Syncs a directory, so that the entries made in it (a new file, a rename) survive a power loss. */
export const syncDirectory = async (directory: string): Promise<void> => {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
};

export const writeFileAtomically = async (
  file: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> => {
  const directory = dirname(file);
  sequence += 1;
  const temporary = join(directory, `${temporaryPrefix(file)}${process.pid}-${sequence}`);
  let renamed = false;
  try {
    // 'wx': never reuse a file someone else created under this name.
    const handle = await open(temporary, 'wx', options.mode ?? 0o644);
    try {
      await options.afterStep?.('temp-opened', temporary);
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await options.afterStep?.('temp-written', temporary);
    await rename(temporary, file);
    renamed = true;
    await options.afterStep?.('renamed', temporary);
    await syncDirectory(directory);
    await options.afterStep?.('directory-synced', temporary);
  } catch (error) {
    if (!renamed) await unlink(temporary).catch(() => undefined);
    throw error;
  }
};

/**
 * Removes temporary files a crashed writer left next to `file`. They never hold the committed
 * content (that is only ever reached by the rename), so deleting them loses nothing.
 * Call only while no other process writes `file`. Returns the removed names.
 */
export const removeStaleTemporaries = async (file: string): Promise<string[]> => {
  const directory = dirname(file);
  const prefix = temporaryPrefix(file);
  const stale = (await readdir(directory)).filter((name) => name.startsWith(prefix));
  for (const name of stale) await unlink(join(directory, name));
  return stale;
};

/**
 * Appends `data` to a regular file (made if missing) and syncs it, and its directory when the file was
 * empty (just made: its name must survive too), so that once this returns the data survives a crash or a
 * power loss. Every byte is written or it rejects: a write may take fewer bytes than asked (a file system
 * that fills up takes what fits, then refuses), and the rest is written until a write fails. On a failure
 * the file is cut back to its size before (best effort), so no part of `data` stays at its end. Refuses
 * what is not a regular file: a link is not followed, and a FIFO fails at once instead of blocking.
 */
export const appendDurably = async (file: string, data: string): Promise<void> => {
  const handle = await open(
    file,
    constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NONBLOCK | constants.O_NOFOLLOW,
    0o644,
  );
  let made: boolean;
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new Error('not a regular file');
    made = stat.size === 0;
    const bytes = Buffer.from(data, 'utf8');
    try {
      // Bounded: each turn writes at least one byte or throws.
      for (let offset = 0; offset < bytes.length; ) {
        const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset);
        if (bytesWritten <= 0) throw new Error(`no byte of the last ${bytes.length - offset} was written`);
        offset += bytesWritten;
      }
      await handle.sync();
    } catch (error) {
      await handle.truncate(stat.size).catch(() => undefined);
      throw error;
    }
  } finally {
    await handle.close();
  }
  if (made) await syncDirectory(dirname(file));
};
