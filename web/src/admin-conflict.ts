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

/**
 * A name another tour has: the robot's 409 on a create or a rename, or (without `problem`) a name the
 * list holds, found before anything was sent. Said once, in plain words (the API's title and detail say
 * the same again); admin.ts marks the name field and offers to go to it.
 */
export const explainNameTaken = (
  name: string,
  renamedFrom: string | undefined,
  problem?: Problem,
): Explained => ({
  heading: `A tour named “${name}” already exists`,
  problem: {
    status: problem?.status ?? 0,
    title: problem?.title ?? '',
    detail: [
      // The stored tour's name looks like this one but is written otherwise: the detail names it.
      problem !== undefined && /another Unicode form/.test(problem.detail) ? problem.detail : '',
      renamedFrom === undefined
        ? 'Choose another name for this tour. Nothing was saved.'
        : `Choose another name: nothing was saved, and “${renamedFrom}” keeps its name.`,
    ]
      .filter((line) => line !== '')
      .join(' '),
    errors: [],
  },
});

/** Said once "Reload their version" has loaded the tour as the other operator left it. */
export const explainReloaded = (verb: 'saved' | 'deleted', name: string): string =>
  verb === 'saved'
    ? `Loaded “${name}” as someone else saved it. Your changes were discarded: make them again if they are still needed.`
    : `Loaded “${name}” as someone else saved it. Nothing was deleted: delete it again if it should still go.`;

/** What the robot was asked to do when it did not confirm in time. */
export type UnconfirmedChange = 'created' | 'saved' | 'renamed' | 'deleted';

/** The change, as "whether …" and "may still have …" clauses name it. */
const changeClause = (
  change: UnconfirmedChange,
  name: string,
  verb: 'may still have been' | 'was',
): string => {
  const were = verb === 'was' ? 'were' : verb;
  switch (change) {
    case 'created':
      return `“${name}” ${verb} created`;
    case 'saved':
      return `your changes to “${name}” ${were} saved`;
    case 'renamed':
      return `the tour ${verb} saved as “${name}”`;
    case 'deleted':
      return `“${name}” ${verb} deleted`;
  }
};

/**
 * A change the robot did not confirm in time (504, or no answer at all): it may still have been made, as
 * the robot carries out a request it received even after the bridge stopped waiting for its answer.
 */
export const explainUnconfirmed = (change: UnconfirmedChange, name: string, problem: Problem): Explained => {
  const kept =
    change === 'renamed'
      ? ' The old tour is kept until that is known, and your changes stay here.'
      : change === 'deleted'
        ? ''
        : ' Your changes stay here.';
  return {
    heading: 'Not confirmed: the robot did not answer in time',
    problem: {
      ...problem,
      detail: `The robot is slow to answer: ${changeClause(change, name, 'may still have been')}. This page checks the robot again over the next seconds and says what it finds; the list reloads to show it.${kept}`,
    },
  };
};

/**
 * After the read-backs: the robot answered and does not hold the change (`not made`), or it did not
 * answer those either (`unknown`: nobody can tell yet).
 */
export const explainStillUnconfirmed = (
  change: UnconfirmedChange,
  name: string,
  found: 'not made' | 'unknown',
  problem: Problem,
): Explained => {
  const again =
    change === 'deleted' ? 'Delete it again if it should go.' : 'Your changes are still here: save again.';
  if (found === 'unknown') {
    return {
      heading: 'Still not confirmed: the robot does not answer',
      problem: {
        ...problem,
        detail: `Nobody can tell yet whether ${changeClause(change, name, 'was')}. Press Reload on the list once the robot answers to see. ${again}`,
      },
    };
  }
  const headings: Record<UnconfirmedChange, string> = {
    created: `Not created: the robot does not hold “${name}”`,
    saved: `Not saved: “${name}” is unchanged`,
    renamed: `Not renamed: the robot does not hold “${name}”`,
    deleted: `Not deleted: the robot still holds “${name}”`,
  };
  return {
    heading: headings[change],
    problem: {
      ...problem,
      detail: `Some seconds later the robot has still not made the change. ${again}`,
    },
  };
};

/** A problem as the page states it: a time-out in plain words rather than the ROS service and its time-out. */
export const plainNoAnswer = (problem: Problem): Problem => ({
  ...problem,
  title: 'The robot did not answer in time',
  detail: 'The robot is slow to answer or busy. Try again in a moment.',
});
