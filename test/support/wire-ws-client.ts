import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

/** One WebSocket frame as it crossed the wire: fragments are not joined. */
export interface WireFrame {
  readonly fin: boolean;
  /** 0 continuation, 1 text, 2 binary, 8 close, 9 ping, 10 pong. */
  readonly opcode: number;
  readonly payload: Buffer;
}

/**
 * A WebSocket client over a plain TCP socket that records the server's frames one by one, so a test can
 * see how a message was cut (a library client hands over whole messages). Every wait is bounded.
 */
export class WireWsClient {
  readonly frames: WireFrame[] = [];
  private pending = Buffer.alloc(0);
  private upgraded = false;
  /** Why the connection can no longer be read (a refused handshake): every wait rejects with it. */
  private failure: Error | undefined;
  private readonly waiters = new Set<() => void>();

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.pending = Buffer.concat([this.pending, chunk]);
      this.parse();
      for (const wake of this.waiters) wake();
    });
  }

  /** Opens `ws://127.0.0.1:<port>/<path>` and completes the handshake within `timeoutMs`. */
  static connect(url: string, timeoutMs = 5_000): Promise<WireWsClient> {
    const { hostname, port, pathname } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), hostname);
      const client = new WireWsClient(socket);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`${url}: no 101 within ${String(timeoutMs)} ms`));
      }, timeoutMs);
      socket.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      socket.once('connect', () => {
        socket.write(
          `GET ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
            `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
        );
      });
      client
        .until(() => client.upgraded, 'the 101 answer', timeoutMs)
        .then(() => {
          clearTimeout(timer);
          resolve(client);
        }, reject);
    });
  }

  /** Sends `payload` as one masked binary frame, as a browser would. */
  sendBinary(payload: Buffer): void {
    this.socket.write(clientFrame(0x2, payload));
  }

  /** Writes bytes as they are (frames built with clientFrame); false when the socket buffers them. */
  write(bytes: Buffer): boolean {
    return !this.socket.destroyed && this.socket.write(bytes);
  }

  /** Reads nothing more: what the server sends stays in its buffers, as with a client that stalls. */
  stopReading(): void {
    this.socket.pause();
  }

  /** Resolves once `predicate` holds for the frames so far; rejects after `timeoutMs`. */
  until(
    predicate: (frames: readonly WireFrame[]) => boolean,
    what: string,
    timeoutMs = 5_000,
  ): Promise<void> {
    if (predicate(this.frames)) return Promise.resolve();
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.failure === undefined && !predicate(this.frames)) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        if (this.failure === undefined) resolve();
        else reject(this.failure);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`timed out after ${String(timeoutMs)} ms waiting for ${what}`));
      }, timeoutMs);
      this.waiters.add(check);
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private parse(): void {
    if (!this.upgraded) {
      const end = this.pending.indexOf('\r\n\r\n');
      if (end === -1) return;
      const status = this.pending.subarray(0, this.pending.indexOf('\r\n')).toString('latin1');
      if (!/^HTTP\/1\.1 101 /.test(status)) {
        // Thrown here, in the socket's data handler, it would end the test process instead of the test.
        this.failure = new Error(`handshake refused: ${status}`);
        this.socket.destroy();
        return;
      }
      this.upgraded = true;
      this.pending = this.pending.subarray(end + 4);
    }
    for (;;) {
      const frame = readFrame(this.pending);
      if (frame === undefined) return;
      this.frames.push(frame.frame);
      this.pending = this.pending.subarray(frame.size);
    }
  }
}

/**
 * One client frame, masked as RFC 6455 requires of a client: `opcode` 2 binary, 0 continuation, 9 ping;
 * FIN set unless `fin` is false (a message's fragment that is not its last).
 */
export const clientFrame = (opcode: number, payload: Buffer, fin = true): Buffer => {
  const mask = randomBytes(4);
  const length = payload.byteLength;
  const first = (fin ? 0x80 : 0) | opcode;
  const head =
    length < 126
      ? Buffer.from([first, 0x80 | length])
      : length < 65_536
        ? Buffer.from([first, 0x80 | 126, length >> 8, length & 0xff])
        : Buffer.concat([Buffer.from([first, 0x80 | 127]), bigEndian64(length)]);
  const masked = Buffer.from(payload);
  for (let index = 0; index < masked.byteLength; index += 1) masked[index]! ^= mask[index % 4]!;
  return Buffer.concat([head, mask, masked]);
};

const bigEndian64 = (value: number): Buffer => {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(BigInt(value));
  return bytes;
};

/** A server frame (unmasked) at the start of `bytes`, or undefined until it is whole. */
const readFrame = (bytes: Buffer): { frame: WireFrame; size: number } | undefined => {
  if (bytes.byteLength < 2) return undefined;
  const [first, second] = [bytes[0]!, bytes[1]!];
  let length = second & 0x7f;
  let offset = 2;
  if (length === 126) {
    if (bytes.byteLength < 4) return undefined;
    length = bytes.readUInt16BE(2);
    offset = 4;
  } else if (length === 127) {
    if (bytes.byteLength < 10) return undefined;
    length = Number(bytes.readBigUInt64BE(2));
    offset = 10;
  }
  if (bytes.byteLength < offset + length) return undefined;
  return {
    frame: {
      fin: (first & 0x80) !== 0,
      opcode: first & 0x0f,
      payload: Buffer.from(bytes.subarray(offset, offset + length)),
    },
    size: offset + length,
  };
};
