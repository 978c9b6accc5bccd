import WebSocket from 'ws';

export type ReceivedFrame =
  | { readonly kind: 'text'; readonly json: Record<string, unknown> }
  | { readonly kind: 'binary'; readonly bytes: Buffer };

/**
 * A real WebSocket client (the `ws` package) that records every frame in arrival order, so tests can
 * assert on exact sequences. Every wait is bounded.
 */
export class KioskClient {
  readonly frames: ReceivedFrame[] = [];
  closeEvent: { code: number; reason: string } | undefined;
  private readonly waiters = new Set<() => void>();

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      this.frames.push(
        isBinary
          ? { kind: 'binary', bytes: Buffer.from(data) }
          : { kind: 'text', json: JSON.parse(data.toString('utf8')) as Record<string, unknown> },
      );
      this.wake();
    });
    socket.on('close', (code: number, reason: Buffer) => {
      this.closeEvent = { code, reason: reason.toString('utf8') };
      this.wake();
    });
  }

  static connect(
    url: string,
    options: WebSocket.ClientOptions = {},
    protocols: string[] = [],
  ): Promise<KioskClient> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, protocols, { ...options, handshakeTimeout: 5_000 });
      const client = new KioskClient(socket);
      socket.once('open', () => {
        resolve(client);
      });
      socket.once('error', reject);
    });
  }

  private wake(): void {
    for (const waiter of this.waiters) waiter();
  }

  /** Waits until `condition` holds over the frames received so far. */
  async until(
    condition: (frames: readonly ReceivedFrame[]) => boolean,
    what: string,
    timeoutMs = 5_000,
  ): Promise<void> {
    if (condition(this.frames)) return;
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (condition(this.frames)) {
          clearTimeout(timer);
          this.waiters.delete(check);
          resolve();
        }
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(
          new Error(
            `timed out after ${timeoutMs} ms waiting for ${what}; got ${describeFrames(this.frames)}`,
          ),
        );
      }, timeoutMs);
      this.waiters.add(check);
    });
  }

  /** Waits for at least `count` frames in all. */
  frameCount(count: number, timeoutMs?: number): Promise<void> {
    return this.until((frames) => frames.length >= count, `${count} frames`, timeoutMs);
  }

  async closed(timeoutMs = 5_000): Promise<{ code: number; reason: string }> {
    await this.until(() => this.closeEvent !== undefined, 'the close', timeoutMs);
    return this.closeEvent!;
  }

  texts(): Record<string, unknown>[] {
    return this.frames.flatMap((frame) => (frame.kind === 'text' ? [frame.json] : []));
  }

  sendJson(value: unknown): void {
    this.socket.send(JSON.stringify(value));
  }

  close(): void {
    this.socket.close();
  }
}

export const describeFrames = (frames: readonly ReceivedFrame[]): string =>
  JSON.stringify(
    frames.map((frame) => (frame.kind === 'text' ? frame.json : `<binary ${frame.bytes.byteLength} bytes>`)),
  ).slice(0, 2000);

/** Asserts that frames[i] and frames[i + 1] form a pair and returns its parts. */
export const pairAt = (
  frames: readonly ReceivedFrame[],
  index: number,
): { meta: Record<string, unknown>; messageId: number; audio: Buffer } => {
  const meta = frames[index];
  const binary = frames[index + 1];
  if (meta?.kind !== 'text' || meta.json['type'] !== 'audio')
    throw new Error(`frame ${index} is not audio metadata; got ${describeFrames(frames)}`);
  if (binary?.kind !== 'binary')
    throw new Error(`frame ${index + 1} is not binary; got ${describeFrames(frames)}`);
  return { meta: meta.json, messageId: binary.bytes.readUInt32BE(0), audio: binary.bytes.subarray(4) };
};
