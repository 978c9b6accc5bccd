import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { request, sendJson } from '../support/http.js';
import { assertNoSeriousViolations } from './axe.js';
import { launchBrowser, nextDialog, watchPage, type Browser } from './browser.js';
import { startKioskService, type KioskService } from './kiosk-harness.js';
import { announcements, pageNow, watchAnnouncements } from './live-regions.js';

/**
 * The operator page's problem panel (the banner) as the operator fixes what it names: it follows the
 * fields, says a taken name before anything is asked or sent, refuses a tour without steps unless told,
 * and a conflict's "Reload their version" says what it did. Each change is read out once (the live
 * regions' log), and axe finds nothing serious in any state. A real Chromium on the real tour API.
 */

interface StoredTour {
  tour_name: string;
  map_name: string;
  steps: { description: string; destination: string | null; dialogue: string | null }[];
}

const steps = (...descriptions: string[]) =>
  descriptions.map((description) => ({ description, destination: null, dialogue: null }));

describe('operator page: the problem panel follows what is fixed', () => {
  let service: KioskService;
  let browser: Browser;
  let page: Page;
  let other: Page;
  let problems: string[][];
  /** Every dialog either page opened but beforeunload; answered by the test (nextDialog), or dismissed. */
  const dialogs: string[] = [];
  let dismissDialogs = false;
  let dialogOpened: (() => void) | undefined;
  /** Every change either page sent: method and path. */
  const changes: string[] = [];

  const stored = async (name: string): Promise<StoredTour | undefined> => {
    const got = await request(service.baseUrl, 'GET', `/tour/${encodeURIComponent(name)}`);
    return got.status === 200 ? (got.json as StoredTour) : undefined;
  };
  const create = async (tour: StoredTour): Promise<void> => {
    assert.equal((await sendJson(service.baseUrl, 'POST', '/tour', tour)).status, 201);
  };
  const listButton = (on: Page, name: string) => on.getByRole('button', { name, exact: true });
  const open = async (on: Page, name: string): Promise<void> => {
    await on.getByRole('button', { name: 'Reload' }).click();
    await listButton(on, name).click();
    await on.locator('#editor-heading', { hasText: `Edit tour “${name}”` }).waitFor();
  };
  const step = (on: Page, index: number) => on.locator('#steps > li').nth(index);
  const panel = (on: Page) => on.locator('#problem');
  const listed = (on: Page): Promise<string[]> => on.locator('#problem li').allTextContents();
  const save = (on: Page) => on.getByRole('button', { name: 'Save', exact: true }).click();
  /** The page loaded anew (unsaved edits of an earlier test dropped), its live regions watched. */
  const fresh = async (on: Page): Promise<void> => {
    await on.goto(`${service.baseUrl}/admin`);
    await listButton(on, 'welcome').waitFor();
    await watchAnnouncements(on);
  };
  /** What was read out since `from` (the page's clock), as region: text. */
  const saidSince = async (on: Page, from: number): Promise<string[]> =>
    (await announcements(on)).filter((each) => each.at >= from).map((each) => `${each.region}: ${each.text}`);

  before(async () => {
    service = await startKioskService();
    browser = await launchBrowser();
    page = await browser.newPage();
    other = await browser.newPage();
    // Provoked below: 409 (a taken name the page did not list), 412 (a stale version).
    problems = [watchPage(page, [409, 412]), watchPage(other, [409, 412])];
    for (const each of [page, other]) {
      each.on('dialog', (dialog) => {
        // Leaving with unsaved edits (fresh): left. Any other is answered by the test, or times it out.
        if (dialog.type() === 'beforeunload') {
          void dialog.accept();
          return;
        }
        dialogs.push(dialog.message());
        dialogOpened?.();
        if (dismissDialogs) void dialog.dismiss();
      });
      each.on('request', (sent) => {
        if (sent.method() !== 'GET') changes.push(`${sent.method()} ${new URL(sent.url()).pathname}`);
      });
    }
  });
  after(async () => {
    await browser.close();
    await service.stop();
  });

  it('drops each error from the panel as it is fixed or its step removed, then goes', async () => {
    await fresh(page);
    await page.getByRole('button', { name: 'New tour' }).click();
    const name = page.getByLabel('Tour name');
    const map = page.getByLabel('Map name');
    await name.fill('n'.repeat(129));
    await map.fill('m'.repeat(257));
    await page.getByRole('button', { name: '+ Add step' }).click();
    await step(page, 1).getByLabel('Description').fill('Hall');
    const sent = changes.length;
    await save(page);
    await panel(page).locator('h3', { hasText: 'Not saved: some fields need attention' }).waitFor();
    assert.deepEqual(
      (await listed(page)).map((line) => line.split(':')[0]),
      ['Tour name', 'Map name', 'Step 1 description'],
    );
    await assertNoSeriousViolations(page, 'the operator page, three fields to fix');

    // Shortened: its line goes, read out once as the panel now reads.
    let from = await pageNow(page);
    await name.fill('n'.repeat(128));
    assert.deepEqual(await listed(page), [
      'Map name: Too long: at most 256 characters. Shorten it to save.',
      'Step 1 description: Describe step 1, or remove it.',
    ]);
    assert.equal(await name.getAttribute('aria-invalid'), null);
    assert.equal((await saidSince(page, from)).length, 1);

    // Still too long, one character more: the count beside the field follows; the panel, which would be
    // read out again, names the limit only and stays as it is.
    from = await pageNow(page);
    await map.press('End');
    await map.pressSequentially('m');
    assert.equal(
      await page.locator('#map-name-error').textContent(),
      'Too long: 258 characters, at most 256. Shorten it to save.',
    );
    assert.equal((await listed(page)).length, 2);
    assert.deepEqual(await saidSince(page, from), []);

    // The step it named removed: its line goes, the panel read out once (not "Removed step 1" as well).
    from = await pageNow(page);
    await step(page, 0).getByRole('button', { name: 'Remove step 1' }).click();
    assert.deepEqual(await listed(page), ['Map name: Too long: at most 256 characters. Shorten it to save.']);
    const said = await saidSince(page, from);
    assert.equal(said.length, 1, said.join('\n'));
    assert.match(said[0] ?? '', /^problem: Not saved: some fields need attentionMap name/);
    await assertNoSeriousViolations(page, 'the operator page, one field left to fix');

    // The last one fixed: the panel goes, and the status line says so, once.
    from = await pageNow(page);
    await map.fill('lobby');
    await panel(page).waitFor({ state: 'hidden' });
    assert.equal(await map.getAttribute('aria-invalid'), null);
    assert.equal(await page.locator('#editor-status').textContent(), 'Fixed: save when ready.');
    assert.deepEqual(await saidSince(page, from), ['editor-status: Fixed: save when ready.']);
    assert.equal(changes.length, sent, 'nothing was sent');
    await assertNoSeriousViolations(page, 'the operator page, everything fixed');
    await save(page);
    await page.locator('#editor-status', { hasText: 'Created “' }).waitFor();
    assert.deepEqual((await stored('n'.repeat(128)))?.steps, steps('Hall'));
  });

  it('drops a taken name from the panel once the name is changed', async () => {
    await fresh(page);
    // Created behind the page's back: the page does not list it, so the robot's 409 says it.
    await create({ tour_name: 'pier', map_name: 'port', steps: steps('Boards') });
    await page.getByRole('button', { name: 'New tour' }).click();
    await page.getByLabel('Tour name').fill('pier');
    await page.getByLabel('Map name').fill('port');
    await step(page, 0).getByLabel('Description').fill('Planks');
    await save(page);
    await panel(page).locator('h3', { hasText: 'A tour named “pier” already exists' }).waitFor();
    assert.equal(await page.getByLabel('Tour name').getAttribute('aria-invalid'), 'true');
    await assertNoSeriousViolations(page, 'the operator page, a taken name');

    const from = await pageNow(page);
    await page.getByLabel('Tour name').fill('pier 2');
    await panel(page).waitFor({ state: 'hidden' });
    assert.equal(await page.getByLabel('Tour name').getAttribute('aria-invalid'), null);
    assert.deepEqual(await saidSince(page, from), ['editor-status: Fixed: save when ready.']);
    await save(page);
    await page.locator('#editor-status', { hasText: 'Created “pier 2”.' }).waitFor();
  });

  it('says a rename’s name is taken before asking anything, and still handles the robot’s 409', async () => {
    await fresh(page);
    await create({ tour_name: 'harbour', map_name: 'port', steps: steps('Pier') });
    await open(page, 'harbour');
    const asked = dialogs.length;
    const sent = changes.length;
    await page.getByLabel('Tour name').fill('welcome');
    dismissDialogs = true;
    const asking = new Promise<void>((resolve) => {
      dialogOpened = resolve;
    });
    await save(page);
    const problem = panel(page);
    // Whichever comes first: the panel, or a question (then dismissed, so nothing is sent).
    await Promise.race([
      problem.locator('h3', { hasText: 'A tour named “welcome” already exists' }).waitFor(),
      asking,
    ]);
    dismissDialogs = false;
    dialogOpened = undefined;
    assert.deepEqual(dialogs.slice(asked), [], 'no confirmation asked');
    assert.equal(
      await problem.locator('.problem__detail').textContent(),
      'Choose another name: nothing was saved, and “harbour” keeps its name.',
    );
    assert.deepEqual(changes.slice(sent), [], 'nothing sent');
    assert.equal(await page.evaluate<string | undefined>('document.activeElement?.id'), 'problem');
    assert.ok(await stored('harbour'));
    assert.equal((await stored('welcome'))?.tour_name, 'welcome');
    await assertNoSeriousViolations(page, 'the operator page, a rename to a taken name');

    // Taken behind the page's back: asked, then the robot's 409; the old tour keeps its name.
    await create({ tour_name: 'quay', map_name: 'port', steps: steps('Crane') });
    await page.getByLabel('Tour name').fill('quay');
    await panel(page).waitFor({ state: 'hidden' });
    const confirmed = nextDialog(page, 'accept');
    await save(page);
    await confirmed;
    await problem.locator('h3', { hasText: 'A tour named “quay” already exists' }).waitFor();
    assert.equal(
      await problem.locator('.problem__detail').textContent(),
      'Choose another name: nothing was saved, and “harbour” keeps its name.',
    );
    assert.deepEqual((await stored('harbour'))?.steps, steps('Pier'));
    assert.deepEqual((await stored('quay'))?.steps, steps('Crane'));
  });

  it('refuses a tour without steps until a step is added, or saves it so when told', async () => {
    await fresh(page);
    await page.getByRole('button', { name: 'New tour' }).click();
    await page.getByLabel('Tour name').fill('empty hall');
    await page.getByLabel('Map name').fill('void');
    await step(page, 0).getByRole('button', { name: 'Remove step 1' }).click();
    const sent = changes.length;
    await save(page);
    const problem = panel(page);
    await problem.locator('h3', { hasText: 'Not saved: the tour has no steps' }).waitFor();
    assert.match(
      (await problem.locator('.problem__detail').textContent()) ?? '',
      /Add a step, or save it without steps/,
    );
    assert.deepEqual(await listed(page), ['Steps: Add at least one step.']);
    assert.equal(await page.locator('#steps-field').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.locator('#steps-field-error').textContent(), 'Add at least one step.');
    assert.equal(changes.length, sent, 'nothing was sent');
    assert.equal(await stored('empty hall'), undefined);
    await assertNoSeriousViolations(page, 'the operator page, a tour without steps');

    // "Add a step": the panel goes, the new step's description has the focus.
    await problem.getByRole('button', { name: 'Add a step' }).click();
    await problem.waitFor({ state: 'hidden' });
    assert.equal(await page.locator('#steps-field').getAttribute('aria-invalid'), null);
    assert.equal(await page.locator('#steps-field-error').textContent(), '');
    assert.equal(await page.locator('#steps > li').count(), 1);
    assert.equal(
      await page.evaluate<string | undefined>('document.activeElement?.id'),
      await step(page, 0).getByLabel('Description').getAttribute('id'),
    );

    // Removed again, then saved without steps on purpose: the API takes it, as the specification does.
    await step(page, 0).getByRole('button', { name: 'Remove step 1' }).click();
    await save(page);
    await problem.getByRole('button', { name: 'Save without steps' }).click();
    await page.locator('#editor-status', { hasText: 'Created “empty hall”.' }).waitFor();
    assert.deepEqual(await stored('empty hall'), { tour_name: 'empty hall', map_name: 'void', steps: [] });
  });

  it('says what "Reload their version" did', async () => {
    await fresh(page);
    await fresh(other);
    await create({ tour_name: 'market', map_name: 'town', steps: steps('Stalls', 'Fountain') });
    await open(page, 'market');
    await open(other, 'market');
    await step(page, 0).getByLabel('Description').fill('Stalls, fish and fruit');
    await save(page);
    await page.locator('#editor-status', { hasText: 'Saved “market”.' }).waitFor();

    await step(other, 1).getByLabel('Description').fill('Fountain, 1890');
    await save(other);
    await panel(other).locator('h3', { hasText: 'changed by someone else' }).waitFor();
    const from = await pageNow(other);
    await panel(other).getByRole('button', { name: 'Reload their version' }).click();
    const loaded =
      'Loaded “market” as someone else saved it. Your changes were discarded: make them again if they are still needed.';
    await other.locator('#editor-status', { hasText: loaded }).waitFor();
    assert.equal(await panel(other).isHidden(), true);
    assert.equal(await step(other, 0).getByLabel('Description').inputValue(), 'Stalls, fish and fruit');
    assert.equal(await step(other, 1).getByLabel('Description').inputValue(), 'Fountain');
    // Read out in the editor: its status line, last what was done (the panel emptied says nothing).
    const said = (await saidSince(other, from)).filter((each) => !each.startsWith('list-status: '));
    assert.equal(said.at(-1), `editor-status: ${loaded}`);
    assert.deepEqual(
      said.filter((each) => !each.startsWith('editor-status: ')),
      [],
    );
    await assertNoSeriousViolations(other, 'the operator page, their version reloaded');
  });

  it('logged no errors beyond the ones provoked', () => {
    assert.deepEqual(problems, [[], []]);
  });
});
