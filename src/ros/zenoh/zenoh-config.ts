import { Json5SyntaxError, parseJson5Value, type Json5Value } from './json5-value.js';

/*
 * What rmw_zenoh_cpp will do about the Zenoh router, read from the same environment variables, so the
 * bridge can wait for the router itself — asynchronously — before ROS initialisation, which waits
 * synchronously (see src/ros/zenoh/router-wait.ts). The rules below follow rmw_zenoh_cpp's
 * src/detail/zenoh_config.cpp and its DEFAULT_RMW_ZENOH_SESSION_CONFIG.json5.
 */

export const ZENOH_MODES = ['peer', 'client', 'router'] as const;
export type ZenohMode = (typeof ZENOH_MODES)[number];

/** rmw_zenoh's session config: peer mode, connecting to the router on this host. */
export const DEFAULT_SESSION_MODE: ZenohMode = 'peer';
export const DEFAULT_ROUTER_ENDPOINT = 'tcp/localhost:7447';

/** Bounds on what the bridge reads; rmw_zenoh reads more, the bridge then only skips its own check. */
export const ZENOH_ENV_LIMITS = { overrideMaxChars: 16 * 1024, maxEndpoints: 32, hostMaxChars: 253 } as const;

export interface OverridePair {
  readonly key: string;
  readonly value: string;
}

/**
 * ZENOH_CONFIG_OVERRIDE split as rmw_zenoh splits it: pairs separated by `;`, each `key=value` split at
 * its first `=` (so values may contain `=` but never `;`). Nothing is trimmed: rmw_zenoh passes the key
 * as written to Zenoh, which rejects `mode ` with a trailing space. A pair without `=`, or with nothing
 * after it, is skipped, as rmw_zenoh skips it. The value ends at a line break (std::getline).
 */
export const splitConfigOverride = (text: string): OverridePair[] =>
  text.split(';').flatMap((pair) => {
    const equals = pair.indexOf('=');
    if (equals === -1) return [];
    const value = pair.slice(equals + 1).split('\n', 1)[0] ?? '';
    return value === '' ? [] : [{ key: pair.slice(0, equals), value }];
  });

/** Zenoh's `connect/endpoints`: one list, or a list per mode. */
type EndpointSetting = readonly string[] | Partial<Record<ZenohMode, readonly string[]>>;

const isStringList = (value: Json5Value): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

const readEndpointSetting = (value: Json5Value): EndpointSetting | string => {
  if (isStringList(value)) return value;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const perMode: Partial<Record<ZenohMode, readonly string[]>> = {};
    for (const [mode, list] of Object.entries(value)) {
      if (!(ZENOH_MODES as readonly string[]).includes(mode)) return `unknown mode "${mode}" in endpoints`;
      if (!isStringList(list)) return `the endpoints for ${mode} are not a list of strings`;
      perMode[mode as ZenohMode] = list;
    }
    return perMode;
  }
  return 'endpoints must be a list of strings or a list per mode';
};

const endpointsFor = (setting: EndpointSetting, mode: ZenohMode): readonly string[] =>
  Array.isArray(setting)
    ? (setting as readonly string[])
    : ((setting as Partial<Record<ZenohMode, readonly string[]>>)[mode] ?? []);

/** Where rmw_zenoh's session will look for its router, as far as the environment tells. */
export type ZenohSessionPlan =
  | {
      readonly kind: 'known';
      readonly mode: ZenohMode;
      readonly endpoints: readonly string[];
      /** Where the endpoints come from, for the log line. */
      readonly source: string;
      /** Override pairs the bridge could not read (rmw_zenoh ignores invalid ones too, with a warning). */
      readonly ignored: readonly string[];
    }
  | { readonly kind: 'unknown'; readonly reason: string };

/**
 * The session's mode and connect endpoints: rmw_zenoh's defaults (or the file named by
 * ZENOH_SESSION_CONFIG_URI, which the bridge does not read), then ZENOH_CONFIG_OVERRIDE pairs in order.
 */
export const zenohSessionPlan = (env: NodeJS.ProcessEnv): ZenohSessionPlan => {
  const override = env['ZENOH_CONFIG_OVERRIDE'] ?? '';
  if (override.length > ZENOH_ENV_LIMITS.overrideMaxChars) {
    return {
      kind: 'unknown',
      reason: `ZENOH_CONFIG_OVERRIDE is longer than ${ZENOH_ENV_LIMITS.overrideMaxChars} characters`,
    };
  }
  const configFile = env['ZENOH_SESSION_CONFIG_URI'] ?? '';
  let mode: ZenohMode | undefined = configFile === '' ? DEFAULT_SESSION_MODE : undefined;
  let endpoints: EndpointSetting | undefined = configFile === '' ? [DEFAULT_ROUTER_ENDPOINT] : undefined;
  let source =
    configFile === '' ? "rmw_zenoh's default session config" : `ZENOH_SESSION_CONFIG_URI (${configFile})`;
  const ignored: string[] = [];

  for (const { key, value } of splitConfigOverride(override)) {
    if (key !== 'mode' && key !== 'connect/endpoints' && key !== 'connect') continue;
    let parsed: Json5Value;
    try {
      parsed = parseJson5Value(value);
    } catch (error) {
      ignored.push(`${key}: ${error instanceof Json5SyntaxError ? error.message : String(error)}`);
      continue;
    }
    if (key === 'mode') {
      if (typeof parsed === 'string' && (ZENOH_MODES as readonly string[]).includes(parsed)) {
        mode = parsed as ZenohMode;
      } else ignored.push(`mode: must be one of ${ZENOH_MODES.join(', ')}`);
      continue;
    }
    // `connect={endpoints: [...]}` replaces the whole section; `connect/endpoints=[...]` only the list.
    const list =
      key === 'connect'
        ? typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
          ? (parsed['endpoints'] ?? [])
          : undefined
        : parsed;
    const setting = list === undefined ? 'connect must be an object' : readEndpointSetting(list);
    if (typeof setting === 'string') ignored.push(`${key}: ${setting}`);
    else {
      endpoints = setting;
      source = 'ZENOH_CONFIG_OVERRIDE';
    }
  }

  if (endpoints === undefined) {
    return {
      kind: 'unknown',
      reason: `the router endpoints are set in ${source}, which tour-bridge does not read`,
    };
  }
  if (mode === undefined) {
    if (!Array.isArray(endpoints)) {
      return {
        kind: 'unknown',
        reason: `the session mode is set in ${source}, which tour-bridge does not read`,
      };
    }
    // The list applies whatever the mode; call it peer, the default, for the log line.
    mode = DEFAULT_SESSION_MODE;
  }
  const chosen = endpointsFor(endpoints, mode);
  if (chosen.length > ZENOH_ENV_LIMITS.maxEndpoints) {
    return { kind: 'unknown', reason: `more than ${ZENOH_ENV_LIMITS.maxEndpoints} connect endpoints` };
  }
  return { kind: 'known', mode, endpoints: chosen, source, ignored };
};

/** What the bridge can open to see whether something listens at an endpoint. */
export type ProbeTarget =
  | { readonly kind: 'tcp'; readonly host: string; readonly port: number }
  | { readonly kind: 'unix'; readonly path: string };

// Zenoh protocols that run over a TCP connection (or a Unix stream socket) the bridge can open.
const TCP_PROTOCOLS = new Set(['tcp', 'tls', 'ws']);

/**
 * A Zenoh locator (`tcp/host:port`, `tls/[::1]:7447`, `unixsock-stream/path`, with optional
 * `?metadata` and `#config` suffixes) as something to probe, or why it cannot be probed.
 */
export const probeTargetOf = (locator: string): ProbeTarget | { readonly unsupported: string } => {
  const slash = locator.indexOf('/');
  if (slash <= 0) return { unsupported: `"${locator}" is not a Zenoh locator (protocol/address)` };
  const protocol = locator.slice(0, slash);
  const address = locator.slice(slash + 1).split(/[?#]/, 1)[0] ?? '';
  if (protocol === 'unixsock-stream') {
    return address === ''
      ? { unsupported: `"${locator}" has no socket path` }
      : { kind: 'unix', path: address };
  }
  if (!TCP_PROTOCOLS.has(protocol)) {
    return { unsupported: `"${locator}": tour-bridge can only probe tcp, tls, ws and unixsock-stream` };
  }
  const match = /^(?:\[(?<v6>[0-9A-Fa-f:.]+)\]|(?<host>[^\s/:[\]]+)):(?<port>\d{1,5})$/.exec(address);
  const host = match?.groups?.['v6'] ?? match?.groups?.['host'];
  const port = Number(match?.groups?.['port']);
  if (host === undefined || host.length > ZENOH_ENV_LIMITS.hostMaxChars || !(port >= 1 && port <= 65535)) {
    return { unsupported: `"${locator}" has no valid host:port` };
  }
  return { kind: 'tcp', host, port };
};

/** How often to look for the router before ROS initialisation, per ZENOH_ROUTER_CHECK_ATTEMPTS. */
export type RouterCheckPolicy =
  | { readonly kind: 'skip' }
  | { readonly kind: 'attempts'; readonly maxAttempts: number; readonly unlimited: boolean };

/**
 * rmw_zenoh's default when the variable is unset or empty: one check (current rmw_zenoh_cpp; older
 * builds wait forever, which is why the image sets the variable explicitly).
 */
export const DEFAULT_ROUTER_CHECK_ATTEMPTS = 1;

/** strtoll(value, nullptr, 10) as rmw_zenoh calls it: leading blanks, a sign, digits; no digits is 0. */
const strtoll = (text: string): { sign: number; digits: string } => {
  const match = /^[ \t\n\v\f\r]*([+-]?)(\d*)/.exec(text);
  return { sign: match?.[1] === '-' ? -1 : 1, digits: (match?.[2] ?? '').replace(/^0+/, '') };
};

export const routerCheckPolicy = (raw: string | undefined): RouterCheckPolicy => {
  if (raw === undefined || raw === '') {
    return { kind: 'attempts', maxAttempts: DEFAULT_ROUTER_CHECK_ATTEMPTS, unlimited: false };
  }
  const { sign, digits } = strtoll(raw);
  // 0, and text without digits (strtoll gives 0): check indefinitely.
  if (digits === '') return { kind: 'attempts', maxAttempts: Number.POSITIVE_INFINITY, unlimited: true };
  if (sign < 0) return { kind: 'skip' };
  // More checks than fit in a double are a wait of billions of years: indefinitely.
  const count = digits.length > 15 ? Number.POSITIVE_INFINITY : Number(digits);
  return { kind: 'attempts', maxAttempts: count, unlimited: !Number.isFinite(count) };
};

/** The policy in words, naming the variable as the operator set it. */
export const describeRouterCheckPolicy = (raw: string | undefined, policy: RouterCheckPolicy): string => {
  const setting =
    raw === undefined || raw === ''
      ? 'ZENOH_ROUTER_CHECK_ATTEMPTS unset'
      : `ZENOH_ROUTER_CHECK_ATTEMPTS=${raw}`;
  if (policy.kind === 'skip') return `${setting}: no router check`;
  if (policy.unlimited) return `${setting}: checking every second until the router answers`;
  return policy.maxAttempts === 1
    ? `${setting}: one check, then ROS initialisation goes ahead`
    : `${setting}: up to ${policy.maxAttempts} checks one second apart, then ROS initialisation goes ahead`;
};
