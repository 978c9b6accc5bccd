import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  chooseUwsBuild,
  loadFailureReason,
  type RuntimeFacts,
  type UwsCandidate,
} from '../../src/transport/uws-build.js';

const debian12Node24: RuntimeFacts = {
  nodeVersion: 'v24.21.0',
  abi: '137',
  platform: 'linux',
  arch: 'x64',
  glibc: '2.36',
};

// What Node.js throws when a binary needs a newer glibc, as the official line's uws.js passes it on.
const glibcError = new Error(
  'This version of uWS.js (v20.57.0) supports only Node.js versions 20, 22, 24 and 25 on (glibc) Linux...\n\n' +
    "Error: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.38' not found (required by /app/node_modules/uWebSockets.js/uws_linux_x64_137.node)",
);
const missingBinary = Object.assign(
  new Error("Cannot find module 'uWebSockets.js-node20/binaries/uws_linux_x64_137.node'"),
  {
    code: 'MODULE_NOT_FOUND',
  },
);

const candidate = (
  line: UwsCandidate['line'],
  load: () => unknown,
  name: string,
  version: string,
): UwsCandidate => ({
  line,
  load,
  packageJson: () => ({ name, version }),
});
const throwing = (error: Error) => (): never => {
  throw error;
};
const officialModule = { App: () => 'official' };
const node20Module = { App: () => 'node20' };

describe('choosing the uWebSockets.js build', () => {
  it('takes the official build wherever it loads, and says so', () => {
    const choice = chooseUwsBuild(
      candidate('official', () => officialModule, '@btc-vision/uwebsockets.js', '20.57.0'),
      candidate('node20', () => assert.fail('the Node.js 20 build is not tried'), 'old', '1'),
      { ...debian12Node24, glibc: '2.41' },
    );
    assert.ok(choice.ok);
    assert.equal(choice.module, officialModule);
    assert.deepEqual(choice.build, {
      line: 'official',
      name: '@btc-vision/uwebsockets.js@20.57.0',
      reason: 'the official build loads natively on Node.js v24.21.0 (glibc 2.41)',
    });
  });

  it('falls back to the Node.js 20 build where the official one needs a newer glibc, naming why', () => {
    const choice = chooseUwsBuild(
      candidate('official', throwing(glibcError), '@btc-vision/uwebsockets.js', '20.57.0'),
      candidate('node20', () => node20Module, '@trufflesuite/uws-js-unofficial', '20.30.0-unofficial.0'),
      { ...debian12Node24, nodeVersion: 'v20.20.2', abi: '115' },
    );
    assert.ok(choice.ok);
    assert.equal(choice.module, node20Module);
    assert.equal(choice.build.line, 'node20');
    assert.equal(
      choice.build.reason,
      'the official build (@btc-vision/uwebsockets.js@20.57.0) needs glibc 2.38 or newer, this system has 2.36',
    );
  });

  it('refuses, naming both builds, both reasons and what to run, where neither loads', () => {
    const choice = chooseUwsBuild(
      candidate('official', throwing(glibcError), '@btc-vision/uwebsockets.js', '20.57.0'),
      candidate('node20', throwing(missingBinary), '@trufflesuite/uws-js-unofficial', '20.30.0-unofficial.0'),
      debian12Node24,
    );
    assert.ok(!choice.ok);
    assert.equal(
      choice.refusal,
      'no uWebSockets.js build loads natively on Node.js v24.21.0 (ABI 137) here: the official build ' +
        '@btc-vision/uwebsockets.js@20.57.0 needs glibc 2.38 or newer, this system has 2.36, and the Node.js 20 ' +
        'build @trufflesuite/uws-js-unofficial@20.30.0-unofficial.0 has no binary for Node.js v24.21.0 (ABI 137) ' +
        'on linux-x64; run Node.js 22 or 24 on a system with glibc 2.38 or newer (Ubuntu 24.04, Debian 13), or Node.js 20',
    );
  });

  it('names a build whose package.json cannot be read by its module', () => {
    const choice = chooseUwsBuild(
      {
        line: 'official',
        load: () => officialModule,
        packageJson: () => {
          throw new Error('ERR_PACKAGE_PATH_NOT_EXPORTED');
        },
      },
      candidate('node20', () => node20Module, 'old', '1'),
      debian12Node24,
    );
    assert.ok(choice.ok);
    assert.equal(choice.build.name, 'uWebSockets.js@unknown');
  });

  it('gives the first line of any other load failure, bounded', () => {
    const reason = loadFailureReason(new Error(`${'x'.repeat(1000)}\nsecond line`), debian12Node24);
    assert.equal(reason, `does not load: ${'x'.repeat(300)}`);
    assert.equal(loadFailureReason('musl', { ...debian12Node24, glibc: undefined }), 'does not load: musl');
  });
});
