import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { request } from '../support/http.js';
import { launchBrowser, watchPage, type Browser } from './browser.js';
import { startKioskService, type KioskService } from './kiosk-harness.js';

/**
 * The operator page in a real browser against the real tour API on the simulation. The tests run in order
 * and share one tour ("garden"): created, then edited, then deleted. Every check of what was stored goes
 * to the API, not to the page.
 */

const storedTour = async (service: KioskService, name: string) => {
  const result = await request(service.baseUrl, 'GET', `/tour/${encodeURIComponent(name)}`);
  return {
    status: result.status,
    tour: result.json as { map_name: string; steps: Record<string, unknown>[] },
  };
};

const focusedLabel = (page: Page) => page.locator(':focus').getAttribute('aria-label');

const stepDescriptions = async (page: Page) =>
  Promise.all(
    (await page.locator('#steps textarea[data-step-field="description"]').all()).map((field) =>
      field.inputValue(),
    ),
  );

describe('operator page', () => {
  let browser: Browser;
  let service: KioskService;
  let page: Page;
  let problems: string[];

  before(async () => {
    service = await startKioskService();
    browser = await launchBrowser();
    page = await browser.newPage();
    // 409 and 422 are provoked below; Chrome logs them.
    problems = watchPage(page, [409, 422]);
    await page.goto(`${service.baseUrl}/admin`);
  });
  after(async () => {
    await browser.close();
    await service.stop();
  });

  it('lists the tours', async () => {
    await page.getByRole('button', { name: 'welcome', exact: true }).waitFor();
    assert.equal(await page.locator('#list-status').textContent(), '1 tour');
  });

  it('creates a tour with steps', async () => {
    await page.getByRole('button', { name: 'New tour' }).click();
    await page.getByLabel('Tour name').fill('garden');
    await page.getByLabel('Map name').fill('park');
    const steps = [
      { description: 'Roses', destination: 'rose_bed', dialogue: '' },
      { description: 'Pond', destination: '', dialogue: 'Look at the fish.' },
      { description: 'Exit', destination: 'gate', dialogue: 'Goodbye!' },
    ];
    for (const [index, step] of steps.entries()) {
      if (index > 0) await page.getByRole('button', { name: '+ Add step' }).click();
      const item = page.locator('#steps > li').nth(index);
      await item.getByLabel('Description').fill(step.description);
      await item.getByLabel('Destination').fill(step.destination);
      await item.getByLabel('Dialogue').fill(step.dialogue);
    }
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('#editor-status', { hasText: 'Created “garden”.' }).waitFor();
    await page.getByRole('button', { name: 'garden', exact: true }).waitFor();

    const stored = await storedTour(service, 'garden');
    assert.equal(stored.status, 200);
    assert.deepEqual(stored.tour, {
      tour_name: 'garden',
      map_name: 'park',
      steps: [
        { description: 'Roses', destination: 'rose_bed', dialogue: null },
        { description: 'Pond', destination: null, dialogue: 'Look at the fish.' },
        { description: 'Exit', destination: 'gate', dialogue: 'Goodbye!' },
      ],
    });
  });

  it('edits it from the keyboard: moves a step up twice and changes the map', async () => {
    await page.getByRole('button', { name: 'garden', exact: true }).click();
    await page.locator('#editor-heading', { hasText: 'Edit tour “garden”' }).waitFor();
    assert.equal(await page.getByLabel('Tour name').getAttribute('readonly'), '');

    await page.getByRole('button', { name: 'Move step 3 up' }).focus();
    await page.keyboard.press('Enter');
    // Focus follows the step that moved, so pressing again moves it further.
    assert.equal(await focusedLabel(page), 'Move step 2 up');
    await page.keyboard.press('Enter');
    // At the top "up" is disabled; focus falls to its "down" button.
    assert.equal(await focusedLabel(page), 'Move step 1 down');
    assert.deepEqual(await stepDescriptions(page), ['Exit', 'Roses', 'Pond']);

    await page.getByLabel('Map name').focus();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('park_north');
    await page.keyboard.press('Enter');
    await page.locator('#editor-status', { hasText: 'Saved “garden”.' }).waitFor();

    const stored = await storedTour(service, 'garden');
    assert.equal(stored.tour.map_name, 'park_north');
    assert.deepEqual(
      stored.tour.steps.map((step) => step['description']),
      ['Exit', 'Roses', 'Pond'],
    );
    // Untouched fields kept their values through the move.
    assert.deepEqual(stored.tour.steps[0], {
      description: 'Exit',
      destination: 'gate',
      dialogue: 'Goodbye!',
    });
  });

  it('shows a 409 from the API: the name is taken', async () => {
    await page.getByRole('button', { name: 'New tour' }).click();
    await page.getByLabel('Tour name').fill('welcome');
    await page.getByLabel('Map name').fill('lobby');
    await page.getByRole('button', { name: 'Save' }).click();
    const problem = page.locator('#problem');
    await problem.waitFor();
    assert.equal(await problem.locator('h3').textContent(), 'Creating failed: Tour already exists (409)');
    assert.equal(
      await problem.locator('.problem__detail').textContent(),
      'a tour named "welcome" already exists',
    );
  });

  it('shows a 422 from the API next to the field it names', async () => {
    await page.getByLabel('Tour name').fill('bad\u0007name');
    await page.getByRole('button', { name: 'Save' }).click();
    const problem = page.locator('#problem');
    await problem.locator('h3', { hasText: '(422)' }).waitFor();
    assert.equal(await problem.locator('h3').textContent(), 'Creating failed: Validation failed (422)');
    const error = problem.getByRole('button', {
      name: 'tour_name: tour_name must not contain control characters',
    });
    await error.waitFor();
    assert.equal(await page.getByLabel('Tour name').getAttribute('aria-invalid'), 'true');
    assert.equal(
      await page.locator('#tour-name-error').textContent(),
      'tour_name must not contain control characters',
    );
    await error.click();
    assert.equal(await page.locator(':focus').getAttribute('id'), 'tour-name');
    // Nothing was stored: the tour service does not know the name.
    assert.equal((await storedTour(service, 'bad\u0007name')).status, 404);
  });

  it('deletes a tour only once confirmed', async () => {
    await page.getByRole('button', { name: 'garden', exact: true }).click();
    await page.locator('#editor-heading', { hasText: 'Edit tour “garden”' }).waitFor();
    page.once('dialog', (dialog) => void dialog.dismiss());
    await page.getByRole('button', { name: 'Delete tour' }).click();
    assert.equal((await storedTour(service, 'garden')).status, 200);

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete tour' }).click();
    await page.locator('#editor-status', { hasText: 'Deleted “garden”.' }).waitFor();
    assert.equal((await storedTour(service, 'garden')).status, 404);
    await page.locator('#list-status', { hasText: '1 tour' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'garden', exact: true }).count(), 0);
  });

  it('logged no errors beyond the ones provoked', () => {
    assert.deepEqual(problems, []);
  });
});
