import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { request, sendJson } from '../support/http.js';
import { assertNoSeriousViolations } from './axe.js';
import { launchBrowser, nextDialog, watchPage, type Browser } from './browser.js';
import { startKioskService, type KioskService } from './kiosk-harness.js';

/**
 * The operator page when the robot's tours change under it: two operators (two tabs) on one tour, tours
 * created or deleted behind the page's back, text over a limit, a rename. A real Chromium against the real
 * tour API on the simulation; what was stored is always checked through the API, not the page.
 */

interface StoredTour {
  tour_name: string;
  map_name: string;
  steps: { description: string; destination: string | null; dialogue: string | null }[];
}

const steps = (...descriptions: string[]) =>
  descriptions.map((description) => ({ description, destination: null, dialogue: null }));

describe('operator page: tours that change under it', () => {
  let service: KioskService;
  let browser: Browser;
  let first: Page;
  let second: Page;
  let problems: string[][];
  /** Every PUT and DELETE either page sent, with its If-Match. */
  const changes: { method: string; url: string; ifMatch: string | undefined }[] = [];

  const stored = async (name: string): Promise<StoredTour | undefined> => {
    const got = await request(service.baseUrl, 'GET', `/tour/${encodeURIComponent(name)}`);
    return got.status === 200 ? (got.json as StoredTour) : undefined;
  };
  const storedNames = async (): Promise<string[]> =>
    (await request(service.baseUrl, 'GET', '/tour')).json as string[];
  const create = async (tour: StoredTour): Promise<void> => {
    assert.equal((await sendJson(service.baseUrl, 'POST', '/tour', tour)).status, 201);
  };
  const listButton = (page: Page, name: string) => page.getByRole('button', { name, exact: true });
  const open = async (page: Page, name: string): Promise<void> => {
    await page.getByRole('button', { name: 'Reload' }).click();
    await listButton(page, name).click();
    await page.locator('#editor-heading', { hasText: `Edit tour “${name}”` }).waitFor();
  };
  const step = (page: Page, index: number) => page.locator('#steps > li').nth(index);
  const status = (page: Page, text: string) => page.locator('#editor-status', { hasText: text }).waitFor();

  before(async () => {
    service = await startKioskService();
    browser = await launchBrowser();
    first = await browser.newPage();
    second = await browser.newPage();
    // Provoked below: 409 (a taken name), 404 (a deleted tour), 412 (a stale version).
    problems = [watchPage(first, [404, 409, 412]), watchPage(second, [404, 409, 412])];
    for (const page of [first, second]) {
      page.on('request', (sent) => {
        if (sent.method() === 'PUT' || sent.method() === 'DELETE') {
          changes.push({ method: sent.method(), url: sent.url(), ifMatch: sent.headers()['if-match'] });
        }
      });
      await page.goto(`${service.baseUrl}/admin`);
      await listButton(page, 'welcome').waitFor();
    }
  });
  after(async () => {
    await browser.close();
    await service.stop();
  });

  it('refuses a save that would undo another operator’s change, then reloads their version', async () => {
    await create({ tour_name: 'harbour', map_name: 'port', steps: steps('Pier', 'Lighthouse', 'Market') });
    await open(first, 'harbour');
    await open(second, 'harbour');

    await step(first, 0).getByLabel('Description').fill('Pier, where the ferries dock');
    await first.getByRole('button', { name: 'Save', exact: true }).click();
    await status(first, 'Saved “harbour”.');

    // The second tab still shows the tour as it was; its change to step 2 would undo the first's.
    await step(second, 1).getByLabel('Description').fill('Lighthouse, 1857');
    await second.getByRole('button', { name: 'Save', exact: true }).click();
    const problem = second.locator('#problem');
    await problem.locator('h3', { hasText: 'changed by someone else' }).waitFor();
    assert.equal(
      await problem.locator('h3').textContent(),
      'Not saved: “harbour” was changed by someone else',
    );
    assert.match(
      (await problem.locator('.problem__detail').textContent()) ?? '',
      /Reload it to see their version/,
    );
    assert.equal(await second.evaluate<string | undefined>('document.activeElement?.id'), 'problem');
    await problem.getByRole('button', { name: 'Reload their version' }).waitFor();
    await problem.getByRole('button', { name: 'Overwrite with mine' }).waitFor();
    await assertNoSeriousViolations(second, 'the operator page, a conflict');
    // Nothing of the second tab's was stored: the first tab's change is intact.
    assert.deepEqual(
      (await stored('harbour'))?.steps.map((each) => each.description),
      ['Pier, where the ferries dock', 'Lighthouse', 'Market'],
    );

    await problem.getByRole('button', { name: 'Reload their version' }).click();
    await second.locator('#problem').waitFor({ state: 'hidden' });
    assert.equal(
      await step(second, 0).getByLabel('Description').inputValue(),
      'Pier, where the ferries dock',
    );
    assert.equal(await step(second, 1).getByLabel('Description').inputValue(), 'Lighthouse');
    // Redone on the current version, the change goes through and keeps the first tab's.
    await step(second, 1).getByLabel('Description').fill('Lighthouse, 1857');
    await second.getByRole('button', { name: 'Save', exact: true }).click();
    await status(second, 'Saved “harbour”.');
    assert.deepEqual(
      (await stored('harbour'))?.steps.map((each) => each.description),
      ['Pier, where the ferries dock', 'Lighthouse, 1857', 'Market'],
    );
  });

  it('overwrites the other change only when told to', async () => {
    // The first tab last saved before the second tab's save: its version is stale now.
    await first.getByLabel('Map name').fill('port_east');
    await first.getByRole('button', { name: 'Save', exact: true }).click();
    await first.locator('#problem h3', { hasText: 'changed by someone else' }).waitFor();
    assert.equal((await stored('harbour'))?.map_name, 'port');
    await first.getByRole('button', { name: 'Overwrite with mine' }).click();
    await status(first, 'Saved “harbour”.');
    // The first tab's version as it showed it: the second tab's step 2 is gone, as the operator chose.
    assert.deepEqual(await stored('harbour'), {
      tour_name: 'harbour',
      map_name: 'port_east',
      steps: steps('Pier, where the ferries dock', 'Lighthouse', 'Market'),
    });
  });

  it('deletes only the version it showed, or anyway when told to', async () => {
    // The second tab is stale now (the first tab overwrote).
    const confirmed = nextDialog(second, 'accept');
    await second.getByRole('button', { name: 'Delete tour' }).click();
    await confirmed;
    const problem = second.locator('#problem');
    await problem.locator('h3', { hasText: 'Not deleted' }).waitFor();
    assert.equal(
      await problem.locator('h3').textContent(),
      'Not deleted: “harbour” was changed by someone else',
    );
    assert.ok(await stored('harbour'), 'the tour is still there');
    await problem.getByRole('button', { name: 'Delete anyway' }).click();
    await status(second, 'Deleted “harbour”.');
    assert.equal(await stored('harbour'), undefined);
    assert.equal(await listButton(second, 'harbour').count(), 0);
  });

  it('sent every change with the version it had read (If-Match)', () => {
    assert.ok(changes.length >= 6, `${changes.length} changes`);
    for (const change of changes) {
      assert.match(change.ifMatch ?? '(none)', /^"[A-Za-z0-9_-]{43}"$/, `${change.method} ${change.url}`);
    }
  });

  it('counts characters under limited fields and refuses text over a limit rather than cutting it', async () => {
    const before = await storedNames();
    await first.getByRole('button', { name: 'New tour' }).click();
    await first.getByLabel('Tour name').fill('long text');
    assert.equal(await first.locator('#tour-name-count').textContent(), '9 / 128');
    await first.getByLabel('Map name').fill('archive');
    const description = step(first, 0).getByLabel('Description');
    const counter = step(first, 0).locator('.counter').first();
    assert.equal(await counter.textContent(), '0 / 4,096');
    // As a paste: the whole text lands in the field.
    await description.fill('x'.repeat(10_000));
    assert.equal((await description.inputValue()).length, 10_000);
    assert.equal(await counter.textContent(), '10,000 / 4,096: 5,904 too many');
    assert.equal(await description.getAttribute('aria-invalid'), 'true');
    const beside = step(first, 0).locator('.field__error').first();
    assert.equal(
      await beside.textContent(),
      'Too long: 10,000 characters, at most 4,096. Shorten it to save.',
    );
    await assertNoSeriousViolations(first, 'the operator page, a field over its limit');

    await first.getByRole('button', { name: 'Save', exact: true }).click();
    const problem = first.locator('#problem');
    await problem.locator('h3', { hasText: 'Not saved: some fields need attention' }).waitFor();
    // The summary names the step as the form does (the count is beside the field).
    await problem
      .getByRole('button', {
        name: 'Step 1 description: Too long: at most 4,096 characters. Shorten it to save.',
      })
      .waitFor();
    assert.deepEqual(await storedNames(), before, 'nothing was sent');

    // Shortened to the limit: the mark goes as the text is edited, and the tour saves whole.
    await description.fill('x'.repeat(4_096));
    assert.equal(await counter.textContent(), '4,096 / 4,096');
    assert.equal(await description.getAttribute('aria-invalid'), null);
    // Characters as the API counts them: 128 emoji are 256 UTF-16 units, within the name's 128.
    await first.getByLabel('Tour name').fill('🌊'.repeat(128));
    assert.equal(await first.locator('#tour-name-count').textContent(), '128 / 128');
    await first.getByRole('button', { name: 'Save', exact: true }).click();
    await status(first, 'Created “');
    assert.equal((await stored('🌊'.repeat(128)))?.steps[0]?.description.length, 4_096);
  });

  it('refreshes the list after a 409 and clears the name’s error once the name is edited', async () => {
    // Created behind the page's back: the page does not list it yet.
    await create({ tour_name: 'pier', map_name: 'port', steps: steps('Boards') });
    assert.equal(await listButton(first, 'pier').count(), 0);
    await first.getByRole('button', { name: 'New tour' }).click();
    await first.getByLabel('Tour name').fill('pier');
    await first.getByLabel('Map name').fill('port');
    await step(first, 0).getByLabel('Description').fill('Planks');
    await first.getByRole('button', { name: 'Save', exact: true }).click();
    await first.locator('#problem h3', { hasText: 'A tour named “pier” already exists' }).waitFor();
    await listButton(first, 'pier').waitFor();
    assert.equal(await first.getByLabel('Tour name').getAttribute('aria-invalid'), 'true');

    await first.getByLabel('Tour name').fill('pier 2');
    assert.equal(await first.getByLabel('Tour name').getAttribute('aria-invalid'), null);
    assert.equal(await first.locator('#tour-name-error').textContent(), '');
    await first.getByRole('button', { name: 'Save', exact: true }).click();
    await status(first, 'Created “pier 2”.');
  });

  it('refreshes the list after a 404, and saves a tour deleted meanwhile anew when asked', async () => {
    await create({ tour_name: 'ghost', map_name: 'attic', steps: steps('Dust') });
    await first.getByRole('button', { name: 'Reload' }).click();
    await listButton(first, 'ghost').waitFor();
    assert.equal((await request(service.baseUrl, 'DELETE', '/tour/ghost')).status, 200);
    await listButton(first, 'ghost').click();
    await first.locator('#problem h3', { hasText: 'Loading failed: Tour not found (404)' }).waitFor();
    await listButton(first, 'ghost').waitFor({ state: 'detached' });

    await create({ tour_name: 'dune', map_name: 'coast', steps: steps('Sand') });
    await open(first, 'dune');
    assert.equal((await request(service.baseUrl, 'DELETE', '/tour/dune')).status, 200);
    await first.getByLabel('Map name').fill('coast_north');
    await first.getByRole('button', { name: 'Save', exact: true }).click();
    await first.locator('#problem h3', { hasText: 'Not saved: “dune” no longer exists' }).waitFor();
    await listButton(first, 'dune').waitFor({ state: 'detached' });
    assert.equal(await first.locator('#editor-heading').textContent(), 'New tour');
    await first.getByRole('button', { name: 'Save', exact: true }).click();
    await status(first, 'Created “dune”.');
    assert.equal((await stored('dune'))?.map_name, 'coast_north');
  });

  it('renames a tour as a new one plus the old one deleted, only once confirmed', async () => {
    await open(first, 'pier 2');
    assert.equal(await first.getByLabel('Tour name').getAttribute('readonly'), null);
    assert.match(
      (await first.locator('#tour-name-hint').textContent()) ?? '',
      /Changing the name renames the tour/,
    );
    await first.getByLabel('Tour name').fill('pier two');

    let asked = nextDialog(first, 'dismiss');
    await first.getByRole('button', { name: 'Save', exact: true }).click();
    assert.equal(
      (await asked).message(),
      'Rename “pier 2” to “pier two”? The tour is saved under the new name, then “pier 2” is deleted.',
    );
    assert.ok(await stored('pier 2'));
    assert.equal(await stored('pier two'), undefined);

    asked = nextDialog(first, 'accept');
    await first.getByRole('button', { name: 'Save', exact: true }).click();
    await asked;
    await status(first, 'Renamed “pier 2” to “pier two”.');
    assert.equal(await first.locator('#editor-heading').textContent(), 'Edit tour “pier two”');
    assert.equal(await stored('pier 2'), undefined);
    assert.deepEqual(await stored('pier two'), {
      tour_name: 'pier two',
      map_name: 'port',
      steps: steps('Planks'),
    });
    await listButton(first, 'pier two').waitFor();
    assert.equal(await listButton(first, 'pier 2').count(), 0);
  });

  it('logged no errors beyond the ones provoked', () => {
    assert.deepEqual(problems, [[], []]);
  });
});
