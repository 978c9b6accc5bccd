/**
 * `npm run screenshots`: docs/img/kiosk.png and docs/img/admin.png at 1280×800, taken from the real pages
 * in headless Chromium against the service on the simulation.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sendJson } from '../support/http.js';
import { launchBrowser, VIEWPORT } from './browser.js';
import { openKiosk, startKioskService, toneWav, waitForSnapshot } from './kiosk-harness.js';

const directory = fileURLToPath(new URL('../../docs/img/', import.meta.url));
mkdirSync(directory, { recursive: true });

const service = await startKioskService();
const browser = await launchBrowser();
try {
  const { page: kiosk } = await openKiosk(browser, service);
  await service.playAudio({
    emotion: 'happy',
    text: 'Welcome to the museum! Today we will see the rose garden, the pond and the old gate. Hold the blue button to ask me anything.',
    audio: toneWav(4_000, 220),
  });
  await waitForSnapshot(kiosk, (state) => state.played.length === 1, 'the welcome message to start');
  // Past the mouth animation's first swing, so the face is mid-sentence.
  await kiosk.waitForTimeout(400);
  await kiosk.screenshot({ path: `${directory}kiosk.png` });

  await sendJson(service.baseUrl, 'POST', '/tour', {
    tour_name: 'garden',
    map_name: 'park',
    steps: [
      {
        description: 'Rose garden',
        destination: 'rose_bed',
        dialogue: 'These roses are a hundred years old.',
      },
      { description: 'Pond', destination: 'pond', dialogue: null },
    ],
  });
  const admin = await browser.newPage();
  await admin.goto(`${service.baseUrl}/admin`);
  await admin.getByRole('button', { name: 'welcome', exact: true }).click();
  await admin.locator('#editor-heading', { hasText: 'Edit tour' }).waitFor();
  await admin.screenshot({ path: `${directory}admin.png` });
  console.log(`wrote ${directory}kiosk.png and ${directory}admin.png (${VIEWPORT.width}×${VIEWPORT.height})`);
} finally {
  await browser.close();
  await service.stop();
}
