import {
  createActor,
  type InspectionEvent,
  type Observer,
  type SnapshotFrom,
  type Subscription,
} from 'xstate';
import { performance } from 'node:perf_hooks';
import { parseClientText } from '../../protocol/ws-frames.js';
import { PART_HEADER_BYTES, readPartHeader } from '../../protocol/ws-wire.js';
import { bindResources } from './session-actions.js';
import { sessionMachine } from './session-machine.js';
import { SessionResources } from './session-resources.js';
import type { SessionEvent, SessionInput, SessionTransportEvent } from './session-types.js';

/**
 * A session: its chart's actor, the live resources its effects act on, and the socket's events read into
 * the chart's. A binary frame becomes an `utterance` that says whether its audio fits in the budget now, a
 * text frame the command it names or its error, so every decision is made from the snapshot and the event.
 */

export type SessionSnapshot = SnapshotFrom<typeof sessionMachine>;

export interface SessionActor {
  /** An event of the socket (frames are copied by the transport before they get here). */
  send(event: SessionTransportEvent): void;
  getSnapshot(): SessionSnapshot;
  subscribe(observer: Partial<Observer<SessionSnapshot>>): Subscription;
  /** Ends the session without a word to the client: its call abandoned, its resources given back. */
  stop(): void;
}

/**
 * What an event of the socket means to the chart. A binary frame is a whole utterance until the session
 * streams; then it is a part, read behind its header. Times come from one monotonic clock.
 */
const readTransportEvent = (
  event: SessionTransportEvent,
  input: SessionInput,
  resources: SessionResources,
  streams: boolean,
): SessionEvent => {
  if (event.type === 'ws.binary') {
    const { data } = event;
    if (!streams) return { type: 'utterance', audio: data, fits: resources.audioFits(data.byteLength) };
    const audio = data.subarray(Math.min(PART_HEADER_BYTES, data.byteLength));
    return {
      type: 'part',
      header: readPartHeader(data),
      audio,
      at: performance.now(),
      fits: resources.partFits(audio.byteLength),
    };
  }
  if (event.type !== 'ws.text') return event;
  const parsed = parseClientText(event.data, input.limits.maxTextFrameBytes);
  if (!parsed.ok) return { type: 'text.rejected', code: parsed.code, message: parsed.message };
  const { command } = parsed;
  switch (command.service) {
    case 'utterance_start':
      return { type: 'utterance_start', at: performance.now() };
    case 'utterance_end':
      return { type: 'utterance_end', turn: command.turn, parts: command.parts };
    case 'heard': {
      const { service: _service, ...report } = command;
      return { type: 'heard', ...report };
    }
    default:
      return { type: command.service };
  }
};

/**
 * Starts a session; its initial `state` frame is sent before this returns. `inspect` hears every event the
 * chart processes (XState's inspection), as a log that replays to the same snapshots.
 */
export const startSessionActor = (
  input: SessionInput,
  options: { readonly inspect?: (event: InspectionEvent) => void } = {},
): SessionActor => {
  // Nothing is told before the actor exists: the resources tell only once they listen or run a call.
  const resources = new SessionResources(input, (event) => {
    actor.send(event);
  });
  const actor = createActor(sessionMachine, {
    input: {
      limits: input.limits,
      audioBudgetBytes: input.audioBudget.limit,
      microphoneEnabled: input.microphone.isEnabled(),
    },
    ...(options.inspect === undefined ? {} : { inspect: options.inspect }),
  });
  bindResources(actor, resources);
  const release = (): void => {
    resources.close();
  };
  actor.subscribe({ complete: release, error: release });
  actor.start();
  if (actor.getSnapshot().status === 'active') resources.listen();
  return {
    send: (event) => {
      actor.send(readTransportEvent(event, input, resources, actor.getSnapshot().context.streams));
    },
    getSnapshot: () => actor.getSnapshot(),
    subscribe: (observer) => actor.subscribe(observer),
    stop: () => {
      actor.stop();
    },
  };
};
