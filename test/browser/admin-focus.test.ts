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

/** A control's accessible description: the text of what its aria-describedby names, in order. */
const description = (page: Page, selector: string): Promise<string> =>
  // A string: this file is compiled without the DOM library.
  page.evaluate<string>(`(() => {
    const ids = (document.querySelector(${JSON.stringify(selector)}).getAttribute('aria-describedby') ?? '').split(' ');
    return ids.map((id) => document.getElementById(id)?.textContent.trim() ?? '').join(' ');
  })()`);

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

  it('says what Enter does in each field, and it does that', async () => {
    const hint = page.locator('#tour-form .keys');
    assert.equal(await hint.isVisible(), true);
    assert.equal(
      (await hint.innerText()).replace(/\s+/g, ' '),
      'Enter in a one-line field saves the tour. In Description and Dialogue, Enter starts a new line.',
    );
    const step = page.locator('#steps > li').first();
    const saves = 'Enter in a one-line field saves the tour.';
    const newLine = 'In Description and Dialogue, Enter starts a new line.';
    assert.match(await description(page, '#tour-name'), new RegExp(saves));
    assert.match(await description(page, '#map-name'), new RegExp(saves));
    const destinationId = (await step.getByLabel('Destination').getAttribute('id')) ?? '';
    assert.match(await description(page, `#${destinationId}`), new RegExp(saves));
    for (const label of ['Description', 'Dialogue']) {
      const id = (await step.getByLabel(label).getAttribute('id')) ?? '';
      const described = await description(page, `#${id}`);
      assert.match(described, new RegExp(newLine), label);
      assert.doesNotMatch(described, new RegExp(saves), label);
    }

    // Enter in Description starts a new line and saves nothing; Enter in Map name saves.
    await page.evaluate(`document.getElementById('editor-status').textContent = ''`);
    const stepDescription = step.getByLabel('Description');
    await stepDescription.press('End');
    await stepDescription.press('Enter');
    await stepDescription.pressSequentially('Ask at the desk.');
    assert.match(await stepDescription.inputValue(), /\nAsk at the desk\.$/);
    assert.equal(await page.locator('#editor-status').textContent(), '');
    await page.getByLabel('Map name').press('Enter');
    await page.locator('#editor-status', { hasText: 'Saved “welcome”.' }).waitFor();
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
