import WebSocket from 'ws';

/**
 * A bridge's own memory, read through the Node.js inspector it was started with (`--inspect=127.0.0.1:0`,
 * tests only): a full garbage collection first, so what remains is what is still referenced.
 */
export interface InspectedMemory {
  /** process.memoryUsage() after two full collections, in bytes. */
  afterGc(): Promise<NodeJS.MemoryUsage>;
  close(): void;
}

const CALL_TIMEOUT_MS = 30_000;

export const connectInspector = async (url: string): Promise<InspectedMemory> => {
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => {
      resolve();
    });
    socket.once('error', reject);
  });
  let nextId = 0;
  const pending = new Map<number, (result: unknown) => void>();
  socket.on('message', (data: Buffer) => {
    const message = JSON.parse(data.toString('utf8')) as { id?: number; result?: unknown };
    if (message.id === undefined) return;
    pending.get(message.id)?.(message.result);
    pending.delete(message.id);
  });
  const call = (method: string, params: object = {}): Promise<unknown> =>
    new Promise((resolve, reject) => {
      nextId += 1;
      const id = nextId;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`inspector ${method}: no answer within ${CALL_TIMEOUT_MS} ms`));
      }, CALL_TIMEOUT_MS);
      pending.set(id, (result) => {
        clearTimeout(timer);
        resolve(result);
      });
      socket.send(JSON.stringify({ id, method, params }));
    });
  return {
    afterGc: async () => {
      await call('HeapProfiler.collectGarbage');
      await call('HeapProfiler.collectGarbage');
      const evaluated = (await call('Runtime.evaluate', {
        expression: 'JSON.stringify(process.memoryUsage())',
        returnByValue: true,
      })) as { result: { value: string } };
      return JSON.parse(evaluated.result.value) as NodeJS.MemoryUsage;
    },
    close: () => {
      socket.close();
    },
  };
};
