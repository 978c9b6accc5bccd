import { listTours, unconfirmed } from './admin-api.js';
import { element } from './dom.js';

/** The operator page's list of tours: one button per tour, the one being edited marked. */

/** Names listed at most; a robot with more tours than this needs a search, not a longer list. */
const MAX_LISTED = 1_000;

export interface TourListView {
  readonly list: HTMLUListElement;
  readonly status: HTMLElement;
  /** The name of the tour the editor shows, if it shows a stored one. */
  readonly current: () => string | undefined;
  /** A tour's button was pressed. */
  readonly open: (name: string) => void;
}

export interface TourList {
  /** Reads the names from the robot and shows them (or why it could not). */
  load(): Promise<void>;
  /** Marks the tour the editor shows (aria-current), and nothing while it shows a new tour or nothing. */
  markCurrent(): void;
  /** The names the robot listed at the last load: a name among them is taken (the robot may hold more). */
  has(name: string): boolean;
}

export const createTourList = (view: TourListView): TourList => {
  let known = new Set<string>();
  const markCurrent = (): void => {
    const current = view.current();
    for (const button of view.list.querySelectorAll<HTMLButtonElement>('.tour-list__open')) {
      if (button.dataset['name'] === current) button.setAttribute('aria-current', 'true');
      else button.removeAttribute('aria-current');
    }
  };

  const render = (names: readonly string[]): void => {
    const items = names.slice(0, MAX_LISTED).map((name) => {
      const button = element('button', { type: 'button', class: 'tour-list__open', 'data-name': name }, name);
      button.addEventListener('click', () => {
        view.open(name);
      });
      const item = element('li');
      item.append(button);
      return item;
    });
    view.list.replaceChildren(...items);
    markCurrent();
    const more = names.length > MAX_LISTED ? ` (first ${MAX_LISTED} shown)` : '';
    view.status.textContent =
      names.length === 0 ? 'No tours yet.' : `${names.length} tour${names.length === 1 ? '' : 's'}${more}`;
  };

  return {
    load: async () => {
      const result = await listTours();
      if (!result.ok) {
        const { title, detail } = result.problem;
        view.status.textContent = unconfirmed(result.problem)
          ? 'Could not load the tours: the robot did not answer in time. Press Reload to try again.'
          : `Could not load the tours: ${title}. ${detail}`;
        return;
      }
      known = new Set(result.value);
      render([...result.value].sort((a, b) => a.localeCompare(b)));
    },
    markCurrent,
    has: (name) => known.has(name),
  };
};
