import { createRequire } from 'node:module';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { Gauge, type Registry } from 'prom-client';

/**
 * The process's own metrics: prom-client's defaults (CPU, memory, heap, handles, file descriptors,
 * GC, version), every one read at scrape time or counted from GC events, and the event loop's
 * utilisation and lag, also read at scrape time.
 *
 * prom-client's `collectDefaultMetrics` also records an event-loop-delay histogram, whose timer
 * (every 10 ms) woke the idle bridge 100 times a second: 50 ms of CPU per 10 s, 96 % of what an idle
 * bridge spent on the simulated robot. So its collectors are registered one by one, without that one.
 */

type DefaultCollector = (registry: Registry, config: { readonly prefix: string }) => void;

/** prom-client's collector modules (lib/metrics/<name>.js, as its lib/defaultMetrics.js lists them). */
const SCRAPE_TIME_COLLECTORS = [
  'processCpuTotal',
  'processStartTime',
  'osMemoryHeap',
  'processOpenFileDescriptors',
  'processMaxFileDescriptors',
  'processResources',
  'processHandles',
  'processRequests',
  'heapSizeAndUsed',
  'heapSpacesSizeAndUsed',
  'version',
  'gc',
] as const;

const requireFromHere = createRequire(import.meta.url);

export const registerProcessMetrics = (registry: Registry, prefix: string): void => {
  for (const name of SCRAPE_TIME_COLLECTORS) {
    const collect = requireFromHere(`prom-client/lib/metrics/${name}.js`) as DefaultCollector;
    collect(registry, { prefix });
  }

  let sinceLastScrape: EventLoopUtilization = performance.eventLoopUtilization();
  new Gauge({
    name: `${prefix}nodejs_eventloop_utilization_ratio`,
    help: 'Share of the time since the previous scrape the event loop spent running code (0 to 1)',
    registers: [registry],
    collect() {
      const now = performance.eventLoopUtilization();
      this.set(performance.eventLoopUtilization(now, sinceLastScrape).utilization);
      sinceLastScrape = now;
    },
  });

  const lag = new Gauge({
    name: `${prefix}nodejs_eventloop_lag_seconds`,
    help: 'How long a callback queued at the previous scrape waited for the event loop',
    registers: [registry],
    collect() {
      // Read now, queued for the next scrape: measuring it would otherwise wait for the loop.
      const queuedAt = performance.now();
      setImmediate(() => {
        lag.set((performance.now() - queuedAt) / 1000);
      });
    },
  });
};
