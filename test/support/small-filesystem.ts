import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real file system of a few KiB (a tmpfs, mounted as root), to fill up: what a full disk does to a
 * write is the file system's to say, so tests of it use one. `unavailable` says why there is none here
 * (not root, or mounting refused); the tests that need it are skipped with that reason elsewhere.
 */
export interface SmallFilesystem {
  readonly directory: string;
  unmount(): Promise<void>;
}

export const smallFilesystemUnavailable = (): string | undefined =>
  process.getuid?.() === 0 ? undefined : 'mounting a tmpfs needs root (CI runs as root)';

export const mountSmallFilesystem = async (bytes: number): Promise<SmallFilesystem> => {
  const directory = await mkdtemp(join(tmpdir(), 'tour-bridge-small-fs-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0755`, 'tmpfs', directory], {
    timeout: 10_000,
  });
  return {
    directory,
    unmount: async () => {
      execFileSync('umount', [directory], { timeout: 10_000 });
      await rm(directory, { recursive: true, force: true });
    },
  };
};
