import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { launchBrowser, watchPage, type Browser } from './browser.js';
import { parseWav, startKioskService, toneWav, type KioskService } from './kiosk-harness.js';
import { echoChat } from '../../src/robot/echo-chat.js';

/**
 * The minimal kiosk of docs/protocol.md, the very block between its markers, run in Chromium on a page
 * of the real service (simulated robot): a held button records from Chromium's fake microphone and sends
 * one WAV; the answer and a /play_audio message show in the page.
 */

const protocolDoc = readFileSync(new URL('../../docs/protocol.md', import.meta.url), 'utf8');

const minimalKiosk = (): string => {
  const block =
    /<!-- minimal-kiosk:start -->[\s\S]*?```js\n([\s\S]*?)```[\s\S]*?<!-- minimal-kiosk:end -->/.exec(
      protocolDoc,
    )?.[1];
  if (block === undefined) throw new Error('docs/protocol.md has no minimal kiosk between its markers');
  return block;
};

const saidText = (page: Page): Promise<string> => page.locator('#said').innerText();

const waitForSaid = async (page: Page, pattern: RegExp, what: string): Promise<string> => {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const text = await saidText(page);
    if (pattern.test(text)) return text;
    if (Date.now() > deadline) assert.fail(`no ${what} within 10 s; #said is ${JSON.stringify(text)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe('the minimal kiosk of docs/protocol.md', () => {
  let service: KioskService;
  let browser: Browser;
  before(async () => {
    service = await startKioskService();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser.close();
    await service.stop();
  });

  it('is about 40 lines', () => {
    const lines = minimalKiosk().trimEnd().split('\n').length;
    assert.ok(lines <= 50, `${lines} lines`);
  });

  it('sends a held utterance as one WAV and shows the answer, then a /play_audio message', async () => {
    const page = await browser.newPage();
    // The page is /health's; the browser's own /favicon.ico request gets the service's 404.
    const problems = watchPage(page, [404]);
    await page.goto(`${service.baseUrl}/health`);
    await page.evaluate(
      'document.body.innerHTML = \'<button id="talk">Hold to talk</button><p id="said"></p>\'',
    );
    await page.addScriptTag({ content: minimalKiosk() });
    // The socket is open once the service counts the session.
    const deadline = Date.now() + 10_000;
    while (service.service.hub.readGauges().liveSessions < 1) {
      if (Date.now() > deadline) assert.fail('the minimal kiosk did not connect');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const talk = page.locator('#talk');
    await talk.dispatchEvent('pointerdown');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await talk.dispatchEvent('pointerup');
    const answer = await waitForSaid(
      page,
      /^You spoke for about \d+ seconds?\. This is what I heard\.$/,
      'answer',
    );

    assert.equal(service.chats.length, 1, 'one utterance, one /chat call');
    const [sent] = service.chats;
    assert.ok(sent !== undefined);
    const wav = parseWav(sent);
    assert.deepEqual([wav.format, wav.channels, wav.sampleRate, wav.bitsPerSample], [1, 1, 16_000, 16]);
    assert.ok(wav.samples.length > 8_000, `${wav.samples.length} samples for a 1.5 s press`);
    assert.equal(answer, echoChat({ audio: sent }).text);

    await service.playAudio({ emotion: 'happy', text: 'Hello from the robot', audio: toneWav(300) });
    await waitForSaid(page, /^Hello from the robot$/, 'the /play_audio message');
    assert.deepEqual(problems, []);
    await page.close();
  });
});
