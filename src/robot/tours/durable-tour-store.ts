import { constants } from 'node:fs';
import { access, readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { TourOutcome, type TourOutcomeCode, type TourOutcomeFields } from '../../ros/port/ros-messages.js';
import type { RosRequest, RosResponse } from '../../ros/port/ros-port.js';
import { emptyTourMsg } from '../../ros/tour-message.js';
import {
  removeStaleTemporaries,
  writeFileAtomically,
  type AtomicWriteOptions,
} from '../../files/atomic-file.js';
import {
  decideTourService,
  foldTourEvents,
  SAMPLE_TOUR,
  type TourServiceKey,
  type TourState,
} from './tour-rules.js';
import type { Tour } from '../../protocol/tour-schema.js';
import { decodeSnapshot, encodeSnapshot } from './tour-snapshot.js';

/*
 * The reference tour store's state, kept in one file.
 *
 * Snapshot, not event log: the state of a robot's tours is small (tens of tours of a few KB), and the
 * rules already fold events into a state, so persisting that state after every change is simple and
 * cheap: recovery reads one validated document, with no log replay, compaction or torn-tail repair.
 * Each change rewrites the file atomically (src/files/atomic-file.ts) and the ROS call is answered
 * only after the rename and the directory fsync: an acknowledged change survives a crash or power
 * loss; an unacknowledged one may or may not be there, never half. The cost, a full rewrite per change,
 * is bounded by the limits below.
 */

export const TOUR_STORE_LIMITS = {
  /** Most tours held; a create beyond it is refused (outcome ERROR). */
  maxTours: 1_000,
  /** Largest file written or read back. */
  maxFileBytes: 64 * 1024 * 1024,
  /** Requests waiting behind the one being stored; more are refused at once (outcome ERROR). */
  maxPending: 256,
} as const;

export interface DurableTourStoreOptions {
  readonly file: string;
  readonly maxTours?: number;
  readonly maxFileBytes?: number;
  readonly maxPending?: number;
  /** The tours of a store whose file does not exist yet. Default: the sample tour. */
  readonly initialTours?: readonly Tour[];
  /** Test hooks between the steps of each write. */
  readonly write?: AtomicWriteOptions;
}

export interface StoreRecovery {
  /** Where the state came from: the file, or the initial tours (no file yet). */
  readonly source: 'file' | 'initial';
  readonly tours: number;
  /** Temporary files of a write interrupted by a crash, deleted at start. */
  readonly removedTemporaries: readonly string[];
}

export interface DurableTourStore {
  /**
   * Decides one request against the stored state. Requests are handled one at a time in arrival
   * order; a change is durable on disk before its promise resolves. Never rejects: failures are
   * answers with outcome ERROR.
   */
  handle<K extends TourServiceKey>(service: K, request: RosRequest<K>): Promise<RosResponse<K>>;
  readonly tourCount: number;
  /** Refuses new requests and waits for the queued ones. */
  close(): Promise<void>;
}

/** The store cannot start: its file or directory is unusable. Names the file and what to do. */
export class TourStoreOpenError extends Error {
  override readonly name = 'TourStoreOpenError';
}

const errorText = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split('\n', 1)[0] ?? 'unknown error';

/** An answer with outcome ERROR, shaped for the service. */
const failure = <K extends TourServiceKey>(
  service: K,
  message: string,
  code: TourOutcomeCode = TourOutcome.ERROR,
): RosResponse<K> => {
  const outcome: TourOutcomeFields = { success: false, outcome: code, message };
  switch (service) {
    case 'tour_list':
      return { ...outcome, tour_names: [] };
    case 'tour_get':
      return { ...outcome, tour: emptyTourMsg() };
    default:
      return outcome;
  }
};

/**
 * The refusal of a change that would take the store past `maxTours` (outcome FULL), or undefined. The
 * simulation answers the same beyond the same limit.
 */
export const refusalBeyondMaxTours = <K extends TourServiceKey>(
  service: K,
  state: TourState,
  next: TourState,
  maxTours: number,
): RosResponse<K> | undefined =>
  next.size > maxTours && next.size > state.size
    ? failure(
        service,
        `the tour store holds its maximum of ${maxTours} tours; delete one first`,
        TourOutcome.FULL,
      )
    : undefined;

const readState = async (
  file: string,
  maxFileBytes: number,
  initialTours: readonly Tour[],
): Promise<{ state: TourState; source: 'file' | 'initial' }> => {
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return {
        state: foldTourEvents(initialTours.map((tour) => ({ type: 'tour.created', tour }) as const)),
        source: 'initial',
      };
    }
    throw new TourStoreOpenError(`cannot read the tour store file ${file}: ${errorText(error)}`);
  }
  if (size > maxFileBytes) {
    throw new TourStoreOpenError(
      `the tour store file ${file} has ${size} bytes, more than the limit of ${maxFileBytes}`,
    );
  }
  try {
    return { state: decodeSnapshot(await readFile(file, 'utf8')), source: 'file' };
  } catch (error) {
    // Never overwritten: it is the operator's data. A crash cannot produce this (writes are atomic).
    throw new TourStoreOpenError(
      `the tour store file ${file} is not a valid tour store (${errorText(error)}); ` +
        'fix it, or move it away to start with the sample tour',
    );
  }
};

/**
 * Opens the store: removes temporaries left by a crashed write, reads the file (or starts from the
 * initial tours when there is none). One store process per file: the file is not locked.
 */
export const openDurableTourStore = async (
  options: DurableTourStoreOptions,
): Promise<{ store: DurableTourStore; recovery: StoreRecovery }> => {
  const { file } = options;
  const maxTours = options.maxTours ?? TOUR_STORE_LIMITS.maxTours;
  const maxFileBytes = options.maxFileBytes ?? TOUR_STORE_LIMITS.maxFileBytes;
  const maxPending = options.maxPending ?? TOUR_STORE_LIMITS.maxPending;
  const directory = dirname(file);
  try {
    await access(directory, constants.W_OK | constants.X_OK);
  } catch (error) {
    throw new TourStoreOpenError(
      `the directory of the tour store file ${file} is not writable: ${errorText(error)}`,
    );
  }
  const removedTemporaries = await removeStaleTemporaries(file);
  const loaded = await readState(file, maxFileBytes, options.initialTours ?? [SAMPLE_TOUR]);
  let state = loaded.state;

  const decideAndStore = async <K extends TourServiceKey>(
    service: K,
    request: RosRequest<K>,
  ): Promise<RosResponse<K>> => {
    const decision = decideTourService(state, service, request);
    if (decision.events.length === 0) return decision.response;
    const next = foldTourEvents(decision.events, state);
    const refused = refusalBeyondMaxTours(service, state, next, maxTours);
    if (refused !== undefined) return refused;
    const encoded = Buffer.from(encodeSnapshot(next), 'utf8');
    if (encoded.byteLength > maxFileBytes) {
      return failure(
        service,
        `the tour store would exceed its limit of ${maxFileBytes} bytes; delete or shorten a tour first`,
        TourOutcome.FULL,
      );
    }
    try {
      await writeFileAtomically(file, encoded, options.write ?? {});
    } catch (error) {
      return failure(service, `could not store the change: ${errorText(error)}`);
    }
    // Committed only once durable: a later request must never see a state the file may not hold.
    state = next;
    return decision.response;
  };

  let tail: Promise<unknown> = Promise.resolve();
  let pending = 0;
  let closed = false;
  const store: DurableTourStore = {
    handle: (service, request) => {
      if (closed) return Promise.resolve(failure(service, 'the tour store is shutting down'));
      if (pending >= maxPending + 1) {
        return Promise.resolve(failure(service, `the tour store is busy (${maxPending} requests waiting)`));
      }
      pending += 1;
      // Never rejects (a rejection would also stop every request queued behind this one).
      const answer = tail.then(() =>
        decideAndStore(service, request).catch((error: unknown) =>
          failure(service, `the tour store failed: ${errorText(error)}`),
        ),
      );
      tail = answer.finally(() => {
        pending -= 1;
      });
      return answer;
    },
    get tourCount() {
      return state.size;
    },
    close: async () => {
      closed = true;
      await tail;
    },
  };
  return {
    store,
    recovery: { source: loaded.source, tours: state.size, removedTemporaries },
  };
};
