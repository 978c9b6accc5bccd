import { connect, type Socket } from 'node:net';

/**
 * One HTTP/1.1 connection over a raw loopback socket, for what fetch hides: several requests on one
 * connection, requests fetch will not send (HTTP/1.0, many headers), and whether the server closed.
 */

export interface RawResponse {
  readonly status: number;
  /** Lower-case names; a repeated header keeps its last value. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface RawConnection {
  /** Writes bytes as they are (latin1). */
  send(text: string): void;
  /**
   * The next answer, its body read by its content-length (none for `head`), or `closed` when the
   * server closes first; rejects after `timeoutMs`.
   */
  next(options?: { head?: boolean; timeoutMs?: number }): Promise<RawResponse | 'closed'>;
  /** Resolves when the server closes the connection, or with `open` after `timeoutMs`. */
  closedWithin(timeoutMs: number): Promise<'closed' | 'open'>;
  /** Stops reading from the socket: what the server sends stays in the kernel's buffers (a client that never reads). */
  pause(): void;
  /** Reads again (after `pause`). */
  resume(): void;
  /** Bytes the server has sent on this connection so far. */
  received(): number;
  /** Everything the server has sent on this connection so far (latin1), read or not. */
  text(): string;
  destroy(): void;
}

const HEAD_END = '\r\n\r\n';

const parseHead = (head: string): { status: number; headers: Record<string, string> } => {
  const [statusLine = '', ...lines] = head.split('\r\n');
  const match = /^HTTP\/1\.1 (\d{3})/.exec(statusLine);
  if (match === null) throw new Error(`not an HTTP/1.1 status line: ${JSON.stringify(statusLine)}`);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(match[1]), headers };
};

export const openRawConnection = async (port: number): Promise<RawConnection> => {
  const socket: Socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let buffer = '';
  let everything = '';
  let received = 0;
  let closed = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  socket.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('latin1');
    everything += chunk.toString('latin1');
    received += chunk.byteLength;
    notify();
  });
  socket.on('close', () => {
    closed = true;
    notify();
  });
  socket.on('error', () => undefined);

  /** Waits for more data or the close, at most until `deadline`; false when the deadline passed. */
  const waitForData = (deadline: number): Promise<boolean> =>
    new Promise((resolve) => {
      const timer = setTimeout(
        () => {
          wake = undefined;
          resolve(false);
        },
        Math.max(0, deadline - Date.now()),
      );
      wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });

  return {
    send: (text) => {
      socket.write(Buffer.from(text, 'latin1'));
    },
    next: async ({ head = false, timeoutMs = 5_000 } = {}) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const end = buffer.indexOf(HEAD_END);
        if (end >= 0) {
          const parsed = parseHead(buffer.slice(0, end));
          const length = head ? 0 : Number(parsed.headers['content-length'] ?? '0');
          const bodyStart = end + HEAD_END.length;
          if (buffer.length - bodyStart >= length) {
            const body = buffer.slice(bodyStart, bodyStart + length);
            buffer = buffer.slice(bodyStart + length);
            return { ...parsed, body };
          }
        }
        if (closed) return 'closed';
        if (!(await waitForData(deadline))) throw new Error(`no complete answer within ${timeoutMs} ms`);
      }
    },
    closedWithin: async (timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      while (!closed) {
        if (!(await waitForData(deadline))) return 'open';
      }
      return 'closed';
    },
    pause: () => {
      socket.pause();
    },
    resume: () => {
      socket.resume();
    },
    received: () => received,
    text: () => everything,
    destroy: () => {
      socket.destroy();
    },
  };
};
