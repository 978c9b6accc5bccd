// Fails (exit 1) unless the official uWebSockets.js build (module `uWebSockets.js`) loads natively here.
//   node docker/check-uws-native.mjs        (from the app directory, /app in the image)
// The Dockerfile runs it after npm ci and again in the runtime image as its user, so an image the bridge
// would refuse to start in is never built. The official uws.js throws when its binary cannot load (none
// for this platform and Node.js ABI, or a glibc older than the 2.38 its Linux binaries need).
// test/e2e/container-scripts.test.ts runs it against the real module and against stand-ins.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const glibc = process.report.getReport().header.glibcVersionRuntime ?? 'none';
const runtime = `Node.js ${process.version} (${process.platform}-${process.arch}, ABI ${process.versions.modules}, glibc ${glibc})`;

let build = 'uWebSockets.js';
try {
  // Read beside the entry point: the package's exports map hides its package.json.
  const { name, version } = JSON.parse(
    readFileSync(join(dirname(require.resolve('uWebSockets.js')), 'package.json'), 'utf8'),
  );
  build = `${name}@${version}`;
} catch {
  // Not installed: the require below says so.
}

try {
  const uws = require('uWebSockets.js'); // as src/transport/uws-build.ts loads it
  if (typeof uws?.App !== 'function' || typeof uws.SSLApp !== 'function') {
    throw new Error('it loaded without App and SSLApp (not a native build)');
  }
} catch (error) {
  const text = error instanceof Error ? error.message : String(error);
  const needed = /GLIBC_(\d+\.\d+)'? not found/.exec(text)?.[1];
  const why = needed === undefined ? '' : `: needs glibc ${needed} or newer, this system has ${glibc}`;
  console.error(`check-uws-native: ${build} does not load natively on ${runtime}${why}\n${text}`);
  process.exit(1);
}
console.log(`check-uws-native: ${build} is native on ${runtime}`);
