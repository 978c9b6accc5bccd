import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { join } from 'node:path';
import { readProxyTemplate, renderProxyConfig } from '../support/nginx-config.js';
import { freeLoopbackPort } from '../support/free-port.js';

/**
 * The pieces of the TLS test: certificates made by the shipped deploy/nginx/make-cert.sh, an NSS
 * database that trusts their CA (what Chromium on Linux reads from $HOME/.pki/nssdb), and Debian's
 * nginx running the shipped deploy/nginx/tour-bridge.conf.template, on 127.0.0.1 only, with its own
 * prefix, configuration, pid file, logs and temporary directories under the test's scratch directory.
 * test/browser/ensure-tls-tools.sh installs nginx, certutil and openssl.
 */

export const NGINX = process.env['TOUR_BRIDGE_NGINX'] ?? '/usr/sbin/nginx';
const MAKE_CERT = new URL('../../deploy/nginx/make-cert.sh', import.meta.url).pathname;

/** Runs a program to completion (bounded); rejects with its output when it fails. */
export const runTool = (
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> =>
  new Promise((resolve, reject) => {
    execFile(file, args, { env, timeout: 30_000, killSignal: 'SIGKILL' }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file} ${args.join(' ')}: ${error.message}\n${stdout}${stderr}`));
      else resolve(stdout);
    });
  });

export interface Certificates {
  readonly caCert: string;
  readonly serverCert: string;
  readonly serverKey: string;
}

/** A throwaway CA and a server certificate for 127.0.0.1 and localhost, valid two days. */
export const makeCertificates = async (dir: string): Promise<Certificates> => {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await runTool('sh', [MAKE_CERT, dir, '127.0.0.1', 'localhost'], {
    ...process.env,
    TLS_DAYS: '2',
    TLS_CA_DAYS: '2',
  });
  return {
    caCert: join(dir, 'ca.crt'),
    serverCert: join(dir, 'server.crt'),
    serverKey: join(dir, 'server.key'),
  };
};

/**
 * A home directory whose NSS database trusts `caCert` for TLS servers (certutil trust "C,,": a CA
 * trusted to issue server certificates). Chromium started with HOME set to it verifies the proxy's
 * certificate as it would on a kiosk where the operator installed the CA.
 */
export const homeTrusting = async (home: string, caCert: string): Promise<string> => {
  const nssdb = join(home, '.pki', 'nssdb');
  await mkdir(nssdb, { recursive: true, mode: 0o700 });
  await runTool('certutil', ['-d', `sql:${nssdb}`, '-N', '--empty-password']);
  await runTool('certutil', [
    '-d',
    `sql:${nssdb}`,
    '-A',
    '-t',
    'C,,',
    '-n',
    'tour-bridge test CA',
    '-i',
    caCert,
  ]);
  const listed = await runTool('certutil', ['-d', `sql:${nssdb}`, '-L']);
  if (!listed.includes('tour-bridge test CA'))
    throw new Error(`the CA is not in the NSS database:\n${listed}`);
  return home;
};

export interface HttpsAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** One HTTPS request to the proxy from Node, verifying its certificate against `ca` (bounded). */
export const httpsRequest = (
  url: string,
  ca: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<HttpsAnswer> =>
  new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: options.method ?? 'GET', headers: options.headers, ca, timeout: 10_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${url}: no answer within 10 s`)));
    req.on('error', reject);
    req.end(options.body);
  });

export interface RunningProxy {
  /** `https://127.0.0.1:<port>` */
  readonly origin: string;
  readonly port: number;
  /** The filled-in shipped configuration nginx runs. */
  readonly config: string;
  /**
   * The access log once a line matches `line`, or as it stands after 5 s. nginx writes a request's
   * line in its log phase, after the answer's bytes are sent, so a client can hold the answer first.
   */
  accessLogWith(line: RegExp): Promise<string>;
  errorLog(): Promise<string>;
  stop(): Promise<void>;
}

const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) =>
        child.once('exit', () => {
          resolve();
        }),
      );

const within = <T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      resolve('timeout');
    }, ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });

/**
 * Starts nginx in the foreground (`daemon off`) with the shipped configuration in front of the bridge at
 * `upstreamPort`, on a free loopback port, and waits until it answers over TLS. The port is free when
 * picked but could be taken before nginx binds it: then nginx exits and another port is tried (3 tries).
 */
export const startProxy = async (
  dir: string,
  certificates: Certificates,
  upstreamPort: number,
): Promise<RunningProxy> => {
  // Run as root, nginx's workers are `nobody`: they must reach their temporary directories in here
  // (and through `dir`'s parents, which the caller sees to).
  await mkdir(dir, { recursive: true });
  await chmod(dir, 0o711);
  const temp = join(dir, 'temp');
  await mkdir(temp, { recursive: true });
  const errorLog = join(dir, 'error.log');
  const accessLog = join(dir, 'access.log');

  let lastFailure = '';
  for (let attempt = 1; attempt <= 3; attempt += 1) {
    const port = await freeLoopbackPort();
    const config = renderProxyConfig(readProxyTemplate(), {
      TOUR_BRIDGE_TLS_LISTEN: `127.0.0.1:${port}`,
      TOUR_BRIDGE_TLS_CERT: certificates.serverCert,
      TOUR_BRIDGE_TLS_KEY: certificates.serverKey,
      TOUR_BRIDGE_UPSTREAM: `127.0.0.1:${upstreamPort}`,
      TOUR_BRIDGE_TLS_ACCESS_LOG: accessLog,
    });
    await writeFile(join(dir, 'tour-bridge.conf'), config);
    // The main configuration is the test's own (nginx.conf of a package would name /var paths); the
    // shipped file is included in its http block, as conf.d files are.
    await writeFile(
      join(dir, 'nginx.conf'),
      [
        'daemon off;',
        'worker_processes 1;',
        `pid "${join(dir, 'nginx.pid')}";`,
        `error_log "${errorLog}" warn;`,
        'events { worker_connections 256; }',
        'http {',
        '    access_log off;',
        ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
          (kind) => `    ${kind}_temp_path "${join(temp, kind)}";`,
        ),
        `    include "${join(dir, 'tour-bridge.conf')}";`,
        '}',
        '',
      ].join('\n'),
    );
    // Its own process group, so that stopping it also reaches the workers should the master hang.
    const child = spawn(NGINX, ['-p', `${dir}/`, '-c', join(dir, 'nginx.conf'), '-e', errorLog], {
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const killGroup = (signal: NodeJS.Signals) => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, signal);
      } catch {
        // already gone
      }
    };
    // Should this test process die first, nginx must not outlive it.
    const onExit = () => {
      killGroup('SIGKILL');
    };
    process.once('exit', onExit);
    const stop = async () => {
      killGroup('SIGTERM');
      if ((await within(exited(child), 5_000)) === 'timeout') {
        killGroup('SIGKILL');
        await within(exited(child), 5_000);
      }
      process.removeListener('exit', onExit);
    };

    const origin = `https://127.0.0.1:${port}`;
    const ca = await readFile(certificates.caCert, 'utf8');
    const deadline = Date.now() + 15_000;
    let ready = false;
    let lastAnswer = 'none';
    while (!ready && Date.now() < deadline && child.exitCode === null && child.signalCode === null) {
      try {
        const answer = await httpsRequest(`${origin}/health`, ca);
        ready = answer.status === 200;
        lastAnswer = `${answer.status} ${answer.body.slice(0, 200)}`;
      } catch (error) {
        lastAnswer = error instanceof Error ? error.message : String(error);
      }
      if (!ready) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (ready) {
      return {
        origin,
        port,
        config,
        accessLogWith: async (line) => {
          const deadline = Date.now() + 5_000;
          let log = await readFile(accessLog, 'utf8');
          while (!line.test(log) && Date.now() < deadline) {
            await new Promise((resolve) => setTimeout(resolve, 50));
            log = await readFile(accessLog, 'utf8');
          }
          return log;
        },
        errorLog: () => readFile(errorLog, 'utf8'),
        stop,
      };
    }
    const running = child.exitCode === null && child.signalCode === null;
    await stop();
    const state = running
      ? 'ran, but GET /health through it never answered 200'
      : `exited (${child.exitCode ?? child.signalCode})`;
    const log = await readFile(errorLog, 'utf8').catch(() => '');
    lastFailure = `nginx on port ${port} ${state}; last answer: ${lastAnswer}\n${stderr}${log}`;
    if (!/Address already in use/.test(lastFailure)) break;
  }
  throw new Error(`the proxy did not come up: ${lastFailure}`);
};
