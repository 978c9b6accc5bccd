import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as UwsApi from 'uWebSockets.js';
import { problemReply, type HttpReply } from './http/reply.js';

/**
 * Which uWebSockets.js build serves HTTP and /ws, chosen once at start. The code is written against the
 * official line's API (the module `uWebSockets.js`, 20.57 or newer); the Node.js 20 build is the fallback
 * for systems whose glibc is older than the official binaries need (2.38). Its differences from the
 * official API are absorbed here and nowhere else. The JavaScript shim that build ships is never used: it
 * has no backpressure, so the per-session send-buffer cap would silently stop working.
 */

export type UwsModule = typeof UwsApi;

export type UwsLine = 'official' | 'node20';

export interface UwsBuild {
  /** `official`: the upstream release line; `node20`: the Node.js 20 build kept for glibc < 2.38. */
  readonly line: UwsLine;
  /** `<package>@<version>`, as /ready, the metrics and the start-up log name the build. */
  readonly name: string;
  /** Why this build serves, in one sentence (the start-up log, /ready and /metrics give it). */
  readonly reason: string;
}

/** The module names package.json installs the two builds under. */
export const OFFICIAL_MODULE = 'uWebSockets.js';
export const NODE20_MODULE = 'uWebSockets.js-node20';

/** The glibc the official binaries are linked against (they reference GLIBC_2.38 symbols). */
const OFFICIAL_GLIBC = '2.38';

export interface RuntimeFacts {
  readonly nodeVersion: string;
  readonly abi: string;
  readonly platform: string;
  readonly arch: string;
  /** The running glibc, or undefined on another C library. */
  readonly glibc: string | undefined;
}

export const runtimeFacts = (): RuntimeFacts => {
  const header = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header;
  return {
    nodeVersion: process.version,
    abi: process.versions.modules,
    platform: process.platform,
    arch: process.arch,
    glibc: header?.glibcVersionRuntime,
  };
};

export interface UwsCandidate {
  readonly line: UwsLine;
  /** Loads the native addon, or throws why it cannot. */
  readonly load: () => unknown;
  readonly packageJson: () => { readonly name?: string; readonly version?: string };
}

export type UwsChoice =
  | { readonly ok: true; readonly module: UwsModule; readonly build: UwsBuild }
  | { readonly ok: false; readonly refusal: string };

/** Why a candidate did not load, in words an operator can act on. */
export const loadFailureReason = (error: unknown, facts: RuntimeFacts): string => {
  const text = error instanceof Error ? error.message : String(error);
  const glibc = /GLIBC_(\d+\.\d+)'? not found/.exec(text);
  if (glibc !== null) {
    return `needs glibc ${glibc[1]} or newer, this system has ${facts.glibc ?? 'another C library'}`;
  }
  if (/Cannot find module|MODULE_NOT_FOUND|ENOENT/.test(text)) {
    return `has no binary for Node.js ${facts.nodeVersion} (ABI ${facts.abi}) on ${facts.platform}-${facts.arch}`;
  }
  const firstLine = text.split('\n').find((line) => line.trim() !== '') ?? 'unknown error';
  return `does not load: ${firstLine.trim().slice(0, 300)}`;
};

const nameOf = (candidate: UwsCandidate): string => {
  let json: { readonly name?: string; readonly version?: string } = {};
  try {
    json = candidate.packageJson();
  } catch {
    // A build without a readable package.json still serves; it is named by its module.
  }
  return `${json.name ?? (candidate.line === 'official' ? OFFICIAL_MODULE : NODE20_MODULE)}@${json.version ?? 'unknown'}`;
};

const attempt = (
  candidate: UwsCandidate,
  facts: RuntimeFacts,
): { module: UwsModule } | { reason: string } => {
  try {
    return { module: candidate.load() as UwsModule };
  } catch (error) {
    return { reason: loadFailureReason(error, facts) };
  }
};

/**
 * The official build where it loads, else the Node.js 20 build where that loads natively, else a
 * refusal naming both reasons and what to run instead. Pure over its candidates: tests give stand-ins.
 */
export const chooseUwsBuild = (
  official: UwsCandidate,
  node20: UwsCandidate,
  facts: RuntimeFacts,
): UwsChoice => {
  const officialName = nameOf(official);
  const first = attempt(official, facts);
  if ('module' in first) {
    const reason = `the official build loads natively on Node.js ${facts.nodeVersion} (glibc ${facts.glibc ?? 'none'})`;
    return { ok: true, module: first.module, build: { line: 'official', name: officialName, reason } };
  }
  const node20Name = nameOf(node20);
  const second = attempt(node20, facts);
  if ('module' in second) {
    const reason = `the official build (${officialName}) ${first.reason}`;
    return { ok: true, module: second.module, build: { line: 'node20', name: node20Name, reason } };
  }
  return {
    ok: false,
    refusal:
      `no uWebSockets.js build loads natively on Node.js ${facts.nodeVersion} (ABI ${facts.abi}) here: ` +
      `the official build ${officialName} ${first.reason}, and the Node.js 20 build ${node20Name} ` +
      `${second.reason}; run Node.js 22 or 24 on a system with glibc ${OFFICIAL_GLIBC} or newer ` +
      '(Ubuntu 24.04, Debian 13), or Node.js 20',
  };
};

/**
 * The largest request head (request line and headers) either build lets through: the official line
 * answers 431 itself past it, and reads the bound from UWS_HTTP_MAX_HEADERS_SIZE once, as its binary
 * loads (its default, 4 KiB, is less than a browser's cookies may take). The Node.js 20 build has no such
 * bound, so the service measures the head there (`headProblem`) and answers the same 431.
 */
export const MAX_REQUEST_HEAD_BYTES = 16 * 1024;

/** The raw query string, '' when there is none (the official line gives undefined, typed as a string). */
export const requestQuery = (req: UwsApi.HttpRequest): string => {
  const query: unknown = req.getQuery();
  return typeof query === 'string' ? query : '';
};

/** What is wrong with a request head that the official build refuses before any handler runs. */
export type HeadProblem = 'too-large' | 'several-hosts';

/**
 * The Node.js 20 build's request head, checked as the official build checks it: its size (request line
 * and header lines, as the official build counts them into its bound) and its Host headers (RFC 9112 3.2:
 * at most one; a request with none never reaches a handler on this build), in one pass over the headers
 * the size needs anyway.
 */
const node20HeadProblem = (req: UwsApi.HttpRequest): HeadProblem | undefined => {
  let bytes = requestLineBytes(req);
  let hosts = 0;
  req.forEach((name, value) => {
    bytes += headerLineBytes(name, value);
    if (name === 'host') hosts += 1;
  });
  if (bytes > MAX_REQUEST_HEAD_BYTES) return 'too-large';
  return hosts > 1 ? 'several-hosts' : undefined;
};

/** "GET /path?query HTTP/1.1\r\n" and the blank line that ends the head, as the official build counts them. */
export const requestLineBytes = (req: UwsApi.HttpRequest): number => {
  const query = requestQuery(req);
  return req.getMethod().length + 1 + req.getUrl().length + (query === '' ? 0 : query.length + 1) + 11 + 2;
};

/** "name: value\r\n", as the official build counts a header line into its bound. */
export const headerLineBytes = (name: string, value: string): number => name.length + value.length + 4;

// ---------------------------------------------------------------------------------------------------------
// Framing: what this build would read wrongly from a request's head (its size, its Host headers, its body's
// length), refused before any route runs (the route's InstalledRoute, src/transport/http/installed-route.ts)

/** The answer to a request head over the limit, on HTTP routes and on the /ws upgrade alike. */
const HEAD_TOO_LARGE = problemReply(
  'request-header-fields-too-large',
  `the request line and headers take more than ${MAX_REQUEST_HEAD_BYTES} bytes`,
);

/**
 * The answer to a head that is over the limit or has more than one Host (RFC 9112 3.2), the same on both
 * builds and on HTTP routes and the /ws upgrade alike; the official build gives it before any handler runs.
 */
export const HEAD_REFUSALS: Readonly<Record<HeadProblem, HttpReply>> = {
  'too-large': HEAD_TOO_LARGE,
  'several-hosts': problemReply('bad-request', 'the request has more than one Host header'),
};

/**
 * Requests whose length is ambiguous are refused, and their connection closed, before any route runs.
 *
 * The pinned uWebSockets.js build takes the first of several Content-Length headers and treats any
 * Transfer-Encoding as chunked; a front end that reads the other length would then see the rest of the
 * body as the next request on the connection (request smuggling: a `GET /metrics` hidden in a body was
 * answered). So a request with two different Content-Length values, a Transfer-Encoding other than
 * `chunked`, or both framings at once gets 400 (501 for an unknown coding) and its connection is closed:
 * nothing after it on that connection is read as a request.
 *
 * Where the head is checked here too (the Node.js 20 build), one pass over the headers serves both checks;
 * elsewhere the common request carries neither header, and costs two header look-ups.
 */
export const framingRefusal = (req: UwsApi.HttpRequest): HttpReply | undefined => {
  if (headCheckedHere) {
    scanHead(req, requestLineBytes(req));
    // The same 431 and 400 on both builds: the official one answers them before any handler runs.
    if (scan.bytes > MAX_REQUEST_HEAD_BYTES) return HEAD_REFUSALS['too-large'];
    if (scan.hosts > 1) return HEAD_REFUSALS['several-hosts'];
    if (scan.contentLength === '' && scan.transferEncoding === '') return undefined;
  } else {
    // As the scan below reads them: the first of each, '' when absent.
    const contentLength = req.getHeader('content-length');
    const transferEncoding = req.getHeader('transfer-encoding');
    if (contentLength === '' && transferEncoding === '') return undefined;
    scanHead(req, 0);
  }
  return framingProblem(scan);
};

/** What one pass over a request's headers found; reset by each pass (one request at a time). */
const scan = {
  bytes: 0,
  hosts: 0,
  /** The first Content-Length value, '' when there is none (as `getHeader` gives it). */
  contentLength: '',
  contentLengths: 0,
  /** The first Content-Length value trimmed, which every other must equal. */
  firstLengthTrimmed: '',
  lengthsDiffer: false,
  /** The first Transfer-Encoding value, '' when there is none. */
  transferEncoding: '',
  codings: 0,
};
// One function for every request: forEach gets no closure made per request.
const visitHeader = (name: string, value: string): void => {
  scan.bytes += headerLineBytes(name, value);
  if (name === 'host') {
    scan.hosts += 1;
  } else if (name === 'content-length') {
    const trimmed = value.trim();
    if (scan.contentLengths === 0) {
      scan.contentLength = value;
      scan.firstLengthTrimmed = trimmed;
    } else if (trimmed !== scan.firstLengthTrimmed) {
      scan.lengthsDiffer = true;
    }
    scan.contentLengths += 1;
  } else if (name === 'transfer-encoding') {
    if (scan.codings === 0) scan.transferEncoding = value;
    scan.codings += 1;
  }
};

const scanHead = (req: UwsApi.HttpRequest, requestLine: number): void => {
  scan.bytes = requestLine;
  scan.hosts = 0;
  scan.contentLength = '';
  scan.contentLengths = 0;
  scan.firstLengthTrimmed = '';
  scan.lengthsDiffer = false;
  scan.transferEncoding = '';
  scan.codings = 0;
  req.forEach(visitHeader);
};

const framingProblem = ({
  contentLength,
  lengthsDiffer,
  transferEncoding,
  codings,
}: typeof scan): HttpReply | undefined => {
  if (lengthsDiffer) {
    return problemReply('bad-request', 'the request has Content-Length headers with different values');
  }
  if (transferEncoding === '') return undefined;
  if (contentLength !== '') {
    return problemReply('bad-request', 'the request has both Content-Length and Transfer-Encoding');
  }
  if (codings > 1 || transferEncoding.trim().toLowerCase() !== 'chunked') {
    return problemReply(
      'not-implemented',
      `transfer coding ${JSON.stringify(transferEncoding.slice(0, 64))} is not supported; send chunked or a Content-Length`,
    );
  }
  return undefined;
};

const require = createRequire(import.meta.url);

/** A package's own package.json, read beside its entry point: the official line's exports map hides it. */
const packageJsonBeside = (entry: string, levelsUp: number) => () => {
  let dir = dirname(require.resolve(entry));
  for (let level = 0; level < levelsUp; level += 1) dir = dirname(dir);
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
};

const installedCandidates = (facts: RuntimeFacts): [UwsCandidate, UwsCandidate] => [
  {
    line: 'official',
    load: (): unknown => require(OFFICIAL_MODULE),
    packageJson: packageJsonBeside(OFFICIAL_MODULE, 0),
  },
  {
    line: 'node20',
    // The binary itself, not the package's entry point, which would fall back to its JavaScript shim.
    load: (): unknown =>
      require(`${NODE20_MODULE}/binaries/uws_${facts.platform}_${facts.arch}_${facts.abi}.node`),
    packageJson: () => require(`${NODE20_MODULE}/package.json`) as { name?: string; version?: string },
  },
];

const facts = runtimeFacts();
process.env['UWS_HTTP_MAX_HEADERS_SIZE'] = String(MAX_REQUEST_HEAD_BYTES);
const choice = chooseUwsBuild(...installedCandidates(facts), facts);

/**
 * What is wrong with a request's head where the build does not check it itself (the Node.js 20 build): over
 * MAX_REQUEST_HEAD_BYTES, or more than one Host. Always undefined on the official line, which answers
 * those requests (431, 400) before any handler runs.
 */
export const headProblem: (req: UwsApi.HttpRequest) => HeadProblem | undefined =
  choice.ok && choice.build.line === 'node20' ? node20HeadProblem : () => undefined;

/**
 * Whether the service checks request heads itself (`headProblem`): on the Node.js 20 build. The framing
 * check makes that pass over the headers its own, so a request with a body costs one pass, not two.
 */
export const headCheckedHere = choice.ok && choice.build.line === 'node20';

/**
 * The request's method as the client sent it (method names are case-sensitive: `get` is not GET). The
 * official line gives it as is; the Node.js 20 build lowercases it in both getters, and its parser closes
 * every request whose method is not a known upper-case one, so there the upper-cased name is what was sent.
 */
export const methodAsSent: (req: UwsApi.HttpRequest) => string = headCheckedHere
  ? (req) => req.getMethod().toUpperCase()
  : (req) => req.getCaseSensitiveMethod();

/** The chosen build, or why none could be: server.ts refuses to start with it before anything listens. */
export const uwsChoice: UwsChoice = choice;

/**
 * The chosen module. Only the transport uses it, and only after server.ts has checked `uwsChoice`; were
 * it used without a build, it throws the refusal instead of failing somewhere inside a handler.
 */
export const uWS: UwsModule = choice.ok
  ? choice.module
  : (new Proxy(
      {},
      {
        get: () => {
          throw new Error(choice.refusal);
        },
      },
    ) as UwsModule);
