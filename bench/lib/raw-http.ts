import { connect, type Socket } from 'node:net';

/**
 * A minimal keep-alive HTTP/1.1 client over one socket, for requests whose timing matters: the request
 * is prepared up front and written in one call, so the time taken just before the write is when it left.
 */
export class RawHttpConnection {
  private buffer = Buffer.alloc(0);
  private waiting: ((response: { status: number; body: Buffer }) => void) | undefined;

  private constructor(private readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.tryParse();
    });
  }

  static open(port: number): Promise<RawHttpConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.off('error', reject);
        resolve(new RawHttpConnection(socket));
      });
      socket.once('error', reject);
    });
  }

  static prepare(method: string, path: string, body: string, contentType = 'application/json'): Buffer {
    const payload = Buffer.from(body, 'utf8');
    const head =
      `${method} ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: ${contentType}\r\n` +
      `content-length: ${payload.byteLength}\r\n\r\n`;
    return Buffer.concat([Buffer.from(head, 'latin1'), payload]);
  }

  private tryParse(): void {
    const end = this.buffer.indexOf('\r\n\r\n');
    if (end === -1 || this.waiting === undefined) return;
    const head = this.buffer.subarray(0, end).toString('latin1');
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? '0');
    if (this.buffer.byteLength < end + 4 + length) return;
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? '0');
    const body = this.buffer.subarray(end + 4, end + 4 + length);
    this.buffer = this.buffer.subarray(end + 4 + length);
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting({ status, body: Buffer.from(body) });
  }

  /** Writes a prepared request and resolves with the response, bounded by `timeoutMs`. */
  send(request: Buffer, timeoutMs = 10_000): Promise<{ status: number; body: Buffer }> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting = undefined;
        reject(new Error(`no HTTP response within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting = (response) => {
        clearTimeout(timer);
        resolve(response);
      };
      this.socket.write(request);
    });
  }

  close(): void {
    this.socket.destroy();
  }
}
