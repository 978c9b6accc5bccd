/**
 * `npm run perimeter [-- --only 2,3,4,5] [--service FILE]`: the probes of what one connection, or a
 * handful of addresses, may hold, run from outside against the built service on the simulated robot with
 * its default limits, started through docker/node-runtime.sh as the image starts it. Each probe runs while a second process samples `GET /health` every 20 ms and an
 * honest kiosk's round trip (`clear_history` → `ack`) every 50 ms, and this process reads the service's
 * RSS every 100 ms. It prints, for each probe, the samplers' p99 and worst, RSS at idle, its peak, and
 * 10 s and 30 s after the probe ends, and what the probe itself saw.
 *
 * Probes (the numbers of issue 51's list): 2, one connection pipelining 10,000 `GET /assets/kiosk.js` and
 * never reading; 3, 100 kiosks of which 80 never read, sent 20 × 1 MiB of `/play_audio`; 4, 100 sessions
 * from 4 addresses holding streamed utterances open at real time while an honest kiosk takes 10 turns;
 * 5, a 1 MiB `/play_audio` to 1,000 kiosks. Everything is on loopback; every loop is bounded.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { wavOfPcmParts } from '../src/protocol/ws/index.js';

const MiB = 1024 * 1024;
const HERE = fileURLToPath(import.meta.url);

interface Latencies {
  readonly count: number;
  readonly failed: number;
  readonly p50: number;
  readonly p99: number;
  readonly worst: number;
}

const summarise = (samples: readonly number[], failed: number): Latencies => {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  return { count: sorted.length, failed, p50: at(0.5), p99: at(0.99), worst: sorted.at(-1) ?? Number.NaN };
};

// ---------------------------------------------------------------------------------------------------
// The sampler: a process of its own, so the probes' clients do not delay what it measures.

const runSampler = async (base: string): Promise<void> => {
  const health: number[] = [];
  const kiosk: number[] = [];
  let healthFailed = 0;
  let kioskFailed = 0;
  const run = { stopping: false };
  process.on('message', (message) => {
    if (message === 'stop') run.stopping = true;
  });

  const healthLoop = async () => {
    while (!run.stopping) {
      const started = performance.now();
      try {
        const answer = await fetch(`${base}/health`, { signal: AbortSignal.timeout(5_000) });
        await answer.arrayBuffer();
        if (answer.ok) health.push(performance.now() - started);
        else healthFailed += 1;
      } catch {
        healthFailed += 1;
      }
      await sleep(20);
    }
  };

  const kioskLoop = async () => {
    const socket = new WebSocket(`${base.replace('http', 'ws')}/ws`, { localAddress: '127.0.0.250' });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => {
        resolve();
      });
      socket.once('error', reject);
    });
    let waiting: (() => void) | undefined;
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      if (isBinary) return;
      const message = JSON.parse(data.toString('utf8')) as { type?: string; service?: string };
      if (message.type === 'ack' && message.service === 'clear_history') waiting?.();
    });
    process.send?.('ready');
    while (!run.stopping) {
      const started = performance.now();
      const acked = new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          resolve(false);
        }, 5_000);
        waiting = () => {
          clearTimeout(timer);
          resolve(true);
        };
      });
      socket.send('{"service":"clear_history"}');
      if (await acked) kiosk.push(performance.now() - started);
      else kioskFailed += 1;
      await sleep(50);
    }
    socket.close();
  };

  await Promise.all([healthLoop(), kioskLoop()]);
  process.send?.({ health: summarise(health, healthFailed), kiosk: summarise(kiosk, kioskFailed) });
  process.disconnect();
};

// ---------------------------------------------------------------------------------------------------
// The service and its memory.

const rssMiB = (pid: number): number => {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${String(pid)}/status`, 'utf8'));
  return Number(match?.[1] ?? Number.NaN) / 1024;
};

const startService = async (serverJs: string): Promise<{ child: ChildProcess; base: string }> => {
  // Started as the image and `npm start` start it: through the launcher that names its Node.js flags and
  // environment (it execs the `node` first on PATH, this one).
  const child = spawn(
    'sh',
    [
      'docker/node-runtime.sh',
      serverJs,
      '--backend',
      'sim',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--log_level',
      'info',
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env['PATH'] ?? ''}` },
    },
  );
  const base = await new Promise<string>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => {
      reject(new Error('the service did not say its port within 20 s'));
    }, 20_000);
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const match = /"port":(\d+)/.exec(text) ?? /127\.0\.0\.1:(\d+)/.exec(text);
      if (match !== null) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${match[1] ?? ''}`);
      }
    });
    child.once('exit', (code) => {
      reject(new Error(`the service exited (${String(code)})`));
    });
  });
  child.stdout.resume();
  return { child, base };
};

// ---------------------------------------------------------------------------------------------------
// Clients.

interface Kiosk {
  readonly socket: WebSocket;
  readonly texts: { type?: string; turn?: number; outcome?: string }[];
  closed: number | undefined;
}

const openKiosk = (base: string, localAddress: string): Promise<Kiosk | undefined> =>
  new Promise((resolve) => {
    const socket = new WebSocket(`${base.replace('http', 'ws')}/ws`, {
      localAddress,
      handshakeTimeout: 10_000,
    });
    const kiosk: Kiosk = { socket, texts: [], closed: undefined };
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      if (!isBinary && kiosk.texts.length < 10_000)
        kiosk.texts.push(JSON.parse(data.toString('utf8')) as Kiosk['texts'][number]);
    });
    socket.on('close', (code) => {
      kiosk.closed = code;
    });
    socket.once('open', () => {
      resolve(kiosk);
    });
    socket.once('error', () => {
      resolve(undefined);
    });
    socket.once('unexpected-response', () => {
      resolve(undefined);
    });
  });

/** Opens kiosks `count` at a time, so the handshakes themselves are not the probe. */
const openKiosks = async (base: string, addresses: readonly string[], batch = 50): Promise<Kiosk[]> => {
  const kiosks: Kiosk[] = [];
  for (let start = 0; start < addresses.length; start += batch) {
    const opened = await Promise.all(addresses.slice(start, start + batch).map((a) => openKiosk(base, a)));
    for (const kiosk of opened) if (kiosk !== undefined) kiosks.push(kiosk);
  }
  return kiosks;
};

const isOpen = (kiosk: Kiosk): boolean => kiosk.closed === undefined;

/** A kiosk that stops reading: its socket is paused, so the service's writes to it back up. */
const stopReading = (kiosk: Kiosk): void => {
  (kiosk.socket as unknown as { _socket: { pause(): void } })._socket.pause();
};

const closeAll = (kiosks: readonly Kiosk[]): void => {
  for (const kiosk of kiosks) kiosk.socket.terminate();
};

const playAudio = async (base: string, audio: Buffer): Promise<number> => {
  const answer = await fetch(`${base}/sim/play_audio`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ emotion: 'happy', text: 'probe', audio: audio.toString('base64') }),
    signal: AbortSignal.timeout(60_000),
  });
  await answer.arrayBuffer();
  return answer.status;
};

/** `count` loopback addresses from 127.<third>.1.1 on, each `perAddress` times. */
const addresses = (third: number, count: number, perAddress = 1): string[] =>
  Array.from({ length: count * perAddress }, (_, i) => {
    const n = Math.floor(i / perAddress);
    return `127.${String(third + Math.floor(n / 250))}.${String(1 + (n % 250))}.1`;
  });

// ---------------------------------------------------------------------------------------------------
// The probes: each returns what it saw, in words.

const probes: Record<string, { title: string; run: (base: string) => Promise<string> }> = {
  '2': {
    title: 'one connection pipelines 10,000 GET /assets/kiosk.js and never reads',
    run: async (base) => {
      const port = Number(new URL(base).port);
      const socket = connect({ host: '127.0.0.1', port, localAddress: '127.0.0.2' });
      await new Promise<void>((resolve, reject) => {
        socket.once('connect', () => {
          resolve();
        });
        socket.once('error', reject);
      });
      socket.pause();
      let closedAfterMs: number | undefined;
      const started = performance.now();
      socket.on('close', () => {
        closedAfterMs = performance.now() - started;
      });
      socket.on('error', () => undefined);
      socket.write('GET /assets/kiosk.js HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'.repeat(10_000));
      for (let i = 0; i < 150 && closedAfterMs === undefined; i += 1) await sleep(100);
      socket.destroy();
      return closedAfterMs === undefined
        ? 'the connection was still open after 15 s'
        : `the service closed the connection after ${closedAfterMs.toFixed(0)} ms`;
    },
  },
  '3': {
    title: '100 kiosks, 80 never read, 20 × 1 MiB /play_audio',
    run: async (base) => {
      const kiosks = await openKiosks(base, addresses(3, 10, 10));
      kiosks.slice(0, 80).forEach(stopReading);
      const audio = randomBytes(MiB);
      const statuses: number[] = [];
      for (let i = 0; i < 20; i += 1) statuses.push(await playAudio(base, audio));
      await sleep(5_000);
      const told = kiosks.slice(80).filter((k) => k.texts.some((t) => t.type === 'audio')).length;
      const cut = kiosks.filter((k) => k.closed !== undefined).length;
      closeAll(kiosks);
      return `${String(kiosks.length)} kiosks open; publishes answered ${[...new Set(statuses)].join(',')}; ${String(told)} of the 20 readers got audio; ${String(cut)} closed by the service`;
    },
  },
  '4': {
    title: '100 sessions from 4 addresses hold streamed utterances open; an honest kiosk takes 10 turns',
    run: async (base) => {
      const attackers = await openKiosks(base, addresses(4, 4, 25));
      const attack = { stopping: false };
      const attacking = (): boolean => !attack.stopping;
      const part = (turn: number, sequence: number) => {
        const frame = Buffer.alloc(8 + 3_200, 1);
        frame.writeUInt32BE(turn, 0);
        frame.writeUInt32BE(sequence, 4);
        return frame;
      };
      // Each attacker opens an utterance and streams real-time audio into it, opening a new one as soon
      // as the service ends the last.
      const holds = attackers.map(async (kiosk) => {
        let turn = 0;
        for (let round = 0; round < 20 && attacking() && isOpen(kiosk); round += 1) {
          turn += 1;
          const ended = kiosk.texts.length;
          kiosk.socket.send('{"service":"utterance_start"}');
          for (let sequence = 0; sequence < 700 && attacking() && isOpen(kiosk); sequence += 1) {
            if (kiosk.texts.slice(ended).some((t) => t.type === 'turn_end')) break;
            kiosk.socket.send(part(turn, sequence));
            await sleep(100);
          }
        }
      });
      await sleep(2_000);
      const admitted = attackers.filter((k) => k.closed === undefined).length;
      const honest = await openKiosk(base, '127.0.9.1');
      let answered = 0;
      const outcomes: string[] = [];
      if (honest !== undefined) {
        for (let turn = 1; turn <= 10; turn += 1) {
          const seen = honest.texts.length;
          honest.socket.send(wavOfPcmParts([Buffer.alloc(32_000, 1)]));
          let outcome: string | undefined;
          for (let i = 0; i < 300 && outcome === undefined; i += 1) {
            outcome = honest.texts.slice(seen).find((t) => t.type === 'turn_end')?.outcome;
            if (outcome === undefined) await sleep(50);
          }
          outcomes.push(outcome ?? 'none in 15 s');
          if (outcome === 'answered') answered += 1;
          await sleep(1_000);
        }
        honest.socket.close();
      }
      attack.stopping = true;
      await Promise.all(holds);
      const open = attackers.filter((k) => k.closed === undefined).length;
      closeAll(attackers);
      return `${String(admitted)} of 100 attacking sessions admitted (${String(open)} still open at the end); honest kiosk: ${String(answered)} of 10 answered (${[...new Set(outcomes)].join(', ')})`;
    },
  },
  '5': {
    title: 'a 1 MiB /play_audio to 1,000 kiosks',
    run: async (base) => {
      const kiosks = await openKiosks(base, addresses(5, 999));
      const started = performance.now();
      const status = await playAudio(base, randomBytes(MiB));
      const publishMs = performance.now() - started;
      for (let i = 0; i < 300; i += 1) {
        if (kiosks.every((k) => k.closed !== undefined || k.texts.some((t) => t.type === 'audio'))) break;
        await sleep(100);
      }
      const got = kiosks.filter((k) => k.texts.some((t) => t.type === 'audio')).length;
      closeAll(kiosks);
      return `${String(kiosks.length + 1)} kiosks (with the sampler's); publish answered ${String(status)} in ${publishMs.toFixed(0)} ms; ${String(got)} of ${String(kiosks.length)} got the audio`;
    },
  },
};

// ---------------------------------------------------------------------------------------------------

const fmt = (l: Latencies) =>
  `p50 ${l.p50.toFixed(1)} p99 ${l.p99.toFixed(1)} worst ${l.worst.toFixed(1)} ms (${String(l.count)} samples, ${String(l.failed)} failed)`;

const main = async (): Promise<void> => {
  const args = process.argv.slice(2);
  const only = (args[args.indexOf('--only') + 1] ?? '2,3,4,5').split(',');
  const serviceIndex = args.indexOf('--service');
  const serverJs = serviceIndex >= 0 ? (args[serviceIndex + 1] ?? '') : 'dist/src/server.js';
  console.log(
    `perimeter: ${serverJs}, Node.js ${process.version}, load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
  );

  for (const id of only) {
    const probe = probes[id];
    if (probe === undefined) throw new Error(`no probe ${id}; probes: ${Object.keys(probes).join(', ')}`);
    const { child, base } = await startService(serverJs);
    const pid = child.pid ?? 0;
    try {
      await fetch(`${base}/assets/kiosk.js`).then((r) => r.arrayBuffer());
      await sleep(2_000);
      const idle = rssMiB(pid);
      const sampler = fork(HERE, ['--sampler', base], { execArgv: process.execArgv });
      await new Promise<void>((resolve) =>
        sampler.once('message', () => {
          resolve();
        }),
      );
      let peak = idle;
      const reading = setInterval(() => {
        peak = Math.max(peak, rssMiB(pid));
      }, 100);
      await sleep(1_000);
      const saw = await probe.run(base);
      const stats = new Promise<{ health: Latencies; kiosk: Latencies }>((resolve) =>
        sampler.once('message', (message) => {
          resolve(message as { health: Latencies; kiosk: Latencies });
        }),
      );
      sampler.send('stop');
      const { health, kiosk } = await stats;
      await sleep(10_000);
      const after = rssMiB(pid);
      await sleep(20_000);
      clearInterval(reading);
      const later = rssMiB(pid);
      console.log(`\nprobe ${id}: ${probe.title}`);
      console.log(`  saw: ${saw}`);
      console.log(`  /health: ${fmt(health)}`);
      console.log(`  kiosk round trip: ${fmt(kiosk)}`);
      console.log(
        `  RSS: idle ${idle.toFixed(1)}, peak ${peak.toFixed(1)} (+${(peak - idle).toFixed(1)}), 10 s after ${after.toFixed(1)} (+${(after - idle).toFixed(1)}), 30 s after ${later.toFixed(1)} (+${(later - idle).toFixed(1)}) MiB`,
      );
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  }
};

if (process.argv[2] === '--sampler') await runSampler(process.argv[3] ?? '');
else await main();
