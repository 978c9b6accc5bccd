import {
  type Actor,
  createActor,
  type InspectionEvent,
  type Observer,
  type SnapshotFrom,
  type Subscription,
} from 'xstate';
import { performance } from 'node:perf_hooks';
import {
  parseClientText,
  type TurnNumber as Turn,
  PART_HEADER_BYTES,
  readPartHeader,
} from '../../protocol/ws/index.js';
import { queueFull, sessionBinding } from './session-actions.js';
import { sessionMachine } from './session-machine.js';
import { SessionResources } from './session-resources.js';
import type {
  SessionContext,
  SessionEvent,
  SessionInput,
  SessionTransportEvent,
  UploadEvent,
} from './session-types.js';
import { uploadBinding } from './upload-actions.js';
import { uploadMachine } from './upload-machine.js';
import { UploadResources } from './upload-resources.js';

/**
 * A session: its chart's actor and its upload's (a streamed utterance), the live resources their effects
 * act on, and the socket's events read into the charts'. A binary frame becomes an `utterance` that says
 * whether its audio fits in the budget now, or a part; a text frame the command it names or its error; so
 * every decision is made from a snapshot and the event.
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

/** A socket's event as a chart's: a part and an end are the upload's, a `cancel` both's, the rest the session's. */
type ReadEvent = SessionEvent | Extract<UploadEvent, { type: 'part' | 'utterance_end' }>;

/**
 * What an event of the socket means. A binary frame is a whole utterance until the session streams; then it
 * is a part, read behind its header, for the upload. The facts a decision needs go in the event: whether
 * audio fits in the budget, which utterance is open, whether the queue is full. Times come from one
 * monotonic clock.
 */
const readTransportEvent = (
  event: SessionTransportEvent,
  input: SessionInput,
  resources: SessionResources,
  session: SessionContext,
  openTurn: () => Turn | undefined,
): ReadEvent => {
  if (event.type === 'ws.binary') {
    const { data } = event;
    if (!session.streams) {
      const short = resources.audioShortfall(data.byteLength);
      return short === undefined
        ? { type: 'utterance', audio: data, fits: true }
        : { type: 'utterance', audio: data, fits: false, overShare: short === 'share' };
    }
    // A frame shorter than the header is no part: its bytes are kept whole, for the error to name.
    const header = readPartHeader(data);
    const audio = header === undefined ? data : data.subarray(PART_HEADER_BYTES);
    const short = resources.partShortfall(audio.byteLength);
    return {
      type: 'part',
      header,
      audio,
      at: performance.now(),
      fits: short === undefined,
      overShare: short === 'share',
    };
  }
  if (event.type !== 'ws.text') return event;
  const parsed = parseClientText(event.data, input.limits.maxTextFrameBytes);
  if (!parsed.ok) return { type: 'text.rejected', code: parsed.code, message: parsed.message };
  const { command } = parsed;
  switch (command.service) {
    case 'utterance_start':
      return { type: 'utterance_start', at: performance.now(), openTurn: openTurn() };
    case 'utterance_end':
      return {
        type: 'utterance_end',
        turn: command.turn,
        parts: command.parts,
        queueFull: queueFull(session),
      };
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
  // Nothing is told before the actors exist: the resources tell only once they listen or run a call.
  const resources = new SessionResources(input, {
    session: (event) => {
      actor.send(event);
    },
    upload: (event) => {
      // A mute abandons what is open: an upload that never started has nothing to abandon.
      if (event.type === 'upload.muted') upload?.actor.send(event);
      else uploadActor().send(event);
    },
  });
  const { limits } = input;
  const audioBudgetBytes = input.audioBudget.limit;
  const actor = createActor(sessionMachine, {
    input: { limits, audioBudgetBytes, microphoneEnabled: input.microphone.isEnabled() },
    ...(options.inspect === undefined ? {} : { inspect: options.inspect }),
  });
  sessionBinding.bind(actor, resources);
  // The upload's chart starts with the session's first streamed event: a session of whole frames has none.
  let upload:
    | { readonly actor: Actor<typeof uploadMachine>; readonly resources: UploadResources }
    | undefined;
  const uploadActor = (): Actor<typeof uploadMachine> => {
    if (upload !== undefined) return upload.actor;
    upload = {
      actor: createActor(uploadMachine, { input: { limits, audioBudgetBytes } }),
      resources: new UploadResources(input.speech, resources),
    };
    uploadBinding.bind(upload.actor, upload.resources);
    return upload.actor.start();
  };
  const openTurn = (): Turn | undefined => upload?.actor.getSnapshot().context.open?.turn;
  const release = (): void => {
    upload?.actor.stop();
    resources.close();
    upload?.resources.close();
  };
  actor.subscribe({ complete: release, error: release });
  actor.start();
  if (actor.getSnapshot().status === 'active') resources.listen();
  return {
    send: (event) => {
      const session = actor.getSnapshot();
      // An ended session hears nothing more; nor does its upload, stopped with it.
      if (session.status !== 'active') return;
      const read = readTransportEvent(event, input, resources, session.context, openTurn);
      if (read.type === 'part' || read.type === 'utterance_end') uploadActor().send(read);
      else {
        // A cancel abandons the open utterance first (an upload that never started has none).
        if (read.type === 'cancel') upload?.actor.send(read);
        actor.send(read);
      }
    },
    getSnapshot: () => actor.getSnapshot(),
    subscribe: (observer) => actor.subscribe(observer),
    stop: () => {
      actor.stop();
    },
  };
};
