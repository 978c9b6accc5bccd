import { connectCdp } from '../../bench/lib/cdp.js';

/**
 * A bridge's own memory, read through the Node.js inspector it was started with (`--inspect=127.0.0.1:0`,
 * tests only): a full garbage collection first, so what remains is what is still referenced.
 */
export interface InspectedMemory {
  /** process.memoryUsage() after two full collections, in bytes. */
  afterGc(): Promise<NodeJS.MemoryUsage>;
  close(): void;
}

export const connectInspector = async (url: string): Promise<InspectedMemory> => {
  const cdp = await connectCdp(url);
  return {
    afterGc: async () => {
      await cdp.call('HeapProfiler.collectGarbage');
      await cdp.call('HeapProfiler.collectGarbage');
      const evaluated = await cdp.call<{ result: { value: string } }>('Runtime.evaluate', {
        expression: 'JSON.stringify(process.memoryUsage())',
        returnByValue: true,
      });
      return JSON.parse(evaluated.result.value) as NodeJS.MemoryUsage;
    },
    close: () => {
      cdp.close();
    },
  };
};
