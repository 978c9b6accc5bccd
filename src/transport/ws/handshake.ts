import { problemReply, type HttpReply } from '../http/reply.js';

/** The WebSocket version this server speaks (RFC 6455); the only one browsers send. */
export const WEBSOCKET_VERSION = '13';

/** What a `/ws` upgrade request's handshake headers say (lower-case names; '' when absent). */
export interface HandshakeHeaders {
  readonly upgrade: string;
  readonly connection: string;
  readonly version: string;
  readonly key: string;
}

const hasToken = (list: string, token: string): boolean =>
  list.split(',').some((item) => item.trim().toLowerCase() === token);

// 16 random bytes in base64 (RFC 6455 4.1): 22 characters, then two `=`.
const KEY = /^[A-Za-z0-9+/]{21}[AQgw]==$/;

/** The answer to a plain GET of `/ws`: access was granted, the client should upgrade. */
export const UPGRADE_REQUIRED: HttpReply = problemReply(
  'upgrade-required',
  'connect to /ws with a WebSocket upgrade',
  { headers: { upgrade: 'websocket', 'cache-control': 'no-store' } },
);

/**
 * Why a request that reached the upgrade handler is no WebSocket handshake this server accepts, or
 * undefined. uWebSockets.js hands any request with a Sec-WebSocket-Key to the handler, with or without
 * `Upgrade: websocket` and whatever its version: those are answered here as RFC 6455 4.2.1 and 4.4 say.
 */
export const handshakeRefusal = (headers: HandshakeHeaders): HttpReply | undefined => {
  if (!hasToken(headers.upgrade, 'websocket') || !hasToken(headers.connection, 'upgrade')) {
    return UPGRADE_REQUIRED;
  }
  if (headers.version !== WEBSOCKET_VERSION) {
    return problemReply(
      'upgrade-required',
      `WebSocket version ${headers.version === '' ? '(none)' : JSON.stringify(headers.version.slice(0, 16))} is not supported; use version ${WEBSOCKET_VERSION}`,
      { headers: { 'sec-websocket-version': WEBSOCKET_VERSION } },
    );
  }
  if (!KEY.test(headers.key)) {
    return problemReply('bad-request', 'Sec-WebSocket-Key must be 16 bytes in base64 (RFC 6455)');
  }
  return undefined;
};
