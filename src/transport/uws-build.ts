import { createRequire } from 'node:module';
import uWS from 'uWebSockets.js';

/**
 * Which uWebSockets.js build this process runs on. The npm build we pin (an unofficial repackaging)
 * silently falls back to a pure-JS implementation when its native binary does not match the Node ABI;
 * that fallback is much slower, so it must be visible in the start-up log.
 */
export interface UwsBuild {
  readonly packageName: string;
  readonly version: string;
  readonly native: boolean;
}

interface PackageJson {
  readonly name?: string;
  readonly version?: string;
}

export const describeUwsBuild = (): UwsBuild => {
  const require = createRequire(import.meta.url);
  let packageJson: PackageJson = {};
  try {
    packageJson = require('uWebSockets.js/package.json') as PackageJson;
  } catch {
    // The official release has no package.json export restriction today, but a future one might.
  }
  // Only the native addon exports SSLApp; the JS fallback does not.
  const native = typeof (uWS as unknown as Record<string, unknown>)['SSLApp'] === 'function';
  return {
    packageName: packageJson.name ?? 'uWebSockets.js',
    version: packageJson.version ?? 'unknown',
    native,
  };
};

export { uWS };
