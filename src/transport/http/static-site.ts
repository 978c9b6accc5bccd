import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The kiosk's static files, read once at start into memory. The whole site is about 100 KiB, served to a
 * handful of kiosks on the robot's network: holding it in memory means no file system access per request
 * (so a request path can never reach the file system: it is only a key into a map built at start), ETags
 * computed once, and no partial reads. The limits keep that memory bounded: a web root over them refuses
 * to load rather than filling the heap.
 */

export interface StaticLimits {
  readonly maxTotalBytes: number;
  readonly maxFiles: number;
  readonly maxDepth: number;
}

export const STATIC_LIMITS: StaticLimits = {
  /** Total bytes of all files; the built site is ~100 KiB, so 8 MiB leaves room without risk. */
  maxTotalBytes: 8 * 1024 * 1024,
  maxFiles: 256,
  /** Subdirectory levels below the root. */
  maxDepth: 3,
};

/** The only file types served; anything else in the web root is a build mistake and stops the load. */
export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

// Names are served under the exact key they were read with, so they are limited to characters that need
// no percent-encoding: a request can only match such a key byte for byte, never a decoded `..`.
const SAFE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

export interface StaticFile {
  readonly body: Uint8Array;
  readonly contentType: string;
  /** Strong validator: a hash of the content, so it changes exactly when the bytes do. */
  readonly etag: string;
}

/** Files keyed by their path relative to the root, with `/` separators (`kiosk.js`, `img/a.png`). */
export type StaticSite = ReadonlyMap<string, StaticFile>;

export class StaticSiteError extends Error {
  override readonly name = 'StaticSiteError';
}

const extensionOf = (name: string): string => {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot).toLowerCase();
};

export const etagOf = (body: Uint8Array): string =>
  `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

/**
 * Reads every file under `root` (dot files skipped). Throws `StaticSiteError` when the root breaks a limit
 * or holds a file that cannot be served; a missing root is reported as `undefined` so the caller decides.
 */
export const loadStaticSite = async (
  root: string,
  limits: StaticLimits = STATIC_LIMITS,
): Promise<StaticSite | undefined> => {
  try {
    if (!(await stat(root)).isDirectory()) throw new StaticSiteError(`${root} is not a directory`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const site = new Map<string, StaticFile>();
  let totalBytes = 0;

  const walk = async (directory: string, prefix: string, depth: number): Promise<void> => {
    const entries = await readdir(directory, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const key = `${prefix}${entry.name}`;
      if (!SAFE_NAME.test(entry.name)) {
        throw new StaticSiteError(`${key}: file names may hold only letters, digits, ".", "_" and "-"`);
      }
      const path = join(directory, entry.name);
      if (entry.isDirectory()) {
        if (depth >= limits.maxDepth) {
          throw new StaticSiteError(`${key}: deeper than ${limits.maxDepth} levels`);
        }
        await walk(path, `${key}/`, depth + 1);
        continue;
      }
      // Symbolic links and other special files are refused: the site is what the build wrote, nothing else.
      if (!entry.isFile()) throw new StaticSiteError(`${key}: not a regular file`);
      const contentType = CONTENT_TYPES[extensionOf(entry.name)];
      if (contentType === undefined) {
        throw new StaticSiteError(`${key}: no content type for "${extensionOf(entry.name)}" files`);
      }
      if (site.size >= limits.maxFiles) {
        throw new StaticSiteError(`${root} holds more than ${limits.maxFiles} files`);
      }
      // Checked before reading, so an oversized file is never loaded.
      const { size } = await stat(path);
      if (totalBytes + size > limits.maxTotalBytes) {
        throw new StaticSiteError(
          `${root} holds more than ${limits.maxTotalBytes} bytes; refusing to hold it in memory`,
        );
      }
      const body = new Uint8Array(await readFile(path));
      totalBytes += body.byteLength;
      // The file may have grown between stat and read.
      if (totalBytes > limits.maxTotalBytes) {
        throw new StaticSiteError(`${root} grew past ${limits.maxTotalBytes} bytes while being read`);
      }
      site.set(key, { body, contentType, etag: etagOf(body) });
    }
  };

  await walk(root, '', 0);
  return site;
};

/**
 * Where `npm run build` puts the kiosk: `<package root>/dist/web`. The package root is found by walking up
 * from this module (src/transport/http under tsx, dist/src/transport/http once built) to the first package.json; bounded.
 */
export const defaultWebRoot = (): string => {
  let directory = fileURLToPath(new URL('.', import.meta.url));
  for (let level = 0; level < 6; level += 1) {
    if (existsSync(join(directory, 'package.json'))) return join(directory, 'dist', 'web');
    directory = dirname(directory);
  }
  return fileURLToPath(new URL('../../../dist/web', import.meta.url));
};
