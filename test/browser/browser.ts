import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Dialog, type Page } from 'playwright-core';

/**
 * A real headless Chromium (Debian's package; test/browser/ensure-chromium.sh installs it) driven by
 * playwright-core, with a fresh profile each time. Fake media devices stand in for the microphone (a
 * generated beep) and grant permission without a prompt; audio may start without a gesture, as it does on
 * a kiosk configured for it.
 */
export const CHROMIUM = process.env['TOUR_BRIDGE_CHROMIUM'] ?? '/usr/bin/chromium';

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--use-fake-device-for-media-stream',
  '--use-fake-ui-for-media-stream',
  '--autoplay-policy=no-user-gesture-required',
];

export const VIEWPORT = { width: 1280, height: 800 };

export interface Browser {
  readonly context: BrowserContext;
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/** A phone (390×844) held by a finger: its primary pointer is coarse, it has touch and a mobile viewport. */
export const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } as const;

/**
 * The microphone the browser offers: the fake device, granted (`fake`); the fake device with every
 * permission prompt refused, as a visitor or a policy denying it (`denied`); no fake device, so only the
 * machine's own, which a test machine has none of (`none`).
 */
export type BrowserMicrophone = 'fake' | 'denied' | 'none';

const microphoneFlags = (microphone: BrowserMicrophone): string[] => {
  if (microphone === 'denied') {
    return CHROMIUM_FLAGS.filter((flag) => flag !== '--use-fake-ui-for-media-stream').concat(
      '--deny-permission-prompts',
    );
  }
  if (microphone === 'none') {
    return CHROMIUM_FLAGS.filter((flag) => flag !== '--use-fake-device-for-media-stream');
  }
  return [...CHROMIUM_FLAGS];
};

/**
 * `env`: the browser's environment instead of this process's; the TLS test gives it a HOME whose NSS
 * database trusts the test's CA, which is where Chromium on Linux looks for locally trusted roots.
 * `args`: flags beyond CHROMIUM_FLAGS. `microphone`: see BrowserMicrophone. `device`: a device to emulate
 * (PHONE) instead of a desktop window.
 */
export const launchBrowser = async (
  options: {
    env?: Record<string, string>;
    args?: readonly string[];
    microphone?: BrowserMicrophone;
    device?: typeof PHONE;
  } = {},
): Promise<Browser> => {
  const profile = mkdtempSync(join(tmpdir(), 'tour-bridge-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [...microphoneFlags(options.microphone ?? 'fake'), ...(options.args ?? [])],
    ...(options.env === undefined ? {} : { env: options.env }),
    viewport: VIEWPORT,
    ...options.device,
    timeout: 30_000,
  });
  context.setDefaultTimeout(10_000);
  return {
    context,
    newPage: () => context.newPage(),
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
};

/**
 * Problems the page reported: uncaught errors, console errors, requests that failed or left loopback.
 * Chrome logs every HTTP error answer to the console; those with a status the test provokes on purpose
 * (`expectedStatuses`) are not problems.
 */
export const watchPage = (page: Page, expectedStatuses: readonly number[] = []): string[] => {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const status = /the server responded with a status of (\d{3})/.exec(message.text())?.[1];
    if (status !== undefined && expectedStatuses.includes(Number(status))) return;
    problems.push(`console error: ${message.text()}`);
  });
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol !== 'data:' && url.hostname !== '127.0.0.1') {
      problems.push(`request off loopback: ${request.url()}`);
    }
  });
  page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`));
  return problems;
};

/** The next dialog the page opens (confirm, alert), answered with `answer`. Bounded: 5 s. */
export const nextDialog = (page: Page, answer: 'accept' | 'dismiss'): Promise<Dialog> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      page.off('dialog', onDialog);
      reject(new Error('no dialog within 5 s'));
    }, 5_000);
    const onDialog = (dialog: Dialog) => {
      clearTimeout(timer);
      void (answer === 'accept' ? dialog.accept() : dialog.dismiss()).then(() => {
        resolve(dialog);
      });
    };
    page.once('dialog', onDialog);
  });
