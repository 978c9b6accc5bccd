import type { BridgeMetrics } from '../../metrics/bridge-metrics.js';
import type { RosPort } from '../../ros/port/ros-port.js';
import { jsonReply, problemReply } from '../http/reply.js';
import type { AnyRoute } from '../http/route.js';
import type { UwsBuild } from '../uws-build.js';
import { UPGRADE_REQUIRED } from '../ws/handshake.js';

const NO_STORE = { 'cache-control': 'no-store' };

/** The component schema /ready's answer names. */
export const HEALTH_SCHEMAS = {
  Readiness: {
    type: 'object',
    required: ['ready', 'backend', 'detail', 'uws'],
    properties: {
      ready: { type: 'boolean' },
      backend: { enum: ['ros', 'sim'] },
      detail: { type: 'string' },
      uws: {
        type: 'object',
        description:
          'The uWebSockets.js build serving (package@version), its line (official, or node20 where glibc < 2.38) and why it was chosen',
        required: ['build', 'line', 'reason'],
        properties: {
          build: { type: 'string' },
          line: { type: 'string', enum: ['official', 'node20'] },
          reason: { type: 'string' },
        },
      },
    },
  },
};

/**
 * What operations watch: /health answers while the process runs, /ready only once the backend is
 * connected (both open to probes), /metrics the Prometheus text (behind the token like the API).
 */
export const operationsRoutes = (
  port: Pick<RosPort, 'backend' | 'readiness'>,
  metrics: Pick<BridgeMetrics, 'registry'>,
  uwsBuild: UwsBuild,
): AnyRoute[] => {
  const uws = { build: uwsBuild.name, line: uwsBuild.line, reason: uwsBuild.reason };
  return [
    {
      method: 'GET',
      pattern: '/health',
      access: 'public',
      docs: { summary: 'Liveness: the process answers', responses: { 200: 'Alive' } },
      handle: () => jsonReply(200, { status: 'ok' }, NO_STORE),
    },
    {
      method: 'GET',
      pattern: '/ready',
      access: 'public',
      docs: {
        summary: 'Readiness: the ROS backend is connected; says which backend',
        responses: {
          200: { description: 'Ready', schema: 'Readiness' },
          503: 'Not ready (`not-ready`; `detail` says what is awaited), or the service is stopping',
        },
      },
      handle: () => {
        const readiness = port.readiness();
        const state = { ready: readiness.ready, backend: port.backend, detail: readiness.detail, uws };
        return readiness.ready
          ? jsonReply(200, state, NO_STORE)
          : problemReply('not-ready', readiness.detail, {
              extensions: state,
              headers: { ...NO_STORE, 'retry-after': '1' },
            });
      },
    },
    {
      // A browser's WebSocket reports a refused upgrade (401, 403) only as a closed socket, like a network
      // failure. A plain GET of /ws goes through the same access checks, so a kiosk whose socket closed
      // before opening can ask why: 401/403 is its token or origin, 426 means access is fine.
      method: 'GET',
      pattern: '/ws',
      access: 'websocket',
      docs: {
        summary: 'The kiosk WebSocket; a plain GET checks access without connecting',
        description:
          'With a WebSocket upgrade this is the kiosk connection (docs/protocol.md). Without one it answers ' +
          '426 once the token and origin are accepted, and 401 or 403 otherwise, as the upgrade would.',
        responses: {
          426: {
            description: 'Access granted; connect with a WebSocket upgrade (`upgrade-required`)',
            headers: { upgrade: '`websocket`' },
          },
        },
      },
      handle: () => UPGRADE_REQUIRED,
    },
    {
      method: 'GET',
      pattern: '/metrics',
      docs: {
        summary: 'Prometheus metrics (text exposition format)',
        responses: { 200: { description: 'Metrics', contentType: 'text/plain' } },
      },
      handle: async () => {
        const registry = metrics.registry();
        return {
          status: 200,
          headers: { 'content-type': registry.contentType, ...NO_STORE },
          body: await registry.metrics(),
        };
      },
    },
  ];
};
