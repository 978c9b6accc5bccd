import WebSocket from 'ws';

/** A Chrome DevTools Protocol session with a Node.js process started with `--inspect=127.0.0.1:<port>`. */
export interface CdpSession {
  call<Result = unknown>(method: string, params?: object): Promise<Result>;
  close(): void;
}

const CALL_TIMEOUT_MS = 30_000;

/** The inspector's WebSocket address, read from its `/json/list` on loopback. */
export const inspectorUrl = async (inspectPort: number): Promise<string> => {
  const response = await fetch(`http://127.0.0.1:${inspectPort}/json/list`, {
    signal: AbortSignal.timeout(5_000),
  });
  const targets = (await response.json()) as { webSocketDebuggerUrl?: string }[];
  const url = targets[0]?.webSocketDebuggerUrl;
  if (url === undefined) throw new Error(`no inspector target on 127.0.0.1:${inspectPort}`);
  return url;
};

export const connectCdp = async (url: string): Promise<CdpSession> => {
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => {
      resolve();
    });
    socket.once('error', reject);
  });
  let nextId = 0;
  const pending = new Map<number, { resolve: (result: unknown) => void; reject: (error: Error) => void }>();
  socket.on('message', (data: Buffer) => {
    const message = JSON.parse(data.toString('utf8')) as {
      id?: number;
      result?: unknown;
      error?: { message: string };
    };
    if (message.id === undefined) return;
    const waiter = pending.get(message.id);
    pending.delete(message.id);
    if (message.error !== undefined) waiter?.reject(new Error(message.error.message));
    else waiter?.resolve(message.result);
  });
  return {
    call: <Result>(method: string, params: object = {}) =>
      new Promise<Result>((resolve, reject) => {
        nextId += 1;
        const id = nextId;
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`inspector ${method}: no answer within ${CALL_TIMEOUT_MS} ms`));
        }, CALL_TIMEOUT_MS);
        pending.set(id, {
          resolve: (result) => {
            clearTimeout(timer);
            resolve(result as Result);
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        });
        socket.send(JSON.stringify({ id, method, params }));
      }),
    close: () => {
      socket.close();
    },
  };
};
