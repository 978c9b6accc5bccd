import {
  type Actor,
  createActor,
  type InspectionEvent,
  type Observer,
  type SnapshotFrom,
  type Subscription,
} from 'xstate';
import { performance } from 'node:perf_hooks';
import { parseClientText } from '../../protocol/ws-frames.js';
import { PART_HEADER_BYTES, readPartHeader } from '../../protocol/ws-wire.js';
import { queueFull, sessionBinding } from './session-actions.js';
import { sessionMachine } from './session-machine.js';
import { SessionResources } from './session-resources.js';
import type {
  SessionContext,
  SessionEvent,
  SessionInput,
  SessionTransportEvent,
  UploadContext,
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

/** What the socket's event is for: the session's chart or the upload's, read into that chart's event. */
type Routed =
  | { readonly to: 'session'; readonly event: SessionEvent }
  | { readonly to: 'upload'; readonly event: UploadEvent }
  /** `cancel`: the upload abandons its utterance first, then the session stops its calls. */
  | { readonly to: 'both'; readonly event: { readonly type: 'cancel' } };

/**
 * What an event of the socket means. A binary frame is a whole utterance until the session streams; then it
 * is a part, read behind its header, for the upload. The facts a decision needs go in the event: whether
 * audio fits in the budget, which utterance is open, whether the queue is full. Times come from one
 * monotonic clock.
 */
const route = (
  event: SessionTransportEvent,
  input: SessionInput,
  resources: SessionResources,
  session: SessionContext,
  upload: UploadContext | undefined,
): Routed => {
  if (event.type === 'ws.binary') {
    const { data } = event;
    if (!session.streams) {
      return {
        to: 'session',
        event: { type: 'utterance', audio: data, fits: resources.audioFits(data.byteLength) },
      };
    }
    const audio = data.subarray(Math.min(PART_HEADER_BYTES, data.byteLength));
    return {
      to: 'upload',
      event: {
        type: 'part',
        header: readPartHeader(data),
        audio,
        at: performance.now(),
        fits: resources.partFits(audio.byteLength),
      },
    };
  }
  if (event.type !== 'ws.text') return { to: 'session', event };
  const parsed = parseClientText(event.data, input.limits.maxTextFrameBytes);
  if (!parsed.ok) {
    return { to: 'session', event: { type: 'text.rejected', code: parsed.code, message: parsed.message } };
  }
  const { command } = parsed;
  switch (command.service) {
    case 'utterance_start':
      return {
        to: 'session',
        event: { type: 'utterance_start', at: performance.now(), openTurn: upload?.open?.turn },
      };
    case 'utterance_end':
      return {
        to: 'upload',
        event: {
          type: 'utterance_end',
          turn: command.turn,
          parts: command.parts,
          queueFull: queueFull(session),
        },
      };
    case 'heard': {
      const { service: _service, ...report } = command;
      return { to: 'session', event: { type: 'heard', ...report } };
    }
    case 'cancel':
      return { to: 'both', event: { type: 'cancel' } };
    default:
      return { to: 'session', event: { type: command.service } };
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
      uploadActor().send(event);
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
      const routed = route(event, input, resources, session.context, upload?.actor.getSnapshot().context);
      if (routed.to === 'session') actor.send(routed.event);
      else if (routed.to === 'upload') uploadActor().send(routed.event);
      else {
        // Nothing is open in an upload that never started.
        upload?.actor.send(routed.event);
        actor.send(routed.event);
      }
    },
    getSnapshot: () => actor.getSnapshot(),
    subscribe: (observer) => actor.subscribe(observer),
    stop: () => {
      actor.stop();
    },
  };
};
