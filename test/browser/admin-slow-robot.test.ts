import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { request, sendJson } from '../support/http.js';
import { assertNoSeriousViolations } from './axe.js';
import { launchBrowser, nextDialog, watchPage, type Browser } from './browser.js';
import { startKioskService, type KioskService } from './kiosk-harness.js';

/**
 * The operator page against a robot slower than the bridge's time-out (the simulation's tour services
 * made slow or mute, at the ROS port). A short time-out (1.5 s) stands in for the 5 s default, so the
 * robot's 2.5 s is the 7 s of a slow robot against it.
 */

const ROS_TIMEOUT_MS = 1_500;
const SLOW_ROBOT_MS = 2_500;

const tourNamed = (name: string) => ({
  tour_name: name,
  map_name: 'park',
  steps: [{ description: 'Gate', destination: null, dialogue: null }],
});

const storedStatus = async (service: KioskService, name: string): Promise<number> =>
  (await request(service.baseUrl, 'GET', `/tour/${encodeURIComponent(name)}`)).status;

/** The page's text an operator reads in the editor: the problem panel and the status line. */
const editorText = (page: Page): Promise<string> => page.locator('.editor').innerText();

describe('operator page: a robot slower than the time-out', () => {
  let service: KioskService;
  let browser: Browser;
  let page: Page;
  let problems: string[];

  before(async () => {
    service = await startKioskService(0, { ros_timeout_ms: String(ROS_TIMEOUT_MS) });
    browser = await launchBrowser();
    page = await browser.newPage();
    // The time-outs answer 504 on purpose; reading back a tour not (or no longer) there answers 404.
    problems = watchPage(page, [404, 504]);
    await page.goto(`${service.baseUrl}/admin`);
    await page.getByRole('button', { name: 'welcome', exact: true }).waitFor();
  });
  after(async () => {
    service.sim.faults.setSlow('tour_create', 0);
    service.sim.faults.setSlow('tour_delete', 0);
    service.sim.faults.setUnresponsive('tour_update', false);
    await browser.close();
    await service.stop();
  });

  it('a create the robot confirms too late: says it is saving, that it may still be created, then that it was', async () => {
    service.sim.faults.setSlow('tour_create', SLOW_ROBOT_MS);
    await page.getByRole('button', { name: 'New tour' }).click();
    await page.getByLabel('Tour name').fill('slow walk');
    await page.getByLabel('Map name').fill('park');
    await page.locator('#steps > li').first().getByLabel('Description').fill('Gate');
    await page.getByRole('button', { name: 'Save' }).click();

    // The work in progress: the button and the status line say so; focus stays on the button.
    const saveButton = page.locator('#save');
    assert.equal(await saveButton.textContent(), 'Saving…');
    assert.equal(await saveButton.getAttribute('aria-disabled'), 'true');
    assert.equal(await page.locator('#editor-status').textContent(), 'Saving “slow walk”…');
    assert.equal(await page.evaluate('document.activeElement.id'), 'save');
    await assertNoSeriousViolations(page, 'the operator page, saving');

    // The time-out, in plain words, and not "failed": the robot may still create it.
    const problem = page.locator('#problem');
    await problem.locator('h3', { hasText: 'Not confirmed' }).waitFor();
    assert.equal(
      await problem.locator('h3').textContent(),
      'Not confirmed: the robot did not answer in time',
    );
    assert.match(
      (await problem.locator('.problem__detail').textContent()) ?? '',
      /“slow walk” may still have been created\. .*the list reloads to show it/,
    );
    assert.doesNotMatch(await editorText(page), /failed|ROS service|\d ms/);
    // The form is usable at once, not after a list reload.
    assert.equal(await saveButton.textContent(), 'Save');
    assert.equal(await saveButton.getAttribute('aria-disabled'), 'false');
    await assertNoSeriousViolations(page, 'the operator page, a change not confirmed');

    // The robot creates it after its delay; the page reads it back and says so, and the list shows it.
    await page
      .locator('#editor-status', {
        hasText: 'Created “slow walk”: the robot was slow to confirm, but it is done.',
      })
      .waitFor({ timeout: 15_000 });
    assert.equal(await problem.isHidden(), true);
    assert.equal(await page.locator('#editor-heading').textContent(), 'Edit tour “slow walk”');
    await page.locator('#tour-list [aria-current="true"]', { hasText: 'slow walk' }).waitFor();
    assert.equal(await storedStatus(service, 'slow walk'), 200);
    await assertNoSeriousViolations(page, 'the operator page, confirmed late');
    service.sim.faults.setSlow('tour_create', 0);
  });

  it('a save the robot never carries out: says so once it has checked, and keeps the edits', async () => {
    assert.equal((await sendJson(service.baseUrl, 'POST', '/tour', tourNamed('mute'))).status, 201);
    await page.getByRole('button', { name: 'Reload' }).click();
    await page.getByRole('button', { name: 'mute', exact: true }).click();
    await page.locator('#editor-heading', { hasText: 'Edit tour “mute”' }).waitFor();
    service.sim.faults.setUnresponsive('tour_update', true);
    await page.getByLabel('Map name').fill('garden');
    await page.getByRole('button', { name: 'Save' }).click();

    const problem = page.locator('#problem');
    await problem.locator('h3', { hasText: 'Not confirmed' }).waitFor();
    assert.match(
      (await problem.locator('.problem__detail').textContent()) ?? '',
      /your changes to “mute” may still have been saved/,
    );
    await problem.locator('h3', { hasText: 'Not saved: “mute” is unchanged' }).waitFor({ timeout: 15_000 });
    assert.equal(await page.getByLabel('Map name').inputValue(), 'garden');
    const stored = await request(service.baseUrl, 'GET', '/tour/mute');
    assert.equal((stored.json as { map_name: string }).map_name, 'park');
    await assertNoSeriousViolations(page, 'the operator page, a change not made');
    service.sim.faults.setUnresponsive('tour_update', false);

    // Saving again once the robot answers goes through.
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('#editor-status', { hasText: 'Saved “mute”.' }).waitFor();
  });

  it('a rename the robot confirms too late: finishes it once the new tour is there', async () => {
    await page.getByRole('button', { name: 'slow walk', exact: true }).click();
    await page.locator('#editor-heading', { hasText: 'Edit tour “slow walk”' }).waitFor();
    service.sim.faults.setSlow('tour_create', SLOW_ROBOT_MS);
    await page.getByLabel('Tour name').fill('slower walk');
    const asked = nextDialog(page, 'accept');
    await page.getByRole('button', { name: 'Save' }).click();
    await asked;
    const problem = page.locator('#problem');
    await problem.locator('h3', { hasText: 'Not confirmed' }).waitFor();
    assert.match(
      (await problem.locator('.problem__detail').textContent()) ?? '',
      /the tour may still have been saved as “slower walk”\. .*The old tour is kept until that is known/,
    );
    await page
      .locator('#editor-status', {
        hasText: 'Renamed “slow walk” to “slower walk”: the robot was slow to confirm, but it is done.',
      })
      .waitFor({ timeout: 15_000 });
    service.sim.faults.setSlow('tour_create', 0);
    assert.equal(await page.locator('#editor-heading').textContent(), 'Edit tour “slower walk”');
    assert.equal(await storedStatus(service, 'slower walk'), 200);
    assert.equal(await storedStatus(service, 'slow walk'), 404);
  });

  it('a delete the robot confirms too late: closes the tour once it is gone', async () => {
    service.sim.faults.setSlow('tour_delete', SLOW_ROBOT_MS);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete tour' }).click();
    assert.equal(await page.locator('#delete-tour').textContent(), 'Deleting…');
    const problem = page.locator('#problem');
    await problem.locator('h3', { hasText: 'Not confirmed' }).waitFor();
    assert.match(
      (await problem.locator('.problem__detail').textContent()) ?? '',
      /“slower walk” may still have been deleted\./,
    );
    await page
      .locator('#editor-status', {
        hasText: 'Deleted “slower walk”: the robot was slow to confirm, but it is done.',
      })
      .waitFor({ timeout: 15_000 });
    service.sim.faults.setSlow('tour_delete', 0);
    assert.equal(await storedStatus(service, 'slower walk'), 404);
    assert.equal(await page.getByRole('button', { name: 'slower walk', exact: true }).count(), 0);
  });

  it('says a list the robot did not send in time in plain words', async () => {
    service.sim.faults.setUnresponsive('tour_list', true);
    try {
      await page.getByRole('button', { name: 'Reload' }).click();
      await page.locator('#list-status', { hasText: 'Could not load' }).waitFor();
      assert.equal(
        await page.locator('#list-status').textContent(),
        'Could not load the tours: the robot did not answer in time. Press Reload to try again.',
      );
    } finally {
      service.sim.faults.setUnresponsive('tour_list', false);
    }
  });

  it('logged no errors beyond the time-outs and read-backs', () => {
    assert.deepEqual(problems, []);
  });
});
