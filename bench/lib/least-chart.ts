import { assign, createActor, setup } from 'xstate';

/**
 * XState's least chart for a chat turn: two states and two events, each with an `assign` (`request`
 * enters `calling`, whose entry starts the call; `answer` goes back to `idle`, delivering it). What a
 * session of this chart costs over a plain function is what XState v5 itself costs a turn: the floor
 * the session actor's share is read against, over a socket (bench/peers/bridge-no-session.ts
 * `--session xstate`) and in one process (bench/session-cost.ts).
 *
 * `regions`: the same two states as one region of a parallel `open` whose other region (`upload`: `none`,
 * `streaming`) no turn enters, beside a final `closed`. XState builds every snapshot from all the active
 * states, so this shows what a region costs turns that never enter it (why the session's upload is a chart
 * of its own, src/actors/session/upload-machine.ts).
 */

/** The chart's effects, given by its user: make the call, deliver its answer. */
export interface LeastChartEffects<Answer> {
  call(audio: Uint8Array, answered: (answer: Answer) => void): void;
  deliver(turn: number, answer: Answer): void;
}

export type LeastChartShape = 'least' | 'regions';

type LeastChartEvent =
  | { type: 'request'; audio: Uint8Array }
  | { type: 'answer'; answer: unknown }
  | { type: 'utterance_start' };

const chartSetup = setup({
  types: {
    context: {} as {
      readonly turns: number;
      readonly audio: Uint8Array | undefined;
      readonly effects: LeastChartEffects<unknown>;
    },
    events: {} as LeastChartEvent,
    input: {} as { readonly effects: LeastChartEffects<unknown> },
  },
  actions: {
    admit: assign(({ context, event }) => ({
      turns: context.turns + 1,
      audio: event.type === 'request' ? event.audio : undefined,
    })),
    startCall: ({ context, self }) => {
      if (context.audio === undefined) return;
      context.effects.call(context.audio, (answer) => {
        self.send({ type: 'answer', answer });
      });
    },
    deliver: ({ context, event }) => {
      if (event.type === 'answer') context.effects.deliver(context.turns, event.answer);
    },
    settle: assign({ audio: undefined }),
  },
});

const turnStates = {
  initial: 'idle',
  states: {
    idle: { on: { request: { target: 'calling', actions: 'admit' } } },
    calling: {
      entry: 'startCall',
      on: { answer: { target: 'idle', actions: ['deliver', 'settle'] } },
    },
  },
} as const;

const context = ({ input }: { input: { readonly effects: LeastChartEffects<unknown> } }) => ({
  turns: 0,
  audio: undefined,
  effects: input.effects,
});

const leastChart = chartSetup.createMachine({ context, ...turnStates });

const regionsChart = chartSetup.createMachine({
  context,
  initial: 'open',
  states: {
    open: {
      type: 'parallel',
      states: {
        upload: {
          initial: 'none',
          states: { none: { on: { utterance_start: 'streaming' } }, streaming: {} },
        },
        calls: turnStates,
      },
    },
    closed: { type: 'final' },
  },
});

/** A started chart: one `request` event a turn. */
export interface LeastChartActor {
  send(event: { readonly type: 'request'; readonly audio: Uint8Array }): void;
}

/** A started actor of the least chart (or of its `regions` shape); send it `request` events. */
export const startLeastChart = <Answer>(
  effects: LeastChartEffects<Answer>,
  shape: LeastChartShape = 'least',
): LeastChartActor => {
  const input = { effects: effects as LeastChartEffects<unknown> };
  return shape === 'least'
    ? createActor(leastChart, { input }).start()
    : createActor(regionsChart, { input }).start();
};
