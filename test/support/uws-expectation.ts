import { execFileSync } from 'node:child_process';

/**
 * Which uWebSockets.js build a Node.js should serve on on this system, worked out from the facts alone
 * (the C library's version and the Node.js ABI), not by loading anything: the service decides by trying
 * to load, so the two agreeing is the check. The official line's Linux binaries need glibc 2.38 and
 * exist for ABI 115, 127, 137 and 141 (Node.js 20, 22, 24, 25); the Node.js 20 build's for ABI 115 here.
 */

export type ExpectedUwsLine = 'official' | 'node20' | 'none';

const OFFICIAL_ABIS = new Set(['115', '127', '137', '141']);
const NODE20_ABIS = new Set(['115']);

const atLeast = (version: string, floor: string): boolean => {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const [floorMajor = 0, floorMinor = 0] = floor.split('.').map(Number);
  return major > floorMajor || (major === floorMajor && minor >= floorMinor);
};

export const systemGlibc = (): string | undefined =>
  (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime;

export const expectedUwsLine = (abi: string, glibc: string | undefined = systemGlibc()): ExpectedUwsLine => {
  if (glibc !== undefined && atLeast(glibc, '2.38') && OFFICIAL_ABIS.has(abi)) return 'official';
  if (NODE20_ABIS.has(abi)) return 'node20';
  return 'none';
};

/** The package each line is installed from (package.json's aliases). */
export const UWS_PACKAGES = {
  official: '@btc-vision/uwebsockets.js',
  node20: '@trufflesuite/uws-js-unofficial',
} as const;

/**
 * A second Node.js binary to start the service with, from TOUR_BRIDGE_OTHER_NODE: CI gives Node.js 24 on
 * Debian 12 and Node.js 20 in the Debian 13 root, so between its two runs the service is started on all
 * four combinations of old or new Node.js and old or new glibc.
 */
export const otherNode = (): { path: string; version: string; abi: string } | undefined => {
  const path = process.env['TOUR_BRIDGE_OTHER_NODE'];
  if (path === undefined || path === '') return undefined;
  const [version = '', abi = ''] = execFileSync(
    path,
    ['-p', 'process.version + " " + process.versions.modules'],
    {
      encoding: 'utf8',
      timeout: 10_000,
    },
  )
    .trim()
    .split(' ');
  return { path, version, abi };
};
