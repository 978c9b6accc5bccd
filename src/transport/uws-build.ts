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

/** `<package>@<version>`, as /ready, the metrics and the start-up log name the build. */
export const uwsBuildName = (build: UwsBuild): string => `${build.packageName}@${build.version}`;

/**
 * Why the service must not start on this build, or undefined when it may. The JS fallback accepts every
 * `send` and never drains, so the per-session send-buffer cap (close 1008) would silently stop working.
 */
export const uwsFallbackRefusal = (
  build: UwsBuild,
  fallback: 'refuse' | 'accept',
  node: { readonly version: string; readonly abi: string } = {
    version: process.version,
    abi: process.versions.modules,
  },
): string | undefined =>
  build.native || fallback === 'accept'
    ? undefined
    : `uWebSockets.js ${uwsBuildName(build)} has no native binary for Node.js ${node.version} (ABI ${node.abi}) ` +
      'and would run its JavaScript fallback, which has no backpressure; run Node.js 20 with this build ' +
      '(or the image, Node.js 24 with an official uWebSockets.js release), or start with --uws_fallback accept';

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
