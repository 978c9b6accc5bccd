import { uploadSetup } from './upload-actions.js';
import { endRefusals, partRefusals } from './upload-refusals.js';

/**
 * A session's streamed utterance, as a chart of its own that the session invokes (its child, id `upload`):
 *
 *   none ──upload.open (the session admitted an utterance_start as turn N)──▶ streaming
 *   streaming ──part──▶ streaming (the part goes to the robot at once; a part with audio restarts the
 *             waits, an empty one does not)
 *   streaming ──utterance_end──▶ none (the session tells the robot the end and queues the turn)
 *   streaming ──cancel, the microphone disabled, a bad part or end, no audio for utteranceStallMs, the
 *             audio behind real time by maxStreamLagMs, or open for maxUtteranceMs──▶ none (the
 *             utterance abandoned, the robot told)
 *
 * The two talk only by events: the session passes the socket's parts, ends and cancels on, and this chart
 * answers with `upload.part`, `utterance.ended`, `upload.abandoned` and `upload.refused` (`sendParent`,
 * upload-actions.ts); the session's actions do what is live. The snapshot is plain data.
 */
export const uploadMachine = uploadSetup.createMachine({
  id: 'upload',
  context: ({ input }) => ({ ...input, open: undefined }),
  initial: 'none',
  states: {
    /** No utterance is open: a part or an end names none. */
    none: {
      on: {
        'upload.open': { target: 'streaming', actions: 'setOpen' },
        part: { actions: { type: 'deliver', params: partRefusals.invalid } },
        utterance_end: { actions: { type: 'deliver', params: endRefusals.invalid } },
      },
    },
    /** An utterance is open: each part in order goes to the robot as it comes; the end queues its turn. */
    streaming: {
      // Each wait is counted from the last part carrying audio (the state entered anew), the wall-clock
      // limit's from the opening.
      after: {
        utteranceStall: {
          target: 'none',
          actions: [{ type: 'abandonUtterance', params: partRefusals.stalled }, 'clearOpen'],
        },
        utteranceBehind: {
          target: 'none',
          actions: [{ type: 'abandonUtterance', params: partRefusals.behind }, 'clearOpen'],
        },
        utteranceTooLong: {
          target: 'none',
          actions: [{ type: 'abandonUtterance', params: partRefusals.tooLong }, 'clearOpen'],
        },
      },
      on: {
        part: [
          {
            guard: { type: 'partIs', params: 'invalid' },
            actions: { type: 'deliver', params: partRefusals.invalid },
          },
          {
            guard: 'partAdmittedWithAudio',
            target: 'streaming',
            reenter: true,
            actions: ['sendPart', 'countPart'],
          },
          // An empty part goes to the robot too, but keeps the waits running: silence holds nothing open.
          {
            guard: { type: 'partIs', params: 'admitted' },
            actions: ['sendPart', 'countPart'],
          },
          // Any other verdict abandons the utterance, its error naming why.
          {
            target: 'none',
            actions: [{ type: 'abandonUtterance', params: partRefusals.abandon }, 'clearOpen'],
          },
        ],
        utterance_end: [
          {
            guard: { type: 'endIs', params: 'invalid' },
            actions: { type: 'deliver', params: endRefusals.invalid },
          },
          {
            guard: { type: 'endIs', params: 'accepted' },
            target: 'none',
            actions: ['endUtterance', 'clearOpen'],
          },
          {
            target: 'none',
            actions: [{ type: 'abandonUtterance', params: endRefusals.abandon }, 'clearOpen'],
          },
        ],
        cancel: {
          target: 'none',
          actions: [{ type: 'abandonUtterance', params: undefined }, 'clearOpen'],
        },
        // Mute means mute: nothing that comes after the switch is heard or answered.
        'upload.muted': {
          target: 'none',
          actions: [{ type: 'abandonUtterance', params: partRefusals.muted }, 'clearOpen'],
        },
      },
    },
  },
});
