import type { Problem } from './tour-model.js';

/**
 * What the operator page says when someone else got there first: they saved the tour (412), deleted it
 * (404), changed the old tour during a rename, or hold the name a create or rename asked for (409).
 * Headings and sentences only; admin.ts offers the actions.
 */

export interface Explained {
  readonly heading: string;
  readonly problem: Problem;
}

/** A 412: someone saved the tour after this page read it. */
export const explainConflict = (verb: 'saved' | 'deleted', name: string, problem: Problem): Explained => ({
  heading: `Not ${verb}: “${name}” was changed by someone else`,
  problem: {
    ...problem,
    detail:
      verb === 'saved'
        ? 'Someone saved this tour after you opened it. Reload it to see their version (your changes here are dropped), or overwrite it with yours (their changes are lost).'
        : 'Someone saved this tour after you opened it. Reload it to see what changed, or delete it anyway.',
  },
});

/** A 404 on save: someone deleted the tour after this page read it. */
export const explainGone = (name: string, problem: Problem): Explained => ({
  heading: `Not saved: “${name}” no longer exists`,
  problem: {
    ...problem,
    detail:
      'Someone deleted it after you opened it. Save again to create it anew with your version, or close the editor.',
  },
});

/** A rename whose second half (deleting the old tour) failed: the new one exists, the old one too. */
export const explainOldKept = (from: string, to: string, problem: Problem): Explained => ({
  heading: `Saved as “${to}”, but the old tour is still there`,
  problem: {
    ...problem,
    detail:
      problem.status === 412
        ? `The tour was saved under its new name, but someone else changed “${from}” meanwhile, so it was kept: open it to compare, and delete it if it is no longer needed.`
        : `The tour was saved under its new name, but “${from}” could not be deleted (${problem.title}): delete it yourself if it is no longer needed.`,
  },
});

/** A 409 on create is about the name: the name field says so too, not only the banner. */
export const explainNameTaken = (problem: Problem): Problem =>
  problem.status === 409 && !problem.errors.some((error) => error.field === 'tour_name')
    ? {
        ...problem,
        errors: [
          { field: 'tour_name', message: 'A tour with this name already exists: choose another name.' },
          ...problem.errors,
        ],
      }
    : problem;
