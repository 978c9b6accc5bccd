import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';

/**
 * Fresh directories under the system's temporary directory, removed after the suite (or file) that asked
 * for them. Call at the top of a `describe` or of a test file.
 */
export const scratchDirs = (prefix: string): (() => Promise<string>) => {
  const made: string[] = [];
  after(async () => {
    for (const directory of made) await rm(directory, { recursive: true, force: true });
  });
  return async () => {
    const directory = await mkdtemp(join(tmpdir(), prefix));
    made.push(directory);
    return directory;
  };
};
