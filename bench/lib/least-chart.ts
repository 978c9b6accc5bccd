import { assign, createActor, fromCallback, setup } from 'xstate';

/**
 * XState's least chart for a chat turn: two states and two events, each with an `assign` (`request`
 * enters `calling`, whose entry starts the call; `answer` goes back to `idle`, delivering it). What a
 * session of this chart costs over a plain function is what XState v5 itself costs a turn: the floor
 * the session actor's share is read against, over a socket (bench/peers/bridge-no-session.ts
 * `--session xstate`) and in one process (bench/session-cost.ts).
 *
 * `invoke`: the same two states, `calling` invoking the call (`fromCallback`, stopped by leaving the state)
 * instead of starting it on entry: the shape of the session's own `calling` (session-machine.ts).
 *
 * `regions`: the same two states as one region of a parallel `open` whose other region (`upload`: `none`,
 * `streaming`) no turn enters, beside a final `closed`. XState builds every snapshot from all the active
 * states, so this shows what a region costs turns that never enter it (the session's upload is a chart of
 * its own, its invoked child, src/actors/session/upload-machine.ts).
 */

/** The chart's effects, given by its user: make the call, deliver its answer. */
export interface LeastChartEffects<Answer> {
  call(audio: Uint8Array, answered: (answer: Answer) => void): void;
  deliver(turn: number, answer: Answer): void;
}

export type LeastChartShape = 'least' | 'invoke' | 'regions';

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
  actors: {
    call: fromCallback<LeastChartEvent, { audio: Uint8Array; effects: LeastChartEffects<unknown> }>(
      ({ input, sendBack }) => {
        input.effects.call(input.audio, (answer) => {
          sendBack({ type: 'answer', answer });
        });
      },
    ),
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

const invokeChart = chartSetup.createMachine({
  context,
  initial: 'idle',
  states: {
    idle: { on: { request: { target: 'calling', actions: 'admit' } } },
    calling: {
      invoke: {
        src: 'call',
        input: ({ context }) => ({ audio: context.audio ?? new Uint8Array(0), effects: context.effects }),
      },
      on: { answer: { target: 'idle', actions: ['deliver', 'settle'] } },
    },
  },
});

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

/** A started actor of the least chart (or of its `invoke` or `regions` shape); send it `request` events. */
export const startLeastChart = <Answer>(
  effects: LeastChartEffects<Answer>,
  shape: LeastChartShape = 'least',
): LeastChartActor => {
  const input = { effects: effects as LeastChartEffects<unknown> };
  if (shape === 'least') return createActor(leastChart, { input }).start();
  if (shape === 'invoke') return createActor(invokeChart, { input }).start();
  return createActor(regionsChart, { input }).start();
};
