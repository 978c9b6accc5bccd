import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Loads the modules of one build (`dist/src`, or `src` through tsx) by their path in it, so a measuring
 * script runs the build it is given, this tree's or another's (`--compare`). Modules that moved are looked
 * for at their place in this tree first, then at their older places.
 */
export const buildModules = (modules: string) => {
  const load = <T>(path: string): Promise<T> => import(pathToFileURL(join(modules, path)).href) as Promise<T>;
  const loadFirst = async <T>(...paths: string[]): Promise<T> => {
    for (const path of paths.slice(0, -1)) {
      try {
        return await load<T>(path);
      } catch {
        // Not in this build: try its older place.
      }
    }
    return load<T>(paths.at(-1) ?? '');
  };
  return {
    load,
    loadFirst,
    /** The message-id allocator: in protocol/ws/, or protocol/ws-frames.js or message-ids.js in older builds. */
    loadMessageIds: () =>
      loadFirst<typeof import('../../src/protocol/ws/index.js')>(
        'protocol/ws/index.js',
        'protocol/ws-frames.js',
      ).then((module) =>
        'createMessageIdAllocator' in module
          ? module
          : load<typeof import('../../src/protocol/ws/index.js')>('protocol/message-ids.js'),
      ),
  };
};

/** The call wrapper's time-outs in the measuring scripts: the simulation answers long before any of them. */
export const BENCH_CALL_TIMEOUTS_MS = {
  chat: 30_000,
  clear_history: 5_000,
  tour_get: 5_000,
  tour_list: 5_000,
  tour_create: 5_000,
  tour_update: 5_000,
  tour_delete: 5_000,
} as const;
