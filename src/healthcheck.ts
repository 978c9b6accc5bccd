#!/usr/bin/env node
/**
 * The container's health probe (Dockerfile HEALTHCHECK): GET /health on this container's bridge.
 * Exits 0 when it answers 200, 1 otherwise, with one line saying why. Node's own fetch, so the image
 * needs no curl. The port is TOUR_BRIDGE_PORT (default 7000): set the port through that variable
 * rather than --port in a container, or the probe looks in the wrong place.
 */

/** Docker's own --timeout is longer; this bounds the probe itself. */
const PROBE_TIMEOUT_MS = 3_000;

const healthUrl = (env: NodeJS.ProcessEnv): URL | string => {
  const raw = env['TOUR_BRIDGE_PORT'] ?? '7000';
  if (!/^\d{1,5}$/.test(raw) || Number(raw) < 1 || Number(raw) > 65535) {
    return `TOUR_BRIDGE_PORT must be a port from 1 to 65535, got ${JSON.stringify(raw.slice(0, 20))}`;
  }
  return new URL(`http://127.0.0.1:${raw}/health`);
};

const main = async (): Promise<number> => {
  const url = healthUrl(process.env);
  if (typeof url === 'string') {
    process.stderr.write(`healthcheck: ${url}\n`);
    return 1;
  }
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    await response.arrayBuffer();
    if (response.status === 200) return 0;
    process.stderr.write(`healthcheck: ${url.href} answered ${response.status}\n`);
  } catch (error) {
    process.stderr.write(
      `healthcheck: ${url.href}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
  }
  return 1;
};

process.exitCode = await main();
