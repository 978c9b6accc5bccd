import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { assertNoSeriousViolations } from './axe.js';
import { launchBrowser, nextDialog, watchPage, type Browser } from './browser.js';
import { startKioskService, type KioskService } from './kiosk-harness.js';

/**
 * Where focus is after a save or a rename on the operator page: on a control of the editor, never the
 * page itself, with the outcome said in the status line (role status, read out by screen readers).
 */

const focusedId = (page: Page): Promise<string> =>
  page.evaluate<string>('document.activeElement === document.body ? "(body)" : document.activeElement.id');

describe('operator page: focus after a change', () => {
  let service: KioskService;
  let browser: Browser;
  let page: Page;
  let problems: string[];

  before(async () => {
    service = await startKioskService();
    browser = await launchBrowser();
    page = await browser.newPage();
    problems = watchPage(page);
    await page.goto(`${service.baseUrl}/admin`);
    await page.getByRole('button', { name: 'welcome', exact: true }).click();
    await page.locator('#editor-heading', { hasText: 'Edit tour “welcome”' }).waitFor();
  });
  after(async () => {
    await browser.close();
    await service.stop();
  });

  it('after Save: stays on Save, and the status line says it was saved', async () => {
    await page.getByLabel('Map name').fill('lobby_2');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('#editor-status', { hasText: 'Saved “welcome”.' }).waitFor();
    assert.equal(await page.locator('#editor-status').getAttribute('role'), 'status');
    assert.equal(await focusedId(page), 'save');
    await assertNoSeriousViolations(page, 'the operator page, saved');
  });

  it('after Enter in a step’s field: focus stays in that field', async () => {
    const destination = page.locator('#steps > li').first().getByLabel('Destination');
    await destination.fill('hall_2');
    await destination.press('Enter');
    await page.locator('#editor-status', { hasText: 'Saved “welcome”.' }).waitFor();
    assert.equal(await focusedId(page), await destination.getAttribute('id'));
  });

  it('after a rename: stays on Save, and the status line says it was renamed', async () => {
    await page.getByLabel('Tour name').fill('welcome hall');
    const asked = nextDialog(page, 'accept');
    await page.getByRole('button', { name: 'Save' }).click();
    await asked;
    await page.locator('#editor-status', { hasText: 'Renamed “welcome” to “welcome hall”.' }).waitFor();
    assert.equal(await page.locator('#editor-heading').textContent(), 'Edit tour “welcome hall”');
    assert.equal(await focusedId(page), 'save');
    await assertNoSeriousViolations(page, 'the operator page, renamed');
  });

  it('logged no errors', () => {
    assert.deepEqual(problems, []);
  });
});
