import { createRequire } from 'node:module';
import {
  constants,
  performance,
  PerformanceObserver,
  type EventLoopUtilization,
  type NodeGCPerformanceDetail,
} from 'node:perf_hooks';
import type { Registry } from 'prom-client';
import { HistogramFamily, ReadFamily, type ScrapedFamily } from './plain-metrics.js';

/**
 * The process's own metrics: prom-client's defaults (CPU, memory, heap, handles, file descriptors,
 * GC, version), every one read at scrape time or counted from GC events, and the event loop's
 * utilisation and lag, also read at scrape time.
 *
 * prom-client's `collectDefaultMetrics` also records an event-loop-delay histogram, whose timer
 * (every 10 ms) woke the idle bridge 100 times a second: 50 ms of CPU per 10 s, 96 % of what an idle
 * bridge spent on the simulated robot. So its collectors are registered one by one, without that one.
 *
 * prom-client is loaded only at the first scrape (./bridge-metrics.ts), so what must count from the
 * start is counted here without it: the CPU and the event loop's utilisation from a baseline taken at
 * start, and GC pauses by our own observer. prom-client's CPU and GC collectors count only from their
 * registration; its CPU collector also loads @opentelemetry/api, about 6 MiB of RSS, for exemplars the
 * bridge does not use. The three CPU counters and the GC histogram keep prom-client's names, help and
 * buckets.
 */

type DefaultCollector = (registry: Registry, config: { readonly prefix: string }) => void;

/** prom-client's collector modules (lib/metrics/<name>.js, as its lib/defaultMetrics.js lists them). */
const SCRAPE_TIME_COLLECTORS = [
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
] as const;

/** prom-client's (lib/metrics/gc.js). */
const GC_DURATION_BUCKETS = [0.001, 0.01, 0.1, 1, 2, 5];
const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

const requireFromHere = createRequire(import.meta.url);

/** CPU seconds since `start`: user, system, and both, read once per scrape by the first family. */
const cpuFamilies = (prefix: string, start: NodeJS.CpuUsage): ScrapedFamily[] => {
  let since = { user: 0, system: 0 };
  const counter = (name: string, help: string, seconds: () => number) =>
    new ReadFamily(`${prefix}${name}`, help, 'counter', () => [{ value: seconds() }]);
  return [
    counter('process_cpu_user_seconds_total', 'Total user CPU time spent in seconds.', () => {
      since = process.cpuUsage(start);
      return since.user / 1e6;
    }),
    counter(
      'process_cpu_system_seconds_total',
      'Total system CPU time spent in seconds.',
      () => since.system / 1e6,
    ),
    counter(
      'process_cpu_seconds_total',
      'Total user and system CPU time spent in seconds.',
      () => (since.user + since.system) / 1e6,
    ),
  ];
};

export interface ProcessMetrics {
  /** Adds every process metric to the registry, in the order of prom-client's defaults. Once per registry. */
  register(registry: Registry): void;
}

/** Starts counting what a later scrape reports (CPU, GC, event-loop utilisation) from now. */
export const startProcessMetrics = (prefix: string): ProcessMetrics => {
  const cpu = cpuFamilies(prefix, process.cpuUsage());

  const gc = new HistogramFamily(
    `${prefix}nodejs_gc_duration_seconds`,
    'Garbage collection duration by kind, one of major, minor, incremental or weakcb.',
    ['kind'],
    GC_DURATION_BUCKETS,
  );
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as { readonly detail?: NodeGCPerformanceDetail }).detail?.kind ?? -1;
      gc.child(GC_KINDS[kind] ?? String(kind)).observe(entry.duration / 1000);
    }
  }).observe({ entryTypes: ['gc'] });

  let sinceLastScrape: EventLoopUtilization = performance.eventLoopUtilization();
  const utilization = new ReadFamily(
    `${prefix}nodejs_eventloop_utilization_ratio`,
    'Share of the time since the previous scrape the event loop spent running code (0 to 1)',
    'gauge',
    () => {
      const now = performance.eventLoopUtilization();
      const value = performance.eventLoopUtilization(now, sinceLastScrape).utilization;
      sinceLastScrape = now;
      return [{ value }];
    },
  );

  let lagSeconds = 0;
  const lag = new ReadFamily(
    `${prefix}nodejs_eventloop_lag_seconds`,
    'How long a callback queued at the previous scrape waited for the event loop',
    'gauge',
    () => {
      // Read now, queued for the next scrape: measuring it would otherwise wait for the loop.
      const value = lagSeconds;
      const queuedAt = performance.now();
      setImmediate(() => {
        lagSeconds = (performance.now() - queuedAt) / 1000;
      });
      return [{ value }];
    },
  );

  return {
    register: (registry) => {
      for (const family of cpu) registry.registerMetric(family as never);
      for (const name of SCRAPE_TIME_COLLECTORS) {
        const collect = requireFromHere(`prom-client/lib/metrics/${name}.js`) as DefaultCollector;
        collect(registry, { prefix });
      }
      for (const family of [gc, utilization, lag]) registry.registerMetric(family as never);
    },
  };
};
