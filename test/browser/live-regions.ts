import type { Page } from 'playwright-core';

/**
 * What a screen reader would be told: every change of every live region on the page (an `aria-live`
 * other than `off`, or the roles that imply one), as the text it then holds, with when (Date.now() in the
 * page). Emptying a region announces nothing, so only non-empty texts are kept; a region that adds to what
 * it holds (aria-relevant="additions") is logged by what was added; a busy one (aria-busy) when it stops
 * being busy.
 */
export interface Announcement {
  readonly at: number;
  readonly region: string;
  readonly text: string;
}

const WATCH = `(() => {
  const log = [];
  window.__announcements = log;
  const live = '[aria-live]:not([aria-live="off"]), [role="status"], [role="alert"], [role="log"], [role="timer"]';
  for (const region of document.querySelectorAll(live)) {
    const additions = region.getAttribute('aria-relevant') === 'additions';
    new MutationObserver((records) => {
      // A busy region is read once it is no longer busy, as it then reads.
      if (region.getAttribute('aria-busy') === 'true') return;
      const text = additions
        ? records.flatMap((record) => [...record.addedNodes].map((node) => node.textContent)).join('').trim()
        : region.textContent.trim();
      if (text !== '') log.push({ at: Date.now(), region: region.id, text });
    }).observe(region, { childList: true, characterData: true, subtree: true, attributes: true, attributeFilter: ['aria-busy'] });
  }
})()`;

/** Starts logging; call once the page has loaded. */
export const watchAnnouncements = (page: Page): Promise<void> => page.evaluate(WATCH);

export const announcements = (page: Page): Promise<Announcement[]> =>
  page.evaluate<Announcement[]>('window.__announcements.slice()');

/** The page's clock now (Date.now() there), to take announcements from. */
export const pageNow = (page: Page): Promise<number> => page.evaluate<number>('Date.now()');
