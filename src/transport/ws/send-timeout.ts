import type { WebSocket } from 'uWebSockets.js';

/** What the send time-out keeps per socket. */
export interface PingedSocket {
  open: boolean;
  /** When the ping still unanswered was sent (performance.now()); undefined when none is. */
  pingedAt: number | undefined;
}

/**
 * The send time-out: a client that reads nothing is closed, whatever it sends. Frames a client sends
 * prove only that it writes (uWS's idle time-out counts them); a pong proves that it read everything
 * written before its ping. So every socket is pinged once a check (a quarter of the time-out) while
 * its last ping has been answered, and one whose ping stays unanswered for `timeoutMs` is closed: at most
 * `timeoutMs` plus two checks after it stopped reading. The timer runs only while sockets are open.
 */
export class SendTimeout<Socket extends PingedSocket> {
  readonly #sockets = new Set<WebSocket<Socket>>();
  #timer: ReturnType<typeof setInterval> | undefined;
  readonly #checkMs: number;

  constructor(
    private readonly timeoutMs: number,
    private readonly onTimedOut: (ws: WebSocket<Socket>) => void,
  ) {
    this.#checkMs = Math.max(250, Math.floor(timeoutMs / 4));
  }

  opened(ws: WebSocket<Socket>): void {
    if (this.timeoutMs <= 0) return;
    this.#sockets.add(ws);
    if (this.#timer === undefined) {
      this.#timer = setInterval(this.#check, this.#checkMs);
      this.#timer.unref();
    }
  }

  closed(ws: WebSocket<Socket>): void {
    this.#sockets.delete(ws);
    if (this.#sockets.size === 0 && this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  /** A pong: the client read what was written before the ping. */
  answered(socket: Socket): void {
    socket.pingedAt = undefined;
  }

  readonly #check = (): void => {
    const now = performance.now();
    for (const ws of [...this.#sockets]) {
      const socket = ws.getUserData();
      if (!socket.open) continue;
      if (socket.pingedAt === undefined) {
        socket.pingedAt = now;
        ws.ping();
      } else if (now - socket.pingedAt >= this.timeoutMs) {
        this.#sockets.delete(ws);
        this.onTimedOut(ws);
      }
    }
  };
}
