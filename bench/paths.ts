/**
 * `npm run paths`: for one event of each path, the files under `src/` whose code ran, read from V8's
 * precise coverage in the service itself (the simulated robot, started from the sources with the
 * inspector on loopback). Each path is warmed up first; then the counts are reset, one event is sent, and
 * the functions that ran for it are taken. The robot's stand-ins (`src/robot/`) are left out, and so, for
 * `/play_audio`, is what the HTTP request that makes the simulated robot publish runs on its own.
 *
 *   npm run paths                        prints each path's files
 *   npm run paths -- --functions         also names, under each file, the functions that ran
 *   npm run paths -- --check FILE        fails when FILE's block between the `paths:begin`/`paths:end`
 *                                        markers is not what the run printed
 */
import { readFileSync } from 'node:fs';
import { relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { connectCdp, inspectorUrl, type CdpSession } from './lib/cdp.js';
import { bridgeCommand, freePort, ROOT, startServer, type ServerProcess } from './lib/processes.js';

const WARM_UPS = 5;
const EVENT_TIMEOUT_MS = 10_000;
/** After the event's last frame: time for what the server does after it has answered (logs, counters). */
const SETTLE_MS = 50;
/** Single-event windows measured per path; a file counts when it ran in each. */
const WINDOWS = 3;
const KIOSKS = 3;

interface FunctionCoverage {
  readonly functionName: string;
  readonly ranges: readonly { readonly startOffset: number; readonly count: number }[];
}
interface ScriptCoverage {
  readonly scriptId: string;
  readonly url: string;
  readonly functions: readonly FunctionCoverage[];
}

const SRC = `${ROOT}src${sep}`;
const ROBOT = `${ROOT}src${sep}robot${sep}`;

/** What ran, by file: each function's first line, when asked for (`--functions`). */
type FilesRun = Map<string, Set<string>>;

/** The sources of the scripts, for naming the functions that ran (the Debugger domain is enabled). */
const sources = new Map<string, string>();

const firstLineOf = async (cdp: CdpSession, scriptId: string, offset: number): Promise<string> => {
  let source = sources.get(scriptId);
  if (source === undefined) {
    ({ scriptSource: source } = await cdp.call<{ scriptSource: string }>('Debugger.getScriptSource', {
      scriptId,
    }));
    sources.set(scriptId, source);
  }
  return (source.slice(offset).split('\n', 1)[0] ?? '').trim().slice(0, 100);
};

/**
 * The bridge's own files (not the robot's stand-ins) with a function that ran since the last take; with
 * `withFunctions`, each function's first line.
 */
const takeFilesRun = async (cdp: CdpSession, withFunctions = false): Promise<FilesRun> => {
  const { result } = await cdp.call<{ result: ScriptCoverage[] }>('Profiler.takePreciseCoverage');
  const files: FilesRun = new Map();
  for (const script of result) {
    if (!script.url.startsWith('file:')) continue;
    const path = fileURLToPath(script.url);
    if (!path.startsWith(SRC) || path.startsWith(ROBOT)) continue;
    const ran = script.functions.filter((fn) => (fn.ranges[0]?.count ?? 0) > 0);
    if (ran.length === 0) continue;
    const functions = new Set<string>();
    if (withFunctions) {
      for (const fn of ran)
        functions.add(await firstLineOf(cdp, script.scriptId, fn.ranges[0]?.startOffset ?? 0));
    }
    files.set(relative(ROOT, path).split(sep).join('/'), functions);
  }
  return files;
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A kiosk: a WebSocket with the frames it got, and a bounded wait for the one a test looks for. */
class Kiosk {
  readonly frames: { text?: Record<string, unknown>; binary?: Buffer }[] = [];
  #wake: (() => void) | undefined;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      this.frames.push(
        isBinary ? { binary: data } : { text: JSON.parse(data.toString('utf8')) as Record<string, unknown> },
      );
      this.#wake?.();
    });
  }

  static async open(url: string): Promise<Kiosk> {
    const kiosk = new Kiosk(new WebSocket(url));
    await kiosk.until((frame) => frame.text?.['type'] === 'state');
    return kiosk;
  }

  /** Resolves once a frame from now on matches; the frames before it are dropped. */
  async until(match: (frame: Kiosk['frames'][number]) => boolean): Promise<void> {
    const deadline = Date.now() + EVENT_TIMEOUT_MS;
    for (;;) {
      const index = this.frames.findIndex(match);
      if (index >= 0) {
        this.frames.splice(0, index + 1);
        return;
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('paths: no awaited frame within 10 s');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  close(): void {
    this.socket.close();
  }
}

const turnEnded = (frame: Kiosk['frames'][number]) =>
  frame.text?.['type'] === 'turn_end' && frame.text['outcome'] === 'answered';

/** One path: what it needs set up, and one event of it, resolved once its answer has arrived. */
interface PathRun {
  readonly name: string;
  setUp(service: ServerProcess): Promise<PathEvent>;
}

interface PathEvent {
  /** What a client does before the event, outside the measured window (a GET for the tour's ETag). */
  readonly prepare?: () => Promise<void>;
  readonly event: () => Promise<void>;
  readonly close: () => void;
}

/** 100 ms of 16 kHz 16-bit PCM: one part as the reference kiosk sends it. */
const PART_PCM = Buffer.alloc(3_200, 1);

const playAudioBody = JSON.stringify({
  emotion: 'happy',
  text: 'Please follow me.',
  audio: Buffer.alloc(16_000, 7).toString('base64'),
});

const postPlayAudio = async (service: ServerProcess): Promise<void> => {
  const response = await fetch(`${service.baseUrl}/sim/play_audio`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: playAudioBody,
  });
  await response.arrayBuffer();
  if (response.status >= 300) throw new Error(`POST /sim/play_audio: ${response.status}`);
};

const tourBody = (description: string) =>
  JSON.stringify({
    tour_name: 'paths',
    map_name: 'floor-1',
    steps: [{ description, destination: 'hall', dialogue: 'Welcome.' }],
  });

const PATHS: readonly PathRun[] = [
  {
    name: '/play_audio → every kiosk',
    setUp: async (service) => {
      const kiosks = await Promise.all(Array.from({ length: KIOSKS }, () => Kiosk.open(service.wsUrl)));
      return {
        event: async () => {
          await postPlayAudio(service);
          await Promise.all(kiosks.map((kiosk) => kiosk.until((frame) => frame.binary !== undefined)));
        },
        close: () => {
          for (const kiosk of kiosks) kiosk.close();
        },
      };
    },
  },
  {
    name: 'whole-frame utterance → /chat → the answer',
    setUp: async (service) => {
      const kiosk = await Kiosk.open(service.wsUrl);
      return {
        event: async () => {
          kiosk.socket.send(PART_PCM);
          await kiosk.until(turnEnded);
        },
        close: () => {
          kiosk.close();
        },
      };
    },
  },
  {
    name: 'PUT /tour/{name} with If-Match → /tour_get + /tour_update → the answer',
    setUp: async (service) => {
      const url = `${service.baseUrl}/tour/paths`;
      const created = await fetch(`${service.baseUrl}/tour`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: tourBody('start'),
      });
      await created.arrayBuffer();
      let etag = '';
      let version = 0;
      return {
        // The current ETag, as an operator's page holds it from its last GET.
        prepare: async () => {
          const current = await fetch(url);
          await current.arrayBuffer();
          etag = current.headers.get('etag') ?? '';
          if (etag === '') throw new Error('GET /tour/paths: no ETag');
        },
        event: async () => {
          version += 1;
          const response = await fetch(url, {
            method: 'PUT',
            headers: { 'content-type': 'application/json', 'if-match': etag },
            body: tourBody(`step ${version}`),
          });
          await response.arrayBuffer();
          if (response.status !== 200) throw new Error(`PUT /tour/paths: ${response.status}`);
        },
        close: () => undefined,
      };
    },
  },
  {
    name: 'streamed utterance (start, parts, end) → the robot → the answer',
    setUp: async (service) => {
      const kiosk = await Kiosk.open(service.wsUrl);
      let turn = 0;
      return {
        event: async () => {
          turn += 1;
          kiosk.socket.send(JSON.stringify({ service: 'utterance_start' }));
          for (let part = 0; part < 2; part += 1) {
            const header = Buffer.alloc(8);
            header.writeUInt32BE(turn, 0);
            header.writeUInt32BE(part, 4);
            kiosk.socket.send(Buffer.concat([header, PART_PCM]));
          }
          kiosk.socket.send(JSON.stringify({ service: 'utterance_end', turn, parts: 2 }));
          await kiosk.until(turnEnded);
        },
        close: () => {
          kiosk.close();
        },
      };
    },
  },
];

/** Files one event ran, after a warm-up; `cdp`'s counts are reset first. */
const filesOfOneEvent = async (
  cdp: CdpSession,
  { prepare, event }: Pick<PathEvent, 'prepare' | 'event'>,
  withFunctions = false,
): Promise<FilesRun> => {
  for (let i = 0; i < WARM_UPS; i += 1) {
    await prepare?.();
    await event();
  }
  // The files every one of a few single-event windows ran: what a timer or a GC callback of the process
  // happens to run inside one window (the process metrics' sampler, on some runtimes) is not the path.
  let files: FilesRun | undefined;
  for (let window = 0; window < WINDOWS; window += 1) {
    await prepare?.();
    await sleep(SETTLE_MS);
    await takeFilesRun(cdp);
    await event();
    await sleep(SETTLE_MS);
    const ran = await takeFilesRun(cdp, withFunctions);
    files = files === undefined ? ran : new Map([...files].filter(([file]) => ran.has(file)));
  }
  return files ?? new Map();
};

const measure = async (withFunctions: boolean): Promise<string> => {
  const port = await freePort();
  const inspectPort = await freePort();
  const service = await startServer({
    kind: 'bridge',
    command: bridgeCommand(port, {
      fromSource: true,
      maxSessions: 1_000,
      nodeFlags: [`--inspect=127.0.0.1:${inspectPort}`],
    }),
    port,
    readyPath: '/health',
  });
  const cdp = await connectCdp(await inspectorUrl(inspectPort));
  const lines: string[] = [];
  try {
    await cdp.call('Profiler.enable');
    if (withFunctions) await cdp.call('Debugger.enable');
    await cdp.call('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    for (const path of PATHS) {
      const run = await path.setUp(service);
      let files = await filesOfOneEvent(cdp, run, withFunctions);
      run.close();
      if (path.name.startsWith('/play_audio')) {
        // What the trigger runs with no kiosk to send to: the HTTP request and the simulated publish.
        const trigger = await filesOfOneEvent(cdp, { event: () => postPlayAudio(service) });
        files = new Map([...files].filter(([file]) => !trigger.has(file)));
      }
      await sleep(SETTLE_MS);
      lines.push(`${path.name}: ${files.size} files`);
      for (const [file, functions] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
        lines.push(`  ${file}`);
        for (const line of functions) lines.push(`      ${line}`);
      }
    }
  } finally {
    cdp.close();
    await service.stop();
  }
  return lines.join('\n');
};

const BEGIN = '<!-- paths:begin -->';
const END = '<!-- paths:end -->';

/** The block of `file` between the markers, without the code fence around it. */
const documentedPaths = (file: string): string => {
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${file}: no ${BEGIN} … ${END} block`);
  return text
    .slice(start + BEGIN.length, end)
    .replace(/^\s*```text\n/, '')
    .replace(/\n```\s*$/, '');
};

const main = async (): Promise<void> => {
  const checkAt = process.argv.indexOf('--check');
  const output = await measure(process.argv.includes('--functions'));
  console.log(output);
  if (checkAt < 0) return;
  const file = process.argv[checkAt + 1];
  if (file === undefined) throw new Error('--check needs a file');
  if (documentedPaths(file) !== output) {
    console.error(`paths: ${file} shows other paths than the run above; paste the run between the markers`);
    process.exitCode = 1;
  }
};

await main();
