import { createRequire } from 'node:module';

interface PackageJson {
  readonly version: string;
}

// Read once at start; dist/src/version.js and src/version.ts both sit two levels below package.json.
const require = createRequire(import.meta.url);
const packageJson = ((): PackageJson => {
  for (const candidate of ['../package.json', '../../package.json']) {
    try {
      const found = require(candidate) as Partial<PackageJson> & { name?: string };
      if (found.name === 'tour-bridge' && typeof found.version === 'string')
        return { version: found.version };
    } catch {
      // try the next layout
    }
  }
  return { version: '0.0.0' };
})();

export const SERVICE_VERSION = packageJson.version;
