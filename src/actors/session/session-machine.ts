import { not } from 'xstate';
import {
  closeFrame,
  errorFrame,
  textFrame,
  CLOSE_CODES,
  INITIAL_EMOTION,
  INITIAL_TEXT,
  utteranceAudioMs,
} from '../../protocol/ws/index.js';
import { runningRequest, sessionSetup, transcriptFrame, uploadInput } from './session-actions.js';
import { refusals, startRefusals } from './session-refusals.js';

/**
 * One `/ws` connection, as a state machine a reader can follow:
 *
 *   open (invokes `upload`, the streamed utterance's chart)
 *     idle ──utterance, clear_history or a streamed turn──▶ calling ──call.settled──▶ idle, or the next
 *     calling (invokes `call`, the running request's) ──call.part──▶ (the part's pair is sent at once)
 *     calling ──cancel (a turn runs)──▶ cancelled ──▶ idle, or the next
 *   open ──close, 1001/1008/1009/1011, or the socket closed──▶ closed
 *
 * A kiosk's utterance is a turn, numbered from 1: a binary frame whole, or a streamed utterance from its
 * `utterance_start`. One call runs at a time, invoked by `calling`: entering starts it, leaving stops it,
 * whatever the way out. Up to `maxWaitingCalls` requests wait behind it in arrival order; beyond that, or
 * when the audio would not fit in the process-wide budget, a request is answered `busy` at once. A turn's
 * answer comes as pairs (one with `/chat`, one per part with the Converse action) and ends with `turn_end`.
 * The `cancel` command is not queued: it stops the running turn, drops the queued ones and the open
 * utterance.
 *
 * An admitted `utterance_start` opens the upload (upload-machine.ts, the child `upload`); the socket's
 * parts and ends are passed to it, and it answers by events: each admitted part (`upload.part`), the end
 * (`utterance.ended`, a turn to queue) or the utterance given up (`upload.abandoned`). The snapshot is
 * plain data; the guards, assigns and named effects are session-actions.ts, the effects' and the call's
 * implementations session.ts's (`provide`), the refusals' frames session-refusals.ts.
 */
export const sessionMachine = sessionSetup.createMachine({
  id: 'session',
  context: ({ input }) => ({
    ...input,
    running: undefined,
    waiting: [],
    turns: 0,
    streams: false,
    openTurn: undefined,
    cancelledTurns: [],
    busyTold: false,
  }),
  initial: 'open',
  states: {
    open: {
      initial: 'idle',
      // A streamed utterance's parts, timers and verdicts: its own chart (upload-machine.ts), this one's child.
      invoke: {
        id: 'upload',
        src: 'upload',
        input: uploadInput,
      },
      entry: {
        type: 'deliver',
        params: ({ context }) =>
          textFrame({
            type: 'state',
            emotion: INITIAL_EMOTION,
            text: INITIAL_TEXT,
            microphone: { enabled: context.microphoneEnabled },
            limits: { utteranceMs: utteranceAudioMs(context.limits.maxBinaryFrameBytes) },
          }),
      },
      states: {
        /** Nothing runs: an admitted request starts its call at once; a cancel has nothing to stop. */
        idle: {
          on: {
            utterance: {
              guard: { type: 'utteranceIs', params: 'admitted' },
              target: 'calling',
              actions: ['admit', 'holdAudio'],
            },
            'utterance.ended': {
              target: 'calling',
              actions: ['endUtterance', 'closeUtterance', 'admit'],
            },
            clear_history: { target: 'calling', actions: 'admit' },
            cancel: { actions: ['dropTurns', 'cancelUpload', 'deliverCancelled', 'clearCancelled'] },
          },
        },
        /**
         * One call runs; admitted requests wait behind it. A streamed turn's parts go out as they
         * arrive. A cancel stops a running turn (`cancelled`); a running clear_history goes on, only the
         * queued turns are dropped.
         */
        calling: {
          // The running request's call: leaving `calling`, however, stops it (a late answer is dropped).
          invoke: { id: 'call', src: 'call', input: runningRequest },
          on: {
            utterance: {
              guard: { type: 'utteranceIs', params: 'admitted' },
              actions: ['admit', 'holdAudio'],
            },
            'utterance.ended': { actions: ['endUtterance', 'closeUtterance', 'admit'] },
            clear_history: { guard: not('queueFull'), actions: 'admit' },
            'call.part': { actions: 'deliverPart' },
            'call.settled': [
              {
                guard: 'hasWaiting',
                target: 'calling',
                reenter: true,
                actions: ['deliverOutcome', 'startNext'],
              },
              { target: 'idle', actions: ['deliverOutcome', 'settle'] },
            ],
            cancel: [
              {
                guard: 'runningIsTurn',
                target: 'cancelled',
                actions: ['releaseCancelledAudio', 'dropTurns', 'cancelUpload'],
              },
              {
                actions: [
                  'releaseCancelledAudio',
                  'dropTurns',
                  'cancelUpload',
                  'deliverCancelled',
                  'clearCancelled',
                ],
              },
            ],
          },
        },
        /**
         * The running turn was stopped: `turn_end` cancelled for it, each dropped queued turn and an
         * abandoned utterance, then the ack; then the next waiting call (a clear_history that was queued)
         * starts, or the session is idle.
         */
        cancelled: {
          entry: ['deliverCancelled', 'clearCancelled'],
          always: [{ guard: 'hasWaiting', target: 'calling', actions: 'startNext' }, { target: 'idle' }],
        },
      },
      on: {
        // One utterance streams at a time; an admitted one is the upload's (upload-machine.ts).
        utterance_start: [
          {
            guard: { type: 'startIs', params: 'alreadyOpen' },
            actions: ['countTurn', { type: 'refuse', params: startRefusals.alreadyOpen }],
          },
          {
            guard: { type: 'startIs', params: 'turnsExhausted' },
            target: 'closed',
            actions: { type: 'deliver', params: closeFrame(CLOSE_CODES.internalError) },
          },
          {
            guard: { type: 'startIs', params: 'microphoneDisabled' },
            actions: ['countTurn', { type: 'refuse', params: startRefusals.microphoneDisabled }],
          },
          {
            guard: { type: 'startIs', params: 'queueFull' },
            actions: ['countTurn', { type: 'refuse', params: refusals.busy('queue') }],
          },
          { actions: ['openUtterance', 'followUtterance', 'openUpload'] },
        ],
        part: { actions: 'passToUpload' },
        utterance_end: { actions: 'passToUpload' },
        'upload.part': { actions: 'sendPart' },
        'upload.abandoned': { actions: ['abandonUtterance', 'closeUtterance'] },
        'upload.refused': { actions: { type: 'deliver', params: ({ event }) => event.frame } },
        // What idle and calling do not admit.
        utterance: [
          {
            guard: { type: 'utteranceIs', params: 'tooLarge' },
            target: 'closed',
            actions: { type: 'deliver', params: closeFrame(CLOSE_CODES.binaryFrameTooLarge) },
          },
          {
            guard: { type: 'utteranceIs', params: 'turnsExhausted' },
            target: 'closed',
            actions: { type: 'deliver', params: closeFrame(CLOSE_CODES.internalError) },
          },
          // No utterance fits in fewer bytes: refused before it costs a call.
          {
            guard: { type: 'utteranceIs', params: 'tooShort' },
            actions: ['countTurn', { type: 'refuse', params: refusals.tooShort }],
          },
          // Checked on arrival: audio recorded while the microphone was enabled is still answered.
          {
            guard: { type: 'utteranceIs', params: 'microphoneDisabled' },
            actions: ['countTurn', { type: 'refuse', params: refusals.microphoneDisabled }],
          },
          {
            guard: { type: 'utteranceIs', params: 'queueFull' },
            actions: ['countTurn', { type: 'refuse', params: refusals.busy('queue') }, 'noteBusyTold'],
          },
          {
            guard: { type: 'utteranceIs', params: 'overBudget' },
            actions: ['countTurn', { type: 'refuse', params: refusals.busy('audio') }, 'noteBusyTold'],
          },
        ],
        clear_history: { actions: { type: 'refuse', params: refusals.busy('queue') } },
        heard: { actions: 'reportHeard' },
        transcript: { actions: { type: 'deliver', params: transcriptFrame } },
        'text.rejected': {
          actions: { type: 'deliver', params: ({ event }) => errorFrame(event.code, event.message) },
        },
        'microphone.changed': [
          // Disabled: the open utterance is abandoned at once (after the kiosk is told why).
          {
            guard: 'microphoneDisabled',
            actions: [
              'setMicrophone',
              {
                type: 'deliver',
                params: ({ event }) => textFrame({ type: 'microphone', enabled: event.enabled }),
              },
              'muteUpload',
            ],
          },
          {
            guard: 'microphoneChanged',
            actions: [
              'setMicrophone',
              {
                type: 'deliver',
                params: ({ event }) => textFrame({ type: 'microphone', enabled: event.enabled }),
              },
            ],
          },
        ],
        'ws.buffered': [
          {
            guard: 'sendBufferExceeded',
            target: 'closed',
            actions: { type: 'deliver', params: closeFrame(CLOSE_CODES.sendBufferExceeded) },
          },
          { actions: 'flushPlayAudio' },
        ],
        'server.shutdown': {
          target: 'closed',
          actions: { type: 'deliver', params: closeFrame(CLOSE_CODES.goingAway) },
        },
        'ws.closed': { target: 'closed' },
        'session.sendFailed': { target: 'closed' },
        'session.streamFailed': { target: 'failed' },
      },
    },
    /** One of the session's own streams failed: tell the client, then end. */
    failed: {
      always: {
        target: 'closed',
        actions: { type: 'deliver', params: closeFrame(CLOSE_CODES.internalError) },
      },
    },
    closed: { type: 'final' },
  },
});
