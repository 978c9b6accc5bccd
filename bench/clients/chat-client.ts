/**
 * Chat round-trip load client, one process, forked by the harness. Each session sends one binary frame,
 * waits for the complete answer (a text frame, then a binary frame of the same size plus the server's
 * header) and sends the next: closed loop, one frame in flight per session. The sessions connect and warm
 * up once, then run one measured slice per `go`, staying connected in between.
 */
import WebSocket from 'ws';
import type { ChatGo, ChatReady, ChatResult, ChatRunCommand } from './protocol.js';
import { MAX_CHAT_SLICES, zeroMask } from './protocol.js';

const reply = (message: ChatReady | ChatResult): Promise<void> =>
  new Promise((resolve) => {
    process.send?.(message, () => {
      resolve();
    });
  });

interface Session {
  readonly socket: WebSocket;
  /** Resolves on the next complete answer (text then binary), with the binary frame's size. */
  nextAnswer(): Promise<number>;
}

const connect = (command: ChatRunCommand): Promise<Session> =>
  new Promise((resolve, reject) => {
    const socket = new WebSocket(command.url, {
      perMessageDeflate: false,
      skipUTF8Validation: true,
      generateMask: zeroMask,
      handshakeTimeout: 10_000,
      maxPayload: 64 * 1024 * 1024,
    });
    let greeted = !command.expectGreeting;
    let sawText = false;
    let waiting: { resolve: (bytes: number) => void; reject: (error: Error) => void } | undefined;
    const session: Session = {
      socket,
      nextAnswer: () =>
        new Promise((resolveAnswer, rejectAnswer) => {
          waiting = { resolve: resolveAnswer, reject: rejectAnswer };
        }),
    };
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      if (!greeted) {
        greeted = true;
        resolve(session);
        return;
      }
      if (!isBinary) {
        sawText = true;
        return;
      }
      const current = waiting;
      waiting = undefined;
      if (current === undefined) return;
      if (!sawText) current.reject(new Error('binary frame without its metadata frame'));
      else current.resolve(data.byteLength);
      sawText = false;
    });
    socket.once('open', () => {
      if (greeted) resolve(session);
    });
    socket.once('error', (error) => {
      reject(error);
      waiting?.reject(error);
    });
    socket.once('close', (code) => {
      waiting?.reject(new Error(`socket closed with ${code}`));
    });
  });

const runSession = async (
  session: Session,
  frame: Buffer,
  roundTrips: number,
  deadline: number,
  rtts: number[] | undefined,
): Promise<void> => {
  for (let index = 0; index < roundTrips && performance.now() < deadline; index += 1) {
    const started = performance.now();
    const answer = session.nextAnswer();
    session.socket.send(frame, { binary: true });
    const bytes = await answer;
    const elapsed = performance.now() - started;
    // The bridge prefixes a 4-byte message id; the peers echo the frame as it came.
    if (bytes < frame.byteLength)
      throw new Error(`answer of ${bytes} bytes to a ${frame.byteLength}-byte frame`);
    rtts?.push(elapsed);
  }
};

const main = async (command: ChatRunCommand): Promise<void> => {
  const sessions = await Promise.all(Array.from({ length: command.sessions }, () => connect(command)));
  const frame = Buffer.alloc(command.frameBytes, 0x5a);
  // Warm-up (JIT of server and client, socket buffers) before this process reports ready.
  const warmupDeadline = performance.now() + command.maxMs;
  await Promise.all(
    sessions.map((session) =>
      runSession(session, frame, command.warmupRoundTrips, warmupDeadline, undefined),
    ),
  );
  // Slices come one at a time: each `go` is answered before the harness sends the next.
  let pending: ((go: ChatGo) => void) | undefined;
  process.on('message', (message: Partial<ChatGo>) => {
    if (message.cmd === 'go' && typeof message.maxMs === 'number')
      pending?.({ cmd: 'go', maxMs: message.maxMs });
  });
  const nextGo = () =>
    new Promise<ChatGo>((resolve) => {
      pending = resolve;
    });
  let go = nextGo();
  await reply({ type: 'ready' });

  // The harness kills this process when it has its slices.
  for (let slice = 0; slice < MAX_CHAT_SLICES; slice += 1) {
    const { maxMs } = await go;
    go = nextGo();
    const errors: string[] = [];
    const rtts: number[] = [];
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const deadline = started + maxMs;
    const outcomes = await Promise.allSettled(
      sessions.map((session) => runSession(session, frame, command.roundTrips, deadline, rtts)),
    );
    const wallMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') errors.push(String(outcome.reason));
    }
    await reply({
      type: 'result',
      rtts,
      errors,
      cpuPercent: ((cpu.user + cpu.system) / 1000 / wallMs) * 100,
      wallMs,
    });
  }
  for (const session of sessions) session.socket.terminate();
  process.disconnect();
};

process.once('message', (command: ChatRunCommand) => {
  main(command).catch(async (error: unknown) => {
    await reply({ type: 'result', rtts: [], errors: [String(error)], cpuPercent: 0, wallMs: 0 });
    process.exit(1);
  });
});
