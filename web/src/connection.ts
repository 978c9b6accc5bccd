import { authorizationHeaders, webSocketProtocols } from './access-token.js';
import { DEFAULT_BACKOFF, reconnectDelayMs, type BackoffOptions } from './backoff.js';
import { readServerMessage, type ReceivedMessage } from '../../src/protocol/ws/index.js';
import type { ConnectionStatus } from './kiosk-view.js';

export type { ConnectionStatus };

export interface ConnectionHandlers {
  /** `retryInMs` is set while offline and a reconnect is scheduled. */
  readonly onStatus: (status: ConnectionStatus, retryInMs?: number) => void;
  readonly onMessage: (message: ReceivedMessage) => void;
  readonly onBinary: (frame: ArrayBuffer) => void;
  /** The socket closed (whatever the reason): anything tied to the old session is void. */
  readonly onSessionEnd: () => void;
}

/**
 * After the service refused this kiosk's access, the next attempt waits this long: no quick retry loop
 * against a wrong token, yet a kiosk whose token an operator fixed on the service gets back by itself.
 */
export const REFUSED_RETRY_MS = 60_000;

/** The access question (a plain GET of /ws) may take this long before the kiosk assumes the network. */
const ACCESS_PROBE_MS = 5_000;

export interface ConnectionOptions {
  readonly backoff?: BackoffOptions;
  /** A handshake that takes longer is abandoned and retried. */
  readonly connectTimeoutMs?: number;
  readonly random?: () => number;
}

/**
 * The kiosk's one WebSocket, kept open: reconnects after any close with capped, jittered exponential
 * backoff. "Online" means the session's initial `state` frame has arrived (the server sends it first), so
 * the kiosk only offers talking once it shows the service's current state; the backoff resets then too,
 * so a server that accepts and immediately drops connections is still retried slowly.
 */
export class KioskConnection {
  private socket: WebSocket | undefined;
  private attempt = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private connectTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly backoff: BackoffOptions;
  private readonly connectTimeoutMs: number;
  private readonly random: () => number;

  constructor(
    private readonly url: string,
    private readonly handlers: ConnectionHandlers,
    options: ConnectionOptions = {},
  ) {
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.random = options.random ?? Math.random;
  }

  start(): void {
    this.connect();
  }

  /** Skips the remaining backoff, e.g. when the browser reports the network is back. */
  retryNow(): void {
    if (this.socket !== undefined) return;
    clearTimeout(this.retryTimer);
    this.connect();
  }

  /** Whether a session's socket is open now (frames can be sent). */
  get open(): boolean {
    return this.socket?.readyState === WebSocket.OPEN;
  }

  /** Sends one frame if the session is open; false when it could not be sent (the caller tells the user). */
  send(data: ArrayBuffer | Uint8Array | string): boolean {
    if (this.socket?.readyState !== WebSocket.OPEN) return false;
    this.socket.send(data);
    return true;
  }

  private connect(): void {
    this.retryTimer = undefined;
    this.handlers.onStatus('connecting');
    const socket = new WebSocket(this.url, webSocketProtocols());
    socket.binaryType = 'arraybuffer';
    this.socket = socket;
    this.connectTimer = setTimeout(() => {
      socket.close();
    }, this.connectTimeoutMs);
    let opened = false;
    socket.addEventListener('open', () => {
      opened = true;
      clearTimeout(this.connectTimer);
    });
    socket.addEventListener('message', (event: MessageEvent<unknown>) => {
      if (event.data instanceof ArrayBuffer) {
        this.handlers.onBinary(event.data);
        return;
      }
      if (typeof event.data !== 'string') return;
      const message = readServerMessage(event.data);
      if (message === undefined) return;
      this.handlers.onMessage(message);
      // After the state is applied, so the page never shows "online" with the previous session's state.
      if (message.type === 'state') {
        this.attempt = 0;
        this.handlers.onStatus('online');
      }
    });
    // `error` is always followed by `close`; reconnecting is decided there only.
    socket.addEventListener('close', () => {
      clearTimeout(this.connectTimer);
      if (this.socket !== socket) return;
      this.socket = undefined;
      this.handlers.onSessionEnd();
      if (opened) {
        this.scheduleRetry(false);
        return;
      }
      // A browser shows a refused upgrade (401, 403) as a close, like a network failure: ask the service.
      void this.accessRefused().then((refused) => {
        // Meanwhile a retryNow() may have started the next attempt.
        if (this.socket === undefined && this.retryTimer === undefined) this.scheduleRetry(refused);
      });
    });
  }

  private scheduleRetry(refused: boolean): void {
    const retryInMs = refused ? REFUSED_RETRY_MS : reconnectDelayMs(this.attempt, this.random, this.backoff);
    this.attempt += 1;
    this.handlers.onStatus(refused ? 'refused' : 'offline', retryInMs);
    this.retryTimer = setTimeout(() => {
      this.connect();
    }, retryInMs);
  }

  /** A plain GET of /ws passes the upgrade's access checks: 401 or 403 means this kiosk is refused. */
  private async accessRefused(): Promise<boolean> {
    try {
      const response = await fetch(this.url.replace(/^ws/, 'http'), {
        headers: authorizationHeaders(),
        cache: 'no-store',
        signal: AbortSignal.timeout(ACCESS_PROBE_MS),
      });
      return response.status === 401 || response.status === 403;
    } catch {
      return false;
    }
  }
}
