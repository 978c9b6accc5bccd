/**
 * Fan-out load client, one process of several, forked by the harness: holds many idle kiosk sessions and,
 * per round, notes when each one has the complete /play_audio pair (the `audio` metadata, then the binary
 * frame with the same message id). Times are CLOCK_MONOTONIC (process.hrtime), shared by all processes.
 */
import WebSocket from 'ws';
import type { FanoutCommand, FanoutReply } from './protocol.js';
import { zeroMask } from './protocol.js';

const reply = (message: FanoutReply): void => {
  process.send?.(message);
};

interface Kiosk {
  readonly socket: WebSocket;
  /** messageId of the `audio` metadata frame waiting for its binary frame. */
  pendingMeta: number | undefined;
  /** Whether this kiosk already completed the current round. */
  done: boolean;
}

const kiosks: Kiosk[] = [];
const MAX_PROBLEMS = 5;

interface Round {
  readonly round: number;
  readonly audioBytes: number;
  readonly expected: number;
  complete: number;
  first: bigint;
  last: bigint;
  readonly problems: string[];
  readonly timer: NodeJS.Timeout;
}
let round: Round | undefined;

const finishRound = (): void => {
  const current = round;
  if (current === undefined) return;
  round = undefined;
  clearTimeout(current.timer);
  reply({
    type: 'received',
    round: current.round,
    complete: current.complete,
    expected: current.expected,
    first: String(current.first),
    last: String(current.last),
    problems: current.problems,
  });
};

const problem = (text: string): void => {
  if (round !== undefined && round.problems.length < MAX_PROBLEMS) round.problems.push(text);
};

const onFrame = (kiosk: Kiosk, data: Buffer, isBinary: boolean): void => {
  const now = process.hrtime.bigint();
  if (!isBinary) {
    const message = JSON.parse(data.toString('utf8')) as { type?: string; messageId?: number };
    if (message.type === 'audio') kiosk.pendingMeta = message.messageId;
    return;
  }
  const current = round;
  const metaId = kiosk.pendingMeta;
  kiosk.pendingMeta = undefined;
  if (current === undefined || kiosk.done) return;
  const messageId = data.byteLength >= 4 ? data.readUInt32BE(0) : -1;
  if (metaId !== messageId) problem(`binary frame ${messageId} after metadata ${metaId}`);
  else if (data.byteLength !== 4 + current.audioBytes) problem(`binary frame of ${data.byteLength} bytes`);
  else {
    kiosk.done = true;
    if (current.complete === 0) current.first = now;
    current.complete += 1;
    current.last = now;
    if (current.complete === current.expected) finishRound();
  }
};

const openKiosk = (url: string, expectGreeting: boolean): Promise<Kiosk> =>
  new Promise((resolve, reject) => {
    const socket = new WebSocket(url, {
      perMessageDeflate: false,
      skipUTF8Validation: true,
      generateMask: zeroMask,
      handshakeTimeout: 10_000,
    });
    const kiosk: Kiosk = { socket, pendingMeta: undefined, done: false };
    let greeted = !expectGreeting;
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      if (!greeted) {
        greeted = true;
        resolve(kiosk);
        return;
      }
      onFrame(kiosk, data, isBinary);
    });
    socket.once('open', () => {
      if (greeted) resolve(kiosk);
    });
    socket.once('error', reject);
    socket.once('close', (code) => {
      const index = kiosks.indexOf(kiosk);
      if (index !== -1) kiosks.splice(index, 1);
      if (!greeted) reject(new Error(`closed with ${code} before the greeting`));
    });
  });

/** Opens `count` sessions, at most 50 handshakes at a time. */
const connectMany = async (url: string, count: number, expectGreeting: boolean): Promise<void> => {
  let remaining = count;
  const worker = async () => {
    while (remaining > 0) {
      remaining -= 1;
      kiosks.push(await openKiosk(url, expectGreeting));
    }
  };
  await Promise.all(Array.from({ length: Math.min(50, count) }, worker));
};

const closeMany = async (count: number): Promise<void> => {
  const closing = kiosks.splice(Math.max(0, kiosks.length - count), count);
  await Promise.all(
    closing.map(
      (kiosk) =>
        new Promise<void>((resolve) => {
          kiosk.socket.once('close', () => {
            resolve();
          });
          kiosk.socket.close();
          setTimeout(() => {
            kiosk.socket.terminate();
            resolve();
          }, 2_000).unref();
        }),
    ),
  );
};

let cpuStart: NodeJS.CpuUsage | undefined;
let cpuStartedAt = 0;

const handle = async (command: FanoutCommand): Promise<void> => {
  switch (command.cmd) {
    case 'connect':
      await connectMany(command.url, command.count, command.expectGreeting);
      reply({ type: 'connected', open: kiosks.length });
      return;
    case 'close':
      await closeMany(command.count);
      reply({ type: 'closed', open: kiosks.length });
      return;
    case 'expect': {
      for (const kiosk of kiosks) kiosk.done = false;
      round = {
        round: command.round,
        audioBytes: command.audioBytes,
        expected: kiosks.length,
        complete: 0,
        first: 0n,
        last: 0n,
        problems: [],
        timer: setTimeout(finishRound, command.timeoutMs),
      };
      reply({ type: 'armed', round: command.round });
      return;
    }
    case 'cpu-start':
      cpuStart = process.cpuUsage();
      cpuStartedAt = performance.now();
      reply({ type: 'cpu', cpuPercent: 0 });
      return;
    case 'cpu-stop': {
      const used = process.cpuUsage(cpuStart);
      const wall = performance.now() - cpuStartedAt;
      reply({ type: 'cpu', cpuPercent: ((used.user + used.system) / 1000 / wall) * 100 });
      return;
    }
    case 'exit':
      for (const kiosk of kiosks) kiosk.socket.terminate();
      process.disconnect();
      return;
  }
};

process.on('message', (command: FanoutCommand) => {
  handle(command).catch((error: unknown) => {
    reply({ type: 'error', message: String(error) });
  });
});
