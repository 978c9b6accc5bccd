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

/** What the robot was asked to do when it did not confirm in time. */
export type UnconfirmedChange = 'created' | 'saved' | 'renamed' | 'deleted';

/**
 * A change the robot did not confirm in time (504, or no answer at all): it may still have been made, as
 * the robot carries out a request it received even after the bridge stopped waiting for its answer.
 */
export const explainUnconfirmed = (change: UnconfirmedChange, name: string, problem: Problem): Explained => {
  const what: Record<UnconfirmedChange, string> = {
    created: `“${name}” may still have been created`,
    saved: `your changes to “${name}” may still have been saved`,
    renamed: `the tour may still have been saved as “${name}” (the old one was kept)`,
    deleted: `“${name}” may still have been deleted`,
  };
  const follow =
    change === 'created' || change === 'saved'
      ? 'This page checks the robot again over the next seconds and the list reloads to show it. Your changes stay here.'
      : 'The list reloads to show it.';
  return {
    heading: 'Not confirmed: the robot did not answer in time',
    problem: { ...problem, detail: `The robot is slow to answer: ${what[change]}. ${follow}` },
  };
};

/**
 * After the read-backs: the robot answered and does not hold what was sent (`not made`), or it did not
 * answer those either (`unknown`: nobody can tell yet).
 */
export const explainStillUnconfirmed = (
  change: 'created' | 'saved',
  name: string,
  found: 'not made' | 'unknown',
  problem: Problem,
): Explained => {
  if (found === 'unknown') {
    return {
      heading: 'Still not confirmed: the robot does not answer',
      problem: {
        ...problem,
        detail: `Nobody can tell yet whether ${change === 'created' ? `“${name}” was created` : `your changes to “${name}” were saved`}. Your changes are still here: press Reload on the list once the robot answers, then save again if needed.`,
      },
    };
  }
  return change === 'created'
    ? {
        heading: `Not created: the robot does not list “${name}”`,
        problem: {
          ...problem,
          detail: `The robot still does not hold “${name}”, some seconds after it was asked to create it. Your tour is still here: save again.`,
        },
      }
    : {
        heading: `Not saved: “${name}” is unchanged`,
        problem: {
          ...problem,
          detail: `The robot still holds another version of “${name}”, some seconds after it was asked to save yours. Your changes are still here: save again.`,
        },
      };
};

/** A problem as the page states it: a time-out in plain words rather than the ROS service and its time-out. */
export const plainNoAnswer = (problem: Problem): Problem => ({
  ...problem,
  title: 'The robot did not answer in time',
  detail: 'The robot is slow to answer or busy. Try again in a moment.',
});
