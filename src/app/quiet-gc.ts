import { performance } from 'node:perf_hooks';
import type { Logger } from '../log/logger.js';

/**
 * One memory-reducing garbage collection once `/play_audio` and the sessions' ends have been quiet for a
 * while after traffic, and once after start-up. A burst, or the sessions that held utterances closing,
 * leaves megabytes of audio buffers that are garbage, and a young generation grown to carry it; start-up
 * leaves what loading the code and the ROS node made (8 MiB on Node.js 24 on a real graph, 0–4 on 20). An
 * idle bridge allocates almost nothing, so V8 would run no collection to return them and the RSS would
 * stay up (docs/operations.md, "Memory after a burst"). Only when the process can collect: `globalThis.gc`
 * exists when Node.js runs with `--expose-gc`, as docker/node-runtime.sh runs it (the image, `npm start`);
 * otherwise this does nothing.
 *
 * No work while idle: no periodic timer, one unref'd timeout armed by traffic, refreshed by each message
 * after it, and gone once it has fired.
 */

/**
 * After a burst, how long /play_audio stays quiet before the collection. The chunks of one spoken reply
 * follow each other well within a second, so 10 s of silence means the reply is over, and a collection
 * that still lands before the next one holds the loop once, for tens of milliseconds (125–150 on Node.js
 * 24 on the simulated robot; its time is logged). Well within the minute after which the RSS is to be back
 * near idle.
 */
export const QUIET_GC_AFTER_MS = 10_000;

/** The timeout the collector arms, as Node.js's `setTimeout` returns it. */
export interface QuietTimer {
  refresh(): unknown;
  unref(): unknown;
}

export interface QuietGcOptions {
  /**
   * The collection; by default `globalThis.gc` with MEMORY_REDUCING_GC, undefined without `--expose-gc`
   * (then nothing runs).
   */
  readonly gc?: (() => void) | undefined;
  readonly log: Pick<Logger, 'debug'>;
  readonly quietMs?: number;
  /** Arms the timeout (default `setTimeout`); tests give a virtual clock's. */
  readonly setTimer?: (task: () => void, ms: number) => QuietTimer;
  readonly clearTimer?: (timer: QuietTimer) => void;
  /** For the collection's duration (default `performance.now`). */
  readonly now?: () => number;
}

export interface QuietGc {
  /**
   * A /play_audio message passed, a session ended, or start-up finished: (re)starts the quiet period. At
   * most a timer refresh.
   */
  readonly traffic: () => void;
  /** Drops a pending collection. */
  readonly close: () => void;
}

/**
 * The options V8's `gc()` takes for its most thorough collection, the one it runs before giving up on
 * memory: full GCs until nothing more is freed, the young generation shrunk, and the pages V8 pools for
 * reuse returned to the system. On Node.js 24 a plain `gc()` left those pages resident, about 8 MiB of the
 * RSS after a burst on the simulated robot (docs/performance.md, "Memory on a real graph").
 */
export const MEMORY_REDUCING_GC = { type: 'major', execution: 'sync', flavor: 'last-resort' } as const;

const exposedGc = (): (() => void) | undefined => {
  const gc: unknown = (globalThis as { gc?: unknown }).gc;
  if (typeof gc !== 'function') return undefined;
  return () => {
    (gc as (options: typeof MEMORY_REDUCING_GC) => void)(MEMORY_REDUCING_GC);
  };
};

export const createQuietGc = ({
  gc = exposedGc(),
  log,
  quietMs = QUIET_GC_AFTER_MS,
  setTimer = (task, ms) => setTimeout(task, ms),
  clearTimer = (timer) => {
    clearTimeout(timer as ReturnType<typeof setTimeout>);
  },
  now = () => performance.now(),
}: QuietGcOptions): QuietGc => {
  if (gc === undefined) return { traffic: () => undefined, close: () => undefined };
  let timer: QuietTimer | undefined;
  const collect = (): void => {
    timer = undefined;
    const started = now();
    gc();
    log.debug(
      { gcMs: Number((now() - started).toFixed(2)), quietMs },
      'full GC once the bridge went quiet (after start-up, /play_audio or session ends)',
    );
  };
  return {
    traffic: () => {
      if (timer === undefined) {
        timer = setTimer(collect, quietMs);
        // A pending collection keeps no process alive.
        timer.unref();
      } else {
        timer.refresh();
      }
    },
    close: () => {
      if (timer !== undefined) clearTimer(timer);
      timer = undefined;
    },
  };
};
