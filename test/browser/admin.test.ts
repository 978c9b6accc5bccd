import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { request, sendJson } from '../support/http.js';
import { assertNoSeriousViolations } from './axe.js';
import { launchBrowser, nextDialog, VIEWPORT, watchPage, type Browser } from './browser.js';
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
    tour: result.json as { tour_name: string; map_name: string; steps: Record<string, unknown>[] },
  };
};

const storedNames = async (service: KioskService): Promise<string[]> =>
  (await request(service.baseUrl, 'GET', '/tour')).json as string[];

/** The focused control's accessible text: what it shows and what only screen readers get, not decoration. */
const focusedName = (page: Page): Promise<string> =>
  // A string: this file is compiled without the DOM library.
  page.evaluate<string>(`(() => {
    const copy = document.activeElement.cloneNode(true);
    for (const hidden of copy.querySelectorAll('[aria-hidden="true"]')) hidden.remove();
    return copy.textContent.trim();
  })()`);

const stepDescriptions = async (page: Page) =>
  Promise.all(
    (await page.locator('#steps textarea[data-step-field="description"]').all()).map((field) =>
      field.inputValue(),
    ),
  );

/** Steps wholly on screen: below the top of the window and above the sticky Save bar. */
const stepsInView = (page: Page): Promise<{ count: number; focusedStepInView: boolean }> =>
  page.evaluate(`(() => {
    const bar = document.querySelector('.actions').getBoundingClientRect().top;
    const inView = (element) => {
      const box = element.getBoundingClientRect();
      return box.top >= 0 && box.bottom <= bar;
    };
    const focused = document.activeElement.closest('li.step');
    return {
      count: [...document.querySelectorAll('#steps > li')].filter(inView).length,
      focusedStepInView: focused !== null && inView(focused),
    };
  })()`);

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
    await assertNoSeriousViolations(page, 'the operator page, list only');
  });

  it('needs no token here: shows no token field and says none is needed', async () => {
    await page.locator('#token-not-needed', { hasText: 'No access token needed' }).waitFor();
    assert.equal(await page.locator('#token').count(), 1);
    assert.equal(await page.locator('#token').isVisible(), false);
    assert.doesNotMatch(await page.locator('header').innerText(), /No token set/);
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
    await assertNoSeriousViolations(page, 'the operator page, a new tour');
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
    // The name can be changed: a hint says that renames the tour.
    assert.equal(await page.locator('#tour-name-hint').isVisible(), true);
    await assertNoSeriousViolations(page, 'the operator page, a tour open');

    // The buttons' names start with what they show (WCAG 2.5.3), then say which step.
    await page.getByRole('button', { name: 'Move up step 3', exact: true }).focus();
    await page.keyboard.press('Enter');
    // Focus follows the step that moved, so pressing again moves it further.
    assert.equal(await focusedName(page), 'Move up step 2');
    await page.keyboard.press('Enter');
    // At the top "up" is disabled; focus falls to its "down" button.
    assert.equal(await focusedName(page), 'Move down step 1');
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

  it('shows more than one step at 1280×800 and keeps a moved step in view', async () => {
    const steps = Array.from({ length: 6 }, (_, index) => ({
      description: `Stop ${index + 1}: a description long enough to wrap onto a second line in the editor.`,
      destination: `place_${index + 1}`,
      dialogue: `What the robot says at stop ${index + 1}.`,
    }));
    const created = await sendJson(service.baseUrl, 'POST', '/tour', {
      tour_name: 'long walk',
      map_name: 'park',
      steps,
    });
    assert.equal(created.status, 201);
    await page.getByRole('button', { name: 'Reload' }).click();
    await page.getByRole('button', { name: 'long walk', exact: true }).click();
    await page.locator('#editor-heading', { hasText: 'Edit tour “long walk”' }).waitFor();
    assert.deepEqual(page.viewportSize(), VIEWPORT);
    const opened = await stepsInView(page);
    assert.ok(opened.count >= 2, `${opened.count} step(s) wholly on screen at 1280×800`);

    // Step 1 goes down to the end, one move at a time, from the keyboard; it never leaves the screen.
    await page.getByRole('button', { name: 'Move down step 1', exact: true }).focus();
    for (let position = 2; position <= steps.length; position += 1) {
      await page.keyboard.press('Enter');
      const expected = position === steps.length ? `Move up step ${position}` : `Move down step ${position}`;
      assert.equal(await focusedName(page), expected);
      const moved = await stepsInView(page);
      assert.ok(moved.focusedStepInView, `the moved step, now step ${position}, is not wholly on screen`);
    }
    assert.equal((await stepDescriptions(page)).at(-1), steps[0]!.description);
    // Moves are edits: leaving asks, and "Discard" leaves the stored tour as it was.
    const dialog = nextDialog(page, 'accept');
    await page.getByRole('button', { name: 'Close' }).click();
    assert.equal((await dialog).message(), 'Discard your unsaved changes to “long walk”?');
    await page.locator('#tour-form').waitFor({ state: 'hidden' });
    assert.equal(
      (await storedTour(service, 'long walk')).tour.steps[0]!['description'],
      steps[0]!.description,
    );
  });

  it('asks before discarding unsaved edits: Close, another tour, leaving the page', async () => {
    await page.getByRole('button', { name: 'garden', exact: true }).click();
    await page.locator('#editor-heading', { hasText: 'Edit tour “garden”' }).waitFor();
    await page.getByLabel('Map name').fill('park_south');

    // "Cancel" keeps the editor and the edit.
    let dialog = nextDialog(page, 'dismiss');
    await page.getByRole('button', { name: 'Close' }).click();
    assert.equal((await dialog).message(), 'Discard your unsaved changes to “garden”?');
    assert.equal(await page.getByLabel('Map name').inputValue(), 'park_south');

    dialog = nextDialog(page, 'dismiss');
    await page.getByRole('button', { name: 'welcome', exact: true }).click();
    assert.equal((await dialog).type(), 'confirm');
    assert.equal(await page.locator('#editor-heading').textContent(), 'Edit tour “garden”');
    assert.equal(await page.getByLabel('Map name').inputValue(), 'park_south');

    dialog = nextDialog(page, 'dismiss');
    await page.getByRole('button', { name: 'New tour' }).click();
    await dialog;
    assert.equal(await page.locator('#editor-heading').textContent(), 'Edit tour “garden”');

    // Leaving the page asks too (the browser's own prompt); staying keeps everything.
    dialog = nextDialog(page, 'dismiss');
    await page.close({ runBeforeUnload: true });
    assert.equal((await dialog).type(), 'beforeunload');
    assert.equal(page.isClosed(), false);
    assert.equal(await page.getByLabel('Map name').inputValue(), 'park_south');

    // "Discard" opens the other tour; the edit was never saved.
    dialog = nextDialog(page, 'accept');
    await page.getByRole('button', { name: 'welcome', exact: true }).click();
    await dialog;
    await page.locator('#editor-heading', { hasText: 'Edit tour “welcome”' }).waitFor();
    assert.equal((await storedTour(service, 'garden')).tour.map_name, 'park_north');

    // Without edits nothing asks: another page, opened and left as it was, closes at once.
    const other = await browser.newPage();
    let asked = false;
    other.on('dialog', (prompt) => {
      asked = true;
      void prompt.dismiss();
    });
    await other.goto(`${service.baseUrl}/admin`);
    await other.getByRole('button', { name: 'garden', exact: true }).click();
    await other.locator('#editor-heading', { hasText: 'Edit tour “garden”' }).waitFor();
    await other.getByRole('button', { name: 'Close' }).click();
    await other.locator('#tour-form').waitFor({ state: 'hidden' });
    const closed = new Promise((resolve) => other.once('close', resolve));
    await other.close({ runBeforeUnload: true });
    await closed;
    assert.equal(asked, false);
  });

  it('refuses blank names and steps without a description, and trims names', async () => {
    const before = await storedNames(service);
    await page.getByRole('button', { name: 'New tour' }).click();
    await page.locator('#editor-heading', { hasText: 'New tour' }).waitFor();
    // The list highlights nothing while the editor shows a new tour.
    assert.equal(await page.locator('#tour-list [aria-current]').count(), 0);
    await page.getByLabel('Tour name').fill('   ');
    await page.getByLabel('Map name').fill('  ');
    await page.getByRole('button', { name: 'Save' }).click();
    const problem = page.locator('#problem');
    await problem.waitFor();
    assert.equal(await problem.locator('h3').textContent(), 'Not saved: some fields need attention');
    assert.equal(await page.getByLabel('Tour name').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.locator('#tour-name-error').textContent(), 'Give the tour a name.');
    assert.equal(await page.getByLabel('Map name').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.locator('#map-name-error').textContent(), 'Give the name of its map.');
    const description = page.locator('#steps > li').first().getByLabel('Description');
    assert.equal(await description.getAttribute('aria-invalid'), 'true');
    await problem
      .getByRole('button', { name: 'Step 1 description: Describe step 1, or remove it.' })
      .waitFor();
    await assertNoSeriousViolations(page, 'the operator page, fields refused');
    // Nothing went to the robot.
    assert.deepEqual(await storedNames(service), before);

    await page.getByLabel('Tour name').fill('  orchard  ');
    await page.getByLabel('Map name').fill(' farm ');
    await description.fill('   ');
    await page.getByRole('button', { name: 'Save' }).click();
    // Checked as the click was handled: the page is already updated.
    assert.equal(await description.getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('Tour name').getAttribute('aria-invalid'), null);
    assert.deepEqual(await storedNames(service), before);

    await description.fill('Apple trees');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('#editor-status', { hasText: 'Created “orchard”.' }).waitFor();
    assert.equal(await page.getByLabel('Tour name').inputValue(), 'orchard');
    const stored = await storedTour(service, 'orchard');
    assert.equal(stored.status, 200);
    assert.deepEqual(stored.tour, {
      tour_name: 'orchard',
      map_name: 'farm',
      steps: [{ description: 'Apple trees', destination: null, dialogue: null }],
    });
    // Saved: the list highlights it.
    await page.locator('#tour-list [aria-current="true"]', { hasText: 'orchard' }).waitFor();
  });

  it('says once, in plain words, that the name is taken (a 409), and marks the name field', async () => {
    await page.getByRole('button', { name: 'New tour' }).click();
    assert.equal(await page.locator('#tour-list [aria-current]').count(), 0);
    await page.getByLabel('Tour name').fill('welcome');
    await page.getByLabel('Map name').fill('lobby');
    await page.locator('#steps > li').first().getByLabel('Description').fill('Hall');
    await page.getByRole('button', { name: 'Save' }).click();
    const problem = page.locator('#problem');
    await problem.locator('h3', { hasText: 'already exists' }).waitFor();
    assert.equal(await problem.locator('h3').textContent(), 'A tour named “welcome” already exists');
    // The banner says it once: no status code, no second or third wording of the same thing.
    const banner = await problem.innerText();
    assert.doesNotMatch(banner, /409/);
    assert.equal(banner.match(/exists|taken/gi)?.length, 1, banner);
    assert.equal(await page.getByLabel('Tour name').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.locator('#tour-name-error').textContent(), 'Taken by another tour.');
    await assertNoSeriousViolations(page, 'the operator page, a 409');
    // The banner's one action takes the operator to the name.
    await problem.getByRole('button', { name: 'Choose another name' }).click();
    assert.equal(await page.locator(':focus').getAttribute('id'), 'tour-name');
  });

  it('shows a 422 from the API next to the field it names', async () => {
    await page.getByLabel('Tour name').fill('bad\u0007name');
    await page.getByRole('button', { name: 'Save' }).click();
    const problem = page.locator('#problem');
    await problem.locator('h3', { hasText: '(422)' }).waitFor();
    assert.equal(await problem.locator('h3').textContent(), 'Creating failed: Validation failed (422)');
    // Named as the form names the field, not as the API's JSON does.
    const error = problem.getByRole('button', { name: 'Tour name: Must not contain control characters' });
    await error.waitFor();
    assert.equal(await page.getByLabel('Tour name').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.locator('#tour-name-error').textContent(), 'Must not contain control characters');
    await error.click();
    assert.equal(await page.locator(':focus').getAttribute('id'), 'tour-name');
    // Nothing was stored: the tour service does not know the name.
    assert.equal((await storedTour(service, 'bad\u0007name')).status, 404);
    // Edited, the name the robot refused is gone: its error leaves the panel, and the panel goes.
    await page.getByLabel('Tour name').fill('good name');
    await problem.waitFor({ state: 'hidden' });
    assert.equal(await page.locator('#editor-status').textContent(), 'Fixed: save when ready.');
  });

  it('fits a phone: no sideways scroll, a margin on both sides, step buttons on one line', async () => {
    const dialog = nextDialog(page, 'accept');
    await page.getByRole('button', { name: 'garden', exact: true }).click();
    await dialog;
    await page.locator('#editor-heading', { hasText: 'Edit tour “garden”' }).waitFor();
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      const layout = await page.evaluate<{
        scrollWidth: number;
        width: number;
        editor: { left: number; right: number };
        wrapped: string[];
      }>(`(() => {
        const editor = document.querySelector('.editor').getBoundingClientRect();
        // Lines of visible text (the 1 px box of the text for screen readers only is not one).
        const wrapped = [...document.querySelectorAll('.step__action, .actions button')].filter((button) => {
          const range = document.createRange();
          range.selectNodeContents(button);
          const lines = new Set([...range.getClientRects()].filter((r) => r.width > 1 && r.height > 1).map((r) => Math.round(r.bottom)));
          return lines.size > 1;
        }).map((button) => button.textContent);
        return {
          scrollWidth: document.documentElement.scrollWidth,
          width: innerWidth,
          editor: { left: editor.left, right: editor.right },
          wrapped,
        };
      })()`);
      assert.ok(
        layout.scrollWidth <= layout.width,
        `the page is ${layout.scrollWidth} px wide in ${layout.width}`,
      );
      assert.ok(layout.editor.left >= 8, `left margin ${layout.editor.left} px`);
      assert.ok(
        layout.width - layout.editor.right >= 8,
        `right margin ${layout.width - layout.editor.right} px`,
      );
      assert.deepEqual(layout.wrapped, []);
      await assertNoSeriousViolations(page, 'the operator page at 390×844');
    } finally {
      await page.setViewportSize(VIEWPORT);
    }
  });

  it('deletes a tour only once confirmed', async () => {
    page.once('dialog', (dialog) => void dialog.dismiss());
    await page.getByRole('button', { name: 'Delete tour' }).click();
    assert.equal((await storedTour(service, 'garden')).status, 200);

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete tour' }).click();
    await page.locator('#editor-status', { hasText: 'Deleted “garden”.' }).waitFor();
    assert.equal((await storedTour(service, 'garden')).status, 404);
    const names = await storedNames(service);
    assert.ok(!names.includes('garden'));
    await page.locator('#list-status', { hasText: `${names.length} tours` }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'garden', exact: true }).count(), 0);
  });

  it('logged no errors beyond the ones provoked', () => {
    assert.deepEqual(problems, []);
  });
});
