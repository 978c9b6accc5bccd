import { refreshField } from './admin-counters.js';
import { createTour, deleteTour, getTour, unconfirmed, updateTour, whenAccess } from './admin-api.js';
import { wireTokenField } from './admin-token.js';
import {
  explainConflict,
  explainGone,
  explainNameTaken,
  explainOldKept,
  explainReloaded,
  explainStillUnconfirmed,
  explainUnconfirmed,
  plainNoAnswer,
  type UnconfirmedChange,
} from './admin-conflict.js';
import { checkLateChange, type LateCheck, type ReadBack } from './admin-late-change.js';
import { issuesFrom } from './admin-issues.js';
import { createTourList } from './admin-list.js';
import {
  answeredFieldProblem,
  clearProblem as clearProblemIn,
  followFieldProblem,
  showFieldProblem,
  showProblem as showProblemIn,
  showProblemAs as showProblemAsIn,
  type FieldProblem,
  type ProblemAction,
} from './admin-problem.js';
import { renderSteps as renderStepList, wireStepEditing } from './admin-steps.js';
import { byId } from './dom.js';
import {
  canAddStep,
  draftFingerprint,
  draftFromTour,
  emptyDraft,
  FIELD_LIMITS,
  normalizeDraft,
  TOUR_LIMITS,
  tourFromDraft,
  validateDraft,
  type FieldError,
  type Problem,
  type Tour,
  type TourDraft,
} from './tour-model.js';

/**
 * The operator page: the tour list and one editor, over the HTTP API. Every control is a native button or
 * form field, so the page works from the keyboard as is; after each change focus goes somewhere sensible.
 */

const page = {
  list: byId('tour-list', HTMLUListElement),
  listStatus: byId('list-status', HTMLElement),
  newTour: byId('new-tour', HTMLButtonElement),
  reload: byId('reload', HTMLButtonElement),
  heading: byId('editor-heading', HTMLHeadingElement),
  problem: byId('problem', HTMLElement),
  status: byId('editor-status', HTMLElement),
  form: byId('tour-form', HTMLFormElement),
  name: byId('tour-name', HTMLInputElement),
  nameHint: byId('tour-name-hint', HTMLElement),
  map: byId('map-name', HTMLInputElement),
  steps: byId('steps', HTMLOListElement),
  stepCount: byId('step-count', HTMLElement),
  addStep: byId('add-step', HTMLButtonElement),
  save: byId('save', HTMLButtonElement),
  remove: byId('delete-tour', HTMLButtonElement),
  close: byId('close-editor', HTMLButtonElement),
};

/** A tour as the robot holds it: its name there and the version this page last read or wrote. */
interface StoredVersion {
  readonly name: string;
  /** Sent in If-Match with every change, so a change made by someone else meanwhile is never overwritten. */
  readonly etag: string;
}

interface Editor {
  draft: TourDraft;
  /** The draft as last opened or saved (draftFingerprint): anything else is an unsaved edit. */
  saved: string;
  /** The tour on the robot; none for a new tour. A draft naming another tour renames it when saved. */
  stored?: StoredVersion;
}
let editor: Editor | undefined;
let busy = false;
/** Reading back a change the robot did not confirm in time; stopped by any other change or tour. */
let lateCheck: LateCheck | undefined;

const stopLateCheck = (): void => {
  lateCheck?.cancel();
  lateCheck = undefined;
};

/** A version no tour has: sent when the page could not learn the current one, so the robot refuses (412). */
const UNKNOWN_VERSION = '"unknown"';

const hasUnsavedEdits = (): boolean =>
  editor !== undefined && draftFingerprint(editor.draft) !== editor.saved;

/** Before the editor's draft is thrown away: true when there is nothing to lose or the operator agrees. */
const mayDiscard = (): boolean => {
  if (editor === undefined || !hasUnsavedEdits()) return true;
  const what = editor.stored === undefined ? 'the new tour' : `“${editor.stored.name}”`;
  return window.confirm(`Discard your unsaved changes to ${what}?`);
};

// ---------------------------------------------------------------------------------------------------------
// Messages and problems

const say = (text: string): void => {
  page.status.textContent = text;
};

const problemView = { panel: page.problem, form: page.form };
/** The problem the panel shows when it is about fields: followed as they are edited. */
let fieldProblem: FieldProblem | undefined;

const clearProblem = (): void => {
  fieldProblem = undefined;
  clearProblemIn(problemView);
};
const showProblemAs = (heading: string, problem: Problem, actions: readonly ProblemAction[] = []): void => {
  fieldProblem = undefined;
  showProblemAsIn(problemView, heading, problem, actions);
  say('');
};
const showFields = (problem: FieldProblem): void => {
  if (editor === undefined) return;
  showFieldProblem(problemView, problem, editor.draft);
  fieldProblem = problem;
  say('');
};
const showProblem = (action: string, problem: Problem): void => {
  if (problem.errors.length > 0 && editor !== undefined) {
    showFields(answeredFieldProblem(action, problem, editor.draft));
    return;
  }
  fieldProblem = undefined;
  showProblemIn(problemView, action, unconfirmed(problem) ? plainNoAnswer(problem) : problem);
  say('');
};

/** Said when an edit fixed the last thing the panel named. */
const FIXED = 'Fixed: save when ready.';

/**
 * After each edit: a problem about fields follows it, and one thing is said. The panel changed: it is
 * read out, so the status line stays quiet; nothing left to fix: the panel goes, and the status says so.
 */
const edited = (said?: string): void => {
  if (fieldProblem !== undefined && editor !== undefined) {
    const followed = followFieldProblem(problemView, fieldProblem, editor.draft);
    if (followed.outcome === 'fixed') {
      fieldProblem = undefined;
      say(said === undefined ? FIXED : `${said} ${FIXED}`);
      return;
    }
    fieldProblem = followed.problem;
    if (followed.outcome === 'updated') {
      say('');
      return;
    }
  }
  if (said !== undefined) say(said);
};

// ---------------------------------------------------------------------------------------------------------
// The list

const tourList = createTourList({
  list: page.list,
  status: page.listStatus,
  current: () => editor?.stored?.name,
  open: (name) => {
    if (mayDiscard()) void openTour(name);
  },
});
const loadList = (): Promise<void> => tourList.load();

// ---------------------------------------------------------------------------------------------------------
// The editor

const renderSteps = (): void => {
  if (editor === undefined) return;
  const steps = editor.draft.steps;
  renderStepList(page.steps, steps);
  page.stepCount.textContent = `(${steps.length} of at most ${TOUR_LIMITS.maxSteps})`;
  page.addStep.disabled = !canAddStep(editor.draft);
};

const renderEditor = (): void => {
  tourList.markCurrent();
  if (editor === undefined) {
    page.form.hidden = true;
    page.heading.textContent = 'Open a tour, or create a new one';
    return;
  }
  page.form.hidden = false;
  const stored = editor.stored;
  page.heading.textContent = stored === undefined ? 'New tour' : `Edit tour “${stored.name}”`;
  page.name.value = editor.draft.tour_name;
  // The name identifies the tour on the robot: changing it renames (create the new, delete the old).
  page.nameHint.hidden = stored === undefined;
  page.map.value = editor.draft.map_name;
  refreshField(page.name, FIELD_LIMITS.tour_name);
  refreshField(page.map, FIELD_LIMITS.map_name);
  page.remove.hidden = stored === undefined;
  renderSteps();
};

/**
 * While a change is on its way: its button says so ("Saving…"), the others wait. Save stays focusable
 * (aria-disabled, its presses ignored): disabling the focused button would drop focus to the page.
 */
const setBusy = (activity: 'saving' | 'deleting' | undefined): void => {
  busy = activity !== undefined;
  page.save.setAttribute('aria-disabled', String(busy));
  page.save.textContent = activity === 'saving' ? 'Saving…' : 'Save';
  page.remove.textContent = activity === 'deleting' ? 'Deleting…' : 'Delete tour';
  for (const button of [page.remove, page.newTour]) button.disabled = busy;
  page.form.setAttribute('aria-busy', String(busy));
};

const startEditing = (next: Editor): void => {
  stopLateCheck();
  editor = next;
  clearProblem();
  renderEditor();
  page.heading.focus();
};

/** Opens the tour `name`; `loaded` is said once it is shown. */
const openTour = async (name: string, loaded = ''): Promise<void> => {
  stopLateCheck();
  say(`Loading “${name}”…`);
  const result = await getTour(name);
  if (!result.ok) {
    showProblem('Loading', result.problem);
    // A tour that is gone (404) leaves the list.
    await loadList();
    return;
  }
  const { tour, etag } = result.value;
  const draft = draftFromTour(tour);
  startEditing({ draft, saved: draftFingerprint(draft), stored: { name, etag } });
  say(loaded);
  await loadList();
};

const sameTour = (a: Tour, b: Tour): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * After `tour` was written: the editor shows it as saved, and its version is read back for the next
 * change. If the tour read back is not what was written, someone changed it in between: the page keeps
 * a version that cannot match, so the next save is refused (412) and says so, rather than overwrite it.
 */
const settleSaved = async (tour: Tour, sent: string, message: string): Promise<void> => {
  const fresh = await getTour(tour.tour_name);
  if (editor === undefined) return;
  const etag = fresh.ok && sameTour(fresh.value.tour, tour) ? fresh.value.etag : UNKNOWN_VERSION;
  editor.stored = { name: tour.tour_name, etag };
  // What was sent is saved; anything typed since is still an unsaved edit.
  editor.saved = sent;
  clearProblem();
  renderEditor();
  say(message);
  await loadList();
};

/** A 412: someone else changed the tour since this page read it. Offers reload, and overwrite with `retry`. */
const showConflict = (verb: 'saved' | 'deleted', problem: Problem, retry: (etag: string) => void): void => {
  const name = editor?.stored?.name ?? '';
  const current = problem.etag;
  const reload: ProblemAction = {
    label: 'Reload their version',
    run: () => void openTour(name, explainReloaded(verb, name)),
  };
  const overwrite: ProblemAction = {
    label: verb === 'saved' ? 'Overwrite with mine' : 'Delete anyway',
    run: () => {
      if (current !== undefined) retry(current);
    },
  };
  const { heading, problem: explained } = explainConflict(verb, name, problem);
  showProblemAs(heading, explained, current === undefined ? [reload] : [reload, overwrite]);
  page.problem.focus();
};

/**
 * The name is taken: by a tour in the list (found before anything was sent), or by one the robot named in
 * a 409 (`problem`), which this page may not list yet. Goes once the name is changed.
 */
const showNameTaken = (name: string, renamedFrom: string | undefined, problem?: Problem): void => {
  if (editor === undefined) return;
  const { heading, problem: explained } = explainNameTaken(name, renamedFrom, problem);
  const chooseName: ProblemAction = {
    label: 'Choose another name',
    run: () => {
      page.name.focus();
    },
  };
  const taken = { field: 'tour_name', message: 'Taken by another tour.' };
  showFields({
    heading,
    detail: explained.detail,
    issues: issuesFrom(editor.draft, [taken], 'taken'),
    actions: [chooseName],
  });
  page.problem.focus();
  if (problem !== undefined) void loadList();
};

/** A 404 on save: someone deleted the tour. It leaves the list, and saving again creates it anew. */
const showGone = async (problem: Problem): Promise<void> => {
  if (editor === undefined) return;
  const { heading, problem: explained } = explainGone(editor.stored?.name ?? '', problem);
  delete editor.stored;
  renderEditor();
  showProblemAs(heading, explained);
  page.problem.focus();
  await loadList();
};

/** How to tell whether a change the robot did not confirm was made, and what follows once it was. */
interface LateOutcome {
  readonly read: () => Promise<ReadBack>;
  readonly made: () => void;
}

/** Reads `tour` back: made when the robot holds exactly it. */
const readWritten = (tour: Tour) => async (): Promise<ReadBack> => {
  const fresh = await getTour(tour.tour_name);
  if (fresh.ok) return sameTour(fresh.value.tour, tour) ? 'made' : 'not made';
  return fresh.problem.status === 404 ? 'not made' : 'unknown';
};

/** Reads the tour `name` back: made when the robot no longer holds it. */
const readDeleted = (name: string) => async (): Promise<ReadBack> => {
  const fresh = await getTour(name);
  if (fresh.ok) return 'not made';
  return fresh.problem.status === 404 ? 'made' : 'unknown';
};

/** Said when a read-back finds the change made: the robot did it, only its answer came too late. */
const LATE = 'the robot was slow to confirm, but it is done.';

/**
 * The robot did not confirm a change in time: says it may still have been made, reloads the list, and
 * reads the robot back a few times to tell whether it was made after all (then goes on as if it had been
 * confirmed), was not, or still cannot be told.
 */
const showUnconfirmed = (
  change: UnconfirmedChange,
  name: string,
  problem: Problem,
  outcome: LateOutcome,
): void => {
  const { heading, problem: explained } = explainUnconfirmed(change, name, problem);
  showProblemAs(heading, explained);
  page.problem.focus();
  void loadList();
  const watched = editor;
  lateCheck = checkLateChange(outcome.read, (found) => {
    lateCheck = undefined;
    if (editor !== watched) return;
    if (found === 'made') {
      outcome.made();
      return;
    }
    const still = explainStillUnconfirmed(change, name, found, problem);
    showProblemAs(still.heading, still.problem);
    void loadList();
  });
};

/** The second half of a rename, once the tour exists under its new name: the old one is deleted. */
const finishRename = async (
  from: StoredVersion,
  tour: Tour,
  sent: string,
  message: string,
): Promise<void> => {
  const deleted = await deleteTour(from.name, from.etag);
  await settleSaved(tour, sent, message);
  if (!deleted.ok && deleted.problem.status !== 404) {
    const { heading, problem } = explainOldKept(from.name, tour.tour_name, deleted.problem);
    showProblemAs(heading, problem);
    page.problem.focus();
  }
};

/** Creates `tour` under its new name, then deletes the old one (if nobody changed it meanwhile). */
const rename = async (from: StoredVersion, tour: Tour, sent: string): Promise<void> => {
  const renamed = `Renamed “${from.name}” to “${tour.tour_name}”`;
  const created = await createTour(tour);
  if (created.ok) return finishRename(from, tour, sent, `${renamed}.`);
  if (unconfirmed(created.problem)) {
    showUnconfirmed('renamed', tour.tour_name, created.problem, {
      read: readWritten(tour),
      made: () => void finishRename(from, tour, sent, `${renamed}: ${LATE}`),
    });
    return;
  }
  if (created.problem.status === 409) {
    showNameTaken(tour.tour_name, from.name, created.problem);
    return;
  }
  showProblem('Renaming', created.problem);
  page.problem.focus();
  void loadList();
};

/** Sends the draft: creates, renames or updates (with If-Match), and says what came of it. */
const send = async (current: StoredVersion | undefined, tour: Tour, sent: string): Promise<void> => {
  // A name the list holds is said to be taken before anything is asked or sent (a 409 still may come).
  const renamedFrom = current?.name;
  if (tour.tour_name !== renamedFrom && tourList.has(tour.tour_name)) {
    showNameTaken(tour.tour_name, renamedFrom);
    return;
  }
  if (current === undefined) {
    const result = await createTour(tour);
    if (result.ok) return settleSaved(tour, sent, `Created “${tour.tour_name}”.`);
    if (unconfirmed(result.problem)) {
      showUnconfirmed('created', tour.tour_name, result.problem, {
        read: readWritten(tour),
        made: () => void settleSaved(tour, sent, `Created “${tour.tour_name}”: ${LATE}`),
      });
    } else if (result.problem.status === 409) {
      showNameTaken(tour.tour_name, undefined, result.problem);
    } else {
      showProblem('Creating', result.problem);
      page.problem.focus();
      void loadList();
    }
    return;
  }
  if (tour.tour_name !== current.name) {
    const asked = `Rename “${current.name}” to “${tour.tour_name}”? The tour is saved under the new name, then “${current.name}” is deleted.`;
    return window.confirm(asked) ? rename(current, tour, sent) : undefined;
  }
  const result = await updateTour(current.name, tour, current.etag);
  if (result.ok) return settleSaved(tour, sent, `Saved “${tour.tour_name}”.`);
  if (unconfirmed(result.problem)) {
    showUnconfirmed('saved', tour.tour_name, result.problem, {
      read: readWritten(tour),
      made: () => void settleSaved(tour, sent, `Saved “${tour.tour_name}”: ${LATE}`),
    });
  } else if (result.problem.status === 412) {
    showConflict('saved', result.problem, (latest) => void save({ etag: latest }));
  } else if (result.problem.status === 404) {
    await showGone(result.problem);
  } else {
    showProblem('Saving', result.problem);
    page.problem.focus();
  }
};

/** Refused before sending: the fields the page's own check found wrong, listed and marked. */
const showRefused = (errors: readonly FieldError[]): void => {
  if (editor === undefined) return;
  const issues = issuesFrom(editor.draft, errors, 'check');
  const noStepsOnly = errors.length === 1 && errors[0]?.field === 'steps';
  if (noStepsOnly) {
    showFields({
      heading: 'Not saved: the tour has no steps',
      detail:
        'A tour without steps gives the robot nothing to do. Add a step, or save it without steps to fill in later.',
      issues,
      actions: [
        {
          label: 'Add a step',
          run: () => {
            page.addStep.click();
          },
        },
        { label: 'Save without steps', run: () => void save({ noStepsAllowed: true }) },
      ],
    });
  } else {
    showFields({ heading: 'Not saved: some fields need attention', detail: '', issues, actions: [] });
  }
};

/**
 * Save; "Overwrite with mine" after a conflict (`etag`: the version to overwrite); "Save without steps"
 * (`noStepsAllowed`) once told that the tour has none.
 */
const save = async (options: { etag?: string; noStepsAllowed?: boolean } = {}): Promise<void> => {
  const { etag, noStepsAllowed = false } = options;
  if (editor === undefined || busy) return;
  stopLateCheck();
  const stored = editor.stored;
  if (stored !== undefined && etag !== undefined) editor.stored = { ...stored, etag };
  // A new name (a new tour, or a rename) goes out trimmed, an existing one exactly as the robot holds it.
  const renamed = stored !== undefined && editor.draft.tour_name !== stored.name;
  editor.draft = normalizeDraft(editor.draft, stored === undefined || renamed ? 'create' : 'edit');
  page.name.value = editor.draft.tour_name;
  page.map.value = editor.draft.map_name;
  const errors = validateDraft(editor.draft, noStepsAllowed);
  if (errors.length > 0) {
    showRefused(errors);
    page.problem.focus();
    return;
  }
  const tour = tourFromDraft(editor.draft);
  setBusy('saving');
  say(`Saving “${tour.tour_name}”…`);
  try {
    await send(editor.stored, tour, draftFingerprint(editor.draft));
  } finally {
    setBusy(undefined);
  }
  // A control that re-rendered under the focus: Save, where the operator was, with the outcome said.
  if (document.activeElement === null || document.activeElement === document.body) page.save.focus();
};

const closeDeleted = async (message: string): Promise<void> => {
  stopLateCheck();
  editor = undefined;
  clearProblem();
  renderEditor();
  // The list first: "Deleted" is said once the list no longer shows the tour (CI saw it said while the
  // old list was still there).
  await loadList();
  say(message);
  page.newTour.focus();
};

const removeTour = async (etag?: string): Promise<void> => {
  const stored = editor?.stored;
  if (stored === undefined || busy) return;
  const { name } = stored;
  if (etag === undefined && !window.confirm(`Delete the tour “${name}”? This cannot be undone.`)) return;
  setBusy('deleting');
  say(`Deleting “${name}”…`);
  const result = await deleteTour(name, etag ?? stored.etag);
  setBusy(undefined);
  if (result.ok) {
    await closeDeleted(`Deleted “${name}”.`);
  } else if (result.problem.status === 404) {
    await closeDeleted(`“${name}” was already deleted by someone else.`);
  } else if (result.problem.status === 412) {
    showConflict('deleted', result.problem, (latest) => void removeTour(latest));
  } else if (unconfirmed(result.problem)) {
    showUnconfirmed('deleted', name, result.problem, {
      read: readDeleted(name),
      made: () => void closeDeleted(`Deleted “${name}”: ${LATE}`),
    });
  } else {
    showProblem('Deleting', result.problem);
    page.problem.focus();
  }
};

// ---------------------------------------------------------------------------------------------------------
// Editing events

const updateDraft = (change: (draft: TourDraft) => TourDraft): void => {
  if (editor !== undefined) editor.draft = change(editor.draft);
};

page.name.addEventListener('input', () => {
  updateDraft((draft) => ({ ...draft, tour_name: page.name.value }));
  refreshField(page.name, FIELD_LIMITS.tour_name);
  edited();
});
page.map.addEventListener('input', () => {
  updateDraft((draft) => ({ ...draft, map_name: page.map.value }));
  refreshField(page.map, FIELD_LIMITS.map_name);
  edited();
});

wireStepEditing({
  list: page.steps,
  addStep: page.addStep,
  steps: () => editor?.draft.steps,
  setSteps: (steps) => {
    updateDraft((draft) => ({ ...draft, steps }));
  },
  render: renderSteps,
  edited,
});

page.form.addEventListener('submit', (event) => {
  event.preventDefault();
  void save();
});
page.remove.addEventListener('click', () => {
  void removeTour();
});
page.close.addEventListener('click', () => {
  if (!mayDiscard()) return;
  stopLateCheck();
  editor = undefined;
  clearProblem();
  renderEditor();
  say('');
  page.newTour.focus();
});
page.newTour.addEventListener('click', () => {
  if (!mayDiscard()) return;
  const draft = emptyDraft();
  startEditing({ draft, saved: draftFingerprint(draft) });
  say('');
  page.name.focus();
});
page.reload.addEventListener('click', () => {
  void loadList();
});

// Leaving the page (reload, another address, closing the tab) with unsaved edits asks first.
window.addEventListener('beforeunload', (event) => {
  if (!hasUnsavedEdits()) return;
  // The browser asks with its own wording (pages cannot set the text any more).
  event.preventDefault();
});

const tokenField = wireTokenField(() => void loadList());
whenAccess((outcome, tokenSent) => {
  tokenField[outcome](tokenSent);
});

renderEditor();
void loadList();
