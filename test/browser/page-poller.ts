import type { Page } from 'playwright-core';

/**
 * A wait for one reading of a page (`read`): it reads again every `everyMs` until `condition` holds of
 * the reading and returns that reading; after `timeoutMs` (10 s unless told) it throws, with the message
 * `timedOut` makes of the last one.
 */
export const pagePoller =
  <T>(
    read: (page: Page) => Promise<T>,
    everyMs: number,
    timedOut: (what: string, timeoutMs: number, last: T) => string,
  ) =>
  async (page: Page, condition: (reading: T) => boolean, what: string, timeoutMs = 10_000): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    let last = await read(page);
    while (!condition(last)) {
      if (Date.now() > deadline) throw new Error(timedOut(what, timeoutMs, last));
      await new Promise((resolve) => setTimeout(resolve, everyMs));
      last = await read(page);
    }
    return last;
  };
