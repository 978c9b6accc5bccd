import { createTour, deleteTour, getTour, listTours, updateTour } from './admin-api.js';
import { renderStep, type StepAction, type StepField } from './admin-steps.js';
import { byId, element } from './dom.js';
import {
  canAddStep,
  draftFingerprint,
  draftFromTour,
  emptyDraft,
  emptyStep,
  moveItem,
  normalizeDraft,
  TOUR_LIMITS,
  tourFromDraft,
  validateDraft,
  type Problem,
  type TourDraft,
} from './tour-model.js';

/**
 * The operator page: the tour list and one editor, over the HTTP API. Every control is a native button or
 * form field, so the page works from the keyboard as is; after each change focus goes somewhere sensible.
 */

/** Names listed at most; a robot with more tours than this needs a search, not a longer list. */
const MAX_LISTED = 1_000;

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
  map: byId('map-name', HTMLInputElement),
  steps: byId('steps', HTMLOListElement),
  stepCount: byId('step-count', HTMLElement),
  addStep: byId('add-step', HTMLButtonElement),
  save: byId('save', HTMLButtonElement),
  remove: byId('delete-tour', HTMLButtonElement),
  close: byId('close-editor', HTMLButtonElement),
};

interface Editor {
  /** `create` until the tour exists on the robot; then `edit` (the name is fixed: it identifies the tour). */
  mode: 'create' | 'edit';
  draft: TourDraft;
  /** The draft as last opened or saved (draftFingerprint): anything else is an unsaved edit. */
  saved: string;
}
let editor: Editor | undefined;
let busy = false;

const hasUnsavedEdits = (): boolean =>
  editor !== undefined && draftFingerprint(editor.draft) !== editor.saved;

/** Before the editor's draft is thrown away: true when there is nothing to lose or the operator agrees. */
const mayDiscard = (): boolean => {
  if (editor === undefined || !hasUnsavedEdits()) return true;
  const what = editor.mode === 'edit' ? `“${editor.draft.tour_name}”` : 'the new tour';
  return window.confirm(`Discard your unsaved changes to ${what}?`);
};

page.name.maxLength = TOUR_LIMITS.nameMaxChars;
page.map.maxLength = TOUR_LIMITS.mapNameMaxChars;

// ---------------------------------------------------------------------------------------------------------
// Messages and problems

const say = (text: string): void => {
  page.status.textContent = text;
};

const clearProblem = (): void => {
  page.problem.hidden = true;
  page.problem.replaceChildren();
  for (const control of page.form.querySelectorAll('[aria-invalid="true"]')) {
    control.removeAttribute('aria-invalid');
  }
  for (const message of page.form.querySelectorAll('.field__error')) message.textContent = '';
};

/** The form control an API error path names, or the nearest one (`steps.0` → the step's first field). */
const controlFor = (field: string): HTMLElement | undefined => {
  const parts = field.split('.');
  while (parts.length > 0) {
    const path = parts.join('.');
    const exact = page.form.querySelector<HTMLElement>(`[data-field="${CSS.escape(path)}"]`);
    if (exact !== null) return exact;
    const inside = page.form.querySelector<HTMLElement>(`[data-field^="${CSS.escape(`${path}.`)}"]`);
    if (inside !== null) return inside;
    parts.pop();
  }
  return undefined;
};

/** Shows a problem: a heading, its detail, and each field error next to its field. */
const showProblemAs = (heading: string, problem: Problem): void => {
  clearProblem();
  page.problem.append(element('h3', { class: 'problem__title' }, heading));
  // The detail of a schema failure repeats its first field error, which is listed below anyway.
  const first = problem.errors[0];
  const repeatsFirst = first !== undefined && problem.detail === `${first.field}: ${first.message}`;
  if (problem.detail !== '' && !repeatsFirst) {
    page.problem.append(element('p', { class: 'problem__detail' }, problem.detail));
  }
  if (problem.errors.length > 0) {
    const list = element('ul', { class: 'problem__errors' });
    for (const error of problem.errors) {
      const control = controlFor(error.field);
      const item = element('li');
      if (control === undefined) {
        item.textContent = `${error.field}: ${error.message}`;
      } else {
        control.setAttribute('aria-invalid', 'true');
        const message = document.getElementById(`${control.id}-error`);
        if (message !== null) message.textContent = error.message;
        const jump = element('button', { type: 'button', class: 'link' }, `${error.field}: ${error.message}`);
        jump.addEventListener('click', () => {
          control.focus();
        });
        item.append(jump);
      }
      list.append(item);
    }
    page.problem.append(list);
  }
  page.problem.hidden = false;
  say('');
};

/** Shows a problem+json answer to `action`, with its title and status. */
const showProblem = (action: string, problem: Problem): void => {
  const status = problem.status === 0 ? '' : ` (${problem.status})`;
  showProblemAs(`${action} failed: ${problem.title}${status}`, problem);
};

// ---------------------------------------------------------------------------------------------------------
// The list

/** The list highlights the tour the editor shows, and nothing while it shows a new tour or nothing. */
const markCurrent = (): void => {
  const current = editor?.mode === 'edit' ? editor.draft.tour_name : undefined;
  for (const button of page.list.querySelectorAll<HTMLButtonElement>('.tour-list__open')) {
    if (button.dataset['name'] === current) button.setAttribute('aria-current', 'true');
    else button.removeAttribute('aria-current');
  }
};

const renderList = (names: readonly string[]): void => {
  const items = names.slice(0, MAX_LISTED).map((name) => {
    const button = element('button', { type: 'button', class: 'tour-list__open', 'data-name': name }, name);
    button.addEventListener('click', () => {
      if (mayDiscard()) void openTour(name);
    });
    const item = element('li');
    item.append(button);
    return item;
  });
  page.list.replaceChildren(...items);
  markCurrent();
  const more = names.length > MAX_LISTED ? ` (first ${MAX_LISTED} shown)` : '';
  page.listStatus.textContent =
    names.length === 0 ? 'No tours yet.' : `${names.length} tour${names.length === 1 ? '' : 's'}${more}`;
};

const loadList = async (): Promise<void> => {
  const result = await listTours();
  if (!result.ok) {
    page.listStatus.textContent = `Could not load the tours: ${result.problem.title}. ${result.problem.detail}`;
    return;
  }
  renderList([...result.value].sort((a, b) => a.localeCompare(b)));
};

// ---------------------------------------------------------------------------------------------------------
// The editor

const renderSteps = (): void => {
  if (editor === undefined) return;
  const steps = editor.draft.steps;
  page.steps.replaceChildren(...steps.map((step, index) => renderStep(step, index, steps.length)));
  page.stepCount.textContent = `(${steps.length} of at most ${TOUR_LIMITS.maxSteps})`;
  page.addStep.disabled = !canAddStep(editor.draft);
};

const renderEditor = (): void => {
  markCurrent();
  if (editor === undefined) {
    page.form.hidden = true;
    page.heading.textContent = 'Open a tour, or create a new one';
    return;
  }
  page.form.hidden = false;
  const editing = editor.mode === 'edit';
  page.heading.textContent = editing ? `Edit tour “${editor.draft.tour_name}”` : 'New tour';
  page.name.value = editor.draft.tour_name;
  page.name.readOnly = editing;
  page.map.value = editor.draft.map_name;
  page.remove.hidden = !editing;
  renderSteps();
};

const setBusy = (value: boolean): void => {
  busy = value;
  for (const button of [page.save, page.remove, page.newTour]) button.disabled = value;
  page.form.setAttribute('aria-busy', String(value));
};

const startEditing = (next: Editor): void => {
  editor = next;
  clearProblem();
  renderEditor();
  page.heading.focus();
};

const openTour = async (name: string): Promise<void> => {
  say(`Loading “${name}”…`);
  const result = await getTour(name);
  if (!result.ok) {
    showProblem('Loading', result.problem);
    return;
  }
  const draft = draftFromTour(result.value);
  startEditing({ mode: 'edit', draft, saved: draftFingerprint(draft) });
  say('');
  await loadList();
};

/** A 409 on create is about the name: the name field says so too, not only the banner. */
const withNameTaken = (problem: Problem): Problem =>
  problem.status === 409 && !problem.errors.some((error) => error.field === 'tour_name')
    ? {
        ...problem,
        errors: [
          { field: 'tour_name', message: 'A tour with this name already exists: choose another name.' },
          ...problem.errors,
        ],
      }
    : problem;

const save = async (): Promise<void> => {
  if (editor === undefined || busy) return;
  const creating = editor.mode === 'create';
  // Names go out trimmed; the form shows what is sent.
  editor.draft = normalizeDraft(editor.draft, editor.mode);
  page.name.value = editor.draft.tour_name;
  page.map.value = editor.draft.map_name;
  const errors = validateDraft(editor.draft);
  if (errors.length > 0) {
    showProblemAs('Not saved: some fields need attention', { status: 0, title: '', detail: '', errors });
    page.problem.focus();
    return;
  }
  const tour = tourFromDraft(editor.draft);
  setBusy(true);
  const result = creating ? await createTour(tour) : await updateTour(tour);
  setBusy(false);
  if (!result.ok) {
    showProblem(creating ? 'Creating' : 'Saving', creating ? withNameTaken(result.problem) : result.problem);
    page.problem.focus();
    return;
  }
  clearProblem();
  editor.mode = 'edit';
  editor.saved = draftFingerprint(editor.draft);
  renderEditor();
  say(creating ? `Created “${tour.tour_name}”.` : `Saved “${tour.tour_name}”.`);
  await loadList();
};

const removeTour = async (): Promise<void> => {
  if (editor?.mode !== 'edit' || busy) return;
  const name = editor.draft.tour_name;
  if (!window.confirm(`Delete the tour “${name}”? This cannot be undone.`)) return;
  setBusy(true);
  const result = await deleteTour(name);
  setBusy(false);
  if (!result.ok) {
    showProblem('Deleting', result.problem);
    page.problem.focus();
    return;
  }
  editor = undefined;
  renderEditor();
  say(`Deleted “${name}”.`);
  await loadList();
  page.newTour.focus();
};

// ---------------------------------------------------------------------------------------------------------
// Editing events

const updateDraft = (change: (draft: TourDraft) => TourDraft): void => {
  if (editor !== undefined) editor.draft = change(editor.draft);
};

page.name.addEventListener('input', () => {
  updateDraft((draft) => ({ ...draft, tour_name: page.name.value }));
});
page.map.addEventListener('input', () => {
  updateDraft((draft) => ({ ...draft, map_name: page.map.value }));
});

page.steps.addEventListener('input', (event) => {
  const control = event.target;
  if (!(control instanceof HTMLInputElement || control instanceof HTMLTextAreaElement)) return;
  const key = Number(control.closest<HTMLElement>('.step')?.dataset['key']);
  const field = control.dataset['stepField'] as StepField | undefined;
  if (field === undefined) return;
  updateDraft((draft) => ({
    ...draft,
    steps: draft.steps.map((step) => (step.key === key ? { ...step, [field]: control.value } : step)),
  }));
});

/**
 * After a re-render, focus the same action on the step that moved, or the nearest sensible control, and
 * bring the whole step into view (not only its button), clear of the sticky Save bar.
 */
const focusStepAction = (key: number, preferred: StepAction): void => {
  const step = page.steps.querySelector<HTMLElement>(`.step[data-key="${key}"]`);
  const candidates = [preferred, preferred === 'up' ? 'down' : 'up', 'remove'];
  for (const action of candidates) {
    const button = step?.querySelector<HTMLButtonElement>(`[data-action="${action}"]`);
    if (button && !button.disabled) {
      button.focus({ preventScroll: true });
      step?.scrollIntoView({ block: 'nearest' });
      return;
    }
  }
  page.addStep.focus();
};

page.steps.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('button[data-action]') : null;
  if (!(button instanceof HTMLButtonElement) || editor === undefined) return;
  const action = button.dataset['action'] as StepAction;
  const key = Number(button.closest<HTMLElement>('.step')?.dataset['key']);
  const index = editor.draft.steps.findIndex((step) => step.key === key);
  if (index < 0) return;
  const steps = editor.draft.steps;
  if (action === 'remove') {
    updateDraft((draft) => ({ ...draft, steps: steps.filter((step) => step.key !== key) }));
    renderSteps();
    const neighbour = editor.draft.steps[Math.min(index, editor.draft.steps.length - 1)];
    if (neighbour === undefined) page.addStep.focus();
    else focusStepAction(neighbour.key, 'remove');
    say(`Removed step ${index + 1}.`);
    return;
  }
  const delta = action === 'up' ? -1 : 1;
  updateDraft((draft) => ({ ...draft, steps: moveItem(steps, index, delta) }));
  renderSteps();
  focusStepAction(key, action);
  say(`Moved step ${index + 1} to position ${index + 1 + delta}.`);
});

page.addStep.addEventListener('click', () => {
  if (editor === undefined || !canAddStep(editor.draft)) return;
  const step = emptyStep();
  updateDraft((draft) => ({ ...draft, steps: [...draft.steps, step] }));
  renderSteps();
  document.getElementById(`step-${step.key}-description`)?.focus();
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
  editor = undefined;
  clearProblem();
  renderEditor();
  say('');
  page.newTour.focus();
});
page.newTour.addEventListener('click', () => {
  if (!mayDiscard()) return;
  const draft = emptyDraft();
  startEditing({ mode: 'create', draft, saved: draftFingerprint(draft) });
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

renderEditor();
void loadList();
