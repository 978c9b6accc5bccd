import type { RosPort } from '../../ros/ros-port.js';
import { jsonReply, problemReply } from '../http/reply.js';
import type { Route } from '../http/route.js';

/** Orchestration probes: /health answers while the process runs, /ready only once the backend is connected. */
export const createHealthRoutes = (port: RosPort): Route[] => [
  {
    method: 'GET',
    pattern: '/health',
    handle: () => jsonReply(200, { status: 'ok' }, { 'cache-control': 'no-store' }),
  },
  {
    method: 'GET',
    pattern: '/ready',
    handle: () => {
      const readiness = port.readiness();
      const state = { ready: readiness.ready, backend: port.backend, detail: readiness.detail };
      return readiness.ready
        ? jsonReply(200, state, { 'cache-control': 'no-store' })
        : problemReply('not-ready', readiness.detail, {
            extensions: state,
            headers: { 'cache-control': 'no-store', 'retry-after': '1' },
          });
    },
  },
];
