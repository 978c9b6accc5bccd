// Fails (exit 1) unless uWebSockets.js loads natively in this Node.js, the way the bridge imports it.
//   node docker/check-uws-native.mjs        (from the app directory, /app in the image)
// The Dockerfile runs it after putting the official release in place and again in the runtime image,
// so an image whose uWebSockets.js would not load natively is never built. Two ways to fail: the
// official release throws when it has no binary for this platform and Node.js ABI (or the binary needs
// a newer glibc); the npm build of package-lock.json instead falls back, silently, to a JavaScript
// shim without SSLApp (src/transport/uws-build.ts tells the two apart the same way at start-up).
// test/e2e/container-scripts.test.ts runs it against the real module and against stand-ins.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const runtime = `Node.js ${process.version} (${process.platform}-${process.arch}, ABI ${process.versions.modules})`;

let build = 'uWebSockets.js';
try {
  const packageJson = require('uWebSockets.js/package.json');
  build = `${packageJson.name ?? 'uWebSockets.js'}@${packageJson.version ?? 'unknown'}`;
} catch {
  // A package that hides its package.json still has to load below.
}

let uws;
try {
  uws = (await import('uWebSockets.js')).default;
} catch (error) {
  const reason = error instanceof Error ? error.message : String(error);
  console.error(`check-uws-native: ${build} does not load on ${runtime}:\n${reason}`);
  process.exit(1);
}

if (typeof uws?.SSLApp !== 'function' || typeof uws.App !== 'function') {
  console.error(
    `check-uws-native: ${build} loaded without its native binary on ${runtime} (no SSLApp: the JavaScript ` +
      'fallback, where send() always reports success and the slow-kiosk protection does nothing)',
  );
  process.exit(1);
}
console.log(`check-uws-native: ${build} is native on ${runtime}`);
