import {
  createActor,
  fromCallback,
  type InspectionEvent,
  type Observer,
  type SnapshotFrom,
  type Subscription,
} from 'xstate';
import { performance } from 'node:perf_hooks';
import { parseClientText, PART_HEADER_BYTES, readPartHeader } from '../../protocol/ws/index.js';
import { queueFull } from './session-actions.js';
import { sessionMachine } from './session-machine.js';
import { SessionResources } from './session-resources.js';
import type {
  ConversationRequest,
  SessionContext,
  SessionEvent,
  SessionInput,
  SessionTransportEvent,
} from './session-types.js';

/**
 * A session: its chart's actor, given its effects and its call on the live resources (`provide`), and the
 * socket's events read into the chart's. A binary frame becomes an `utterance` that says
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
): SessionEvent => {
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
      return { type: 'utterance_start', at: performance.now() };
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
  // Nothing is told before the actor exists: the resources tell only once they listen or run a call.
  const resources = new SessionResources(input, (event) => {
    actor.send(event);
  });
  const { limits } = input;
  const machine = sessionMachine.provide({
    actors: {
      call: fromCallback<SessionEvent, ConversationRequest | undefined>(({ input: request, sendBack }) =>
        resources.runCall(request, sendBack),
      ),
    },
    actions: {
      deliver: (_, frame) => {
        resources.deliver(frame);
      },
      refuse: (_, refusal) => {
        resources.refuse(refusal);
      },
      holdAudio: ({ context, event }) => {
        if (event.type === 'utterance') resources.holdAudio(context.turns, event.audio);
      },
      deliverPart: ({ context, event }) => {
        if (event.type === 'call.part' && context.running?.service === 'chat') {
          resources.deliverPart(context.running.turn, event.part);
        }
      },
      deliverOutcome: ({ context, event }) => {
        if (event.type !== 'call.settled' || context.running === undefined) return;
        resources.releaseAudio(context.running);
        resources.deliverOutcome(context.running, event.outcome);
      },
      releaseCancelledAudio: ({ context }) => {
        resources.releaseAudio(context.running);
        for (const request of context.waiting) resources.releaseAudio(request);
      },
      deliverCancelled: ({ context }) => {
        resources.deliverCancelled(context.cancelledTurns);
      },
      followUtterance: ({ context }) => {
        resources.followUtterance(context.turns);
      },
      sendPart: ({ event }) => {
        if (event.type === 'upload.part') resources.sendPart(event.turn, event.sequence, event.audio);
      },
      endUtterance: ({ event }) => {
        if (event.type === 'utterance.ended') resources.endUtterance(event.turn, event.parts);
      },
      abandonUtterance: ({ event }) => {
        if (event.type === 'upload.abandoned') {
          resources.abandonUtterance(event.turn, event.parts, event.refusal);
        }
      },
      reportHeard: ({ event }) => {
        if (event.type === 'heard') resources.reportHeard(event);
      },
      flushPlayAudio: () => {
        resources.flushPlayAudio();
      },
    },
  });
  const actor = createActor(machine, {
    input: {
      limits,
      audioBudgetBytes: input.audioBudget.limit,
      microphoneEnabled: input.microphone.isEnabled(),
    },
    ...(options.inspect === undefined ? {} : { inspect: options.inspect }),
  });
  const release = (): void => {
    resources.close();
  };
  actor.subscribe({ complete: release, error: release });
  actor.start();
  if (actor.getSnapshot().status === 'active') resources.listen();
  return {
    send: (event) => {
      const session = actor.getSnapshot();
      // An ended session hears nothing more.
      if (session.status !== 'active') return;
      actor.send(readTransportEvent(event, input, resources, session.context));
    },
    getSnapshot: () => actor.getSnapshot(),
    subscribe: (observer) => actor.subscribe(observer),
    stop: () => {
      actor.stop();
    },
  };
};
