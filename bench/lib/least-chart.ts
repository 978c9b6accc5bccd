import { assign, createActor, setup, type Actor } from 'xstate';

/**
 * XState's least chart for a chat turn: two states and two events, each with an `assign` (`request`
 * enters `calling`, whose entry starts the call; `answer` goes back to `idle`, delivering it). What a
 * session of this chart costs over a plain function is what XState v5 itself costs a turn: the floor
 * the session actor's share is read against (bench/peers/bridge-no-session.ts `--session xstate`).
 */

/** The chart's effects, given by its user: make the call, deliver its answer. */
export interface LeastChartEffects<Answer> {
  call(audio: Uint8Array, answered: (answer: Answer) => void): void;
  deliver(turn: number, answer: Answer): void;
}

type LeastChartEvent = { type: 'request'; audio: Uint8Array } | { type: 'answer'; answer: unknown };

const leastChart = setup({
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
}).createMachine({
  context: ({ input }) => ({ turns: 0, audio: undefined, effects: input.effects }),
  initial: 'idle',
  states: {
    idle: { on: { request: { target: 'calling', actions: 'admit' } } },
    calling: {
      entry: 'startCall',
      on: { answer: { target: 'idle', actions: ['deliver', 'settle'] } },
    },
  },
});

/** A started actor of the least chart; send it `request` events. */
export const startLeastChart = <Answer>(effects: LeastChartEffects<Answer>): Actor<typeof leastChart> =>
  createActor(leastChart, { input: { effects } }).start();
