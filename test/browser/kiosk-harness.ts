import { after, before } from 'node:test';
import type { Page } from 'playwright-core';
import { watchAudio } from './audio-log.js';
import { launchBrowser, watchPage, type Browser } from './browser.js';
import { pagePoller } from './page-poller.js';
import type { RosPort, RosRequest } from '../../src/ros/port/ros-port.js';
import type { UtteranceAudioMsg } from '../../src/ros/port/ros-messages.js';
import {
  createSimBackend,
  type SimBackend,
  type SimBackendOptions,
} from '../../src/robot/sim/sim-backend.js';
import { encodeWav } from '../../web/src/wav.js';
import type { ProbeSnapshot } from '../../web/src/probe.js';
import { sendJson } from '../support/http.js';
import { ListenError } from '../../src/transport/uws-app.js';
import { startTestService, type TestService } from '../support/test-service.js';

/** The service on the simulation, recording the audio of every /chat call the kiosk causes. */
export interface KioskService extends TestService {
  readonly sim: SimBackend;
  /** Audio of each /chat request, in order: exactly the bytes the kiosk sent. */
  readonly chats: Uint8Array[];
  /**
   * Every /utterance/audio event the bridge published (a streamed utterance's parts, its end or
   * abandonment), with when (Date.now()).
   */
  readonly utteranceAudio: { readonly at: number; readonly message: UtteranceAudioMsg }[];
  playAudio(message: { emotion: string; text: string; audio: Uint8Array }): Promise<void>;
  setMicrophone(enabled: boolean): Promise<void>;
}

/**
 * `overrides`: more command-line options for the service (flag name without dashes → value); `simOptions`:
 * the simulation's (the service here runs on this simulation, not one it builds from its options).
 */
export const startKioskService = async (
  port = 0,
  overrides: Record<string, string> = {},
  simOptions: SimBackendOptions = {},
): Promise<KioskService> => {
  const sim = createSimBackend(simOptions);
  const chats: Uint8Array[] = [];
  const utteranceAudio: { at: number; message: UtteranceAudioMsg }[] = [];
  const spied: RosPort = {
    ...sim,
    call: (service, request, handler) => {
      if (service === 'chat') chats.push((request as RosRequest<'chat'>).audio);
      return sim.call(service, request, handler);
    },
    publishUtteranceAudio: (message) => {
      utteranceAudio.push({ at: Date.now(), message: { ...message, audio: message.audio.slice() } });
      sim.publishUtteranceAudio(message);
    },
  };
  const running = await startTestService(spied, {
    sim: sim.sim,
    overrides: { ...overrides, port: String(port) },
  });
  const post = async (path: string, body: unknown) => {
    const result = await sendJson(running.baseUrl, 'POST', path, body);
    if (result.status !== 200) throw new Error(`${path} answered ${result.status}: ${result.text}`);
  };
  return {
    ...running,
    sim,
    chats,
    utteranceAudio,
    playAudio: ({ emotion, text, audio }) =>
      post('/sim/play_audio', { emotion, text, audio: Buffer.from(audio).toString('base64') }),
    setMicrophone: (enabled) => post('/sim/microphone', { enabled }),
  };
};

/**
 * A kiosk service and a Chromium shared by the tests of one describe block: started before them, stopped
 * after them. Read its fields inside the tests (they are set when the block starts). `overrides` and
 * `simOptions` are startKioskService's.
 */
export const kioskServiceAndBrowser = (
  overrides: Record<string, string> = {},
  simOptions: SimBackendOptions = {},
): { readonly service: KioskService; readonly browser: Browser } => {
  const shared = {} as { service: KioskService; browser: Browser };
  before(async () => {
    shared.service = await startKioskService(0, overrides, simOptions);
    shared.browser = await launchBrowser();
  });
  after(async () => {
    await shared.browser.close();
    await shared.service.stop();
  });
  return shared;
};

/**
 * Starts the service again on `port`, retrying while the port is still taken. The uWebSockets.js build
 * binds without SO_REUSEADDR, so the connections the stopped service closed itself keep the port in
 * TIME_WAIT for Linux's fixed 60 s; a restarted service (tests or a robot) waits that out. Bounded.
 */
export const restartKioskService = async (port: number, timeoutMs = 90_000): Promise<KioskService> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await startKioskService(port);
    } catch (error) {
      if (!(error instanceof ListenError) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
};

/** A sine tone as 16 kHz 16-bit mono WAV, made with the kiosk's own encoder. */
export const toneWav = (ms: number, frequency = 440): Uint8Array => {
  const samples = Int16Array.from({ length: Math.round((16_000 * ms) / 1000) }, (_, index) =>
    Math.round(8_000 * Math.sin((2 * Math.PI * frequency * index) / 16_000)),
  );
  return new Uint8Array(encodeWav(samples));
};

export interface WavInfo {
  readonly format: number;
  readonly channels: number;
  readonly sampleRate: number;
  readonly bitsPerSample: number;
  readonly samples: Int16Array;
}

/** Reads a canonical 44-byte-header PCM WAV, checking its chunk sizes against the real length. */
export const parseWav = (bytes: Uint8Array): WavInfo => {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (data.toString('ascii', 0, 4) !== 'RIFF' || data.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error('not a RIFF/WAVE file');
  }
  if (data.readUInt32LE(4) !== data.byteLength - 8) throw new Error('RIFF size does not match the file');
  if (data.toString('ascii', 12, 16) !== 'fmt ' || data.toString('ascii', 36, 40) !== 'data') {
    throw new Error('not the canonical fmt/data layout');
  }
  const dataBytes = data.readUInt32LE(40);
  if (dataBytes !== data.byteLength - 44) throw new Error('data size does not match the file');
  const samples = new Int16Array(dataBytes / 2);
  for (let index = 0; index < samples.length; index += 1) samples[index] = data.readInt16LE(44 + index * 2);
  return {
    format: data.readUInt16LE(20),
    channels: data.readUInt16LE(22),
    sampleRate: data.readUInt32LE(24),
    bitsPerSample: data.readUInt16LE(34),
    samples,
  };
};

export type KioskSnapshot = ProbeSnapshot & {
  readonly page: Record<string, string>;
  /** The player now: the audio clock (s), sources scheduled or playing, whether anything plays or waits. */
  readonly audio: { readonly clock: number; readonly liveSources: number; readonly busy: boolean };
};

export const snapshot = (page: Page): Promise<KioskSnapshot> =>
  // globalThis is the page's window there (this file is compiled without the DOM library).
  page.evaluate(() =>
    (globalThis as unknown as { tourKiosk: { snapshot(): KioskSnapshot } }).tourKiosk.snapshot(),
  );

/** Polls the kiosk's record until `condition` holds; bounded by `timeoutMs`. */
export const waitForSnapshot = pagePoller(
  snapshot,
  50,
  (what, timeoutMs, last) =>
    `timed out after ${timeoutMs} ms waiting for ${what}; kiosk: ${JSON.stringify(last)}`,
);

/** Holds the push-to-talk button down with the mouse for `ms`. */
/** Presses the talk button with the mouse and keeps it down: `page.mouse.up()` lets go. */
export const pressTalkButton = async (page: Page): Promise<void> => {
  const box = await page.locator('#talk').boundingBox();
  if (box === null) throw new Error('the talk button is not visible');
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
};

export const holdTalkButton = async (page: Page, ms: number): Promise<void> => {
  await pressTalkButton(page);
  await page.waitForTimeout(ms);
  await page.mouse.up();
};

/** Opens the kiosk settings as an operator does: a long press (2 s) on the robot's face. */
export const openSettings = async (page: Page): Promise<void> => {
  const box = await page.locator('#face').boundingBox();
  if (box === null) throw new Error('the face is not visible');
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  try {
    await page.locator('#settings').waitFor({ state: 'visible', timeout: 5_000 });
  } finally {
    await page.mouse.up();
  }
};

/**
 * Opens the kiosk page and waits until it is online with the microphone on; with `watchingAudio`, the
 * page's Web Audio calls are logged from before its own script runs (audio-log.ts). `beforeLoad` runs on
 * the new page before it loads (and is awaited), for a test's own watchers and init scripts; `query` is the page address's (`?upload=whole`).
 */
export const openKiosk = async (
  browser: Browser,
  service: KioskService,
  {
    watchingAudio = false,
    beforeLoad,
    query = '',
  }: {
    readonly watchingAudio?: boolean;
    readonly beforeLoad?: (page: Page) => unknown;
    readonly query?: string;
  } = {},
): Promise<{ page: Page; problems: string[] }> => {
  const page = await browser.newPage();
  const problems = watchPage(page);
  // Awaited: an init script must be installed before the page loads, or the page may load without it.
  await beforeLoad?.(page);
  if (watchingAudio) await watchAudio(page);
  await page.goto(`${service.baseUrl}/${query}`);
  await page.locator('body[data-connection="online"][data-microphone="enabled"]').waitFor();
  return { page, problems };
};
