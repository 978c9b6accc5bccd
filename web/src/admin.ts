import { createTour, deleteTour, getTour, listTours, updateTour } from './admin-api.js';
import { renderStep, type StepAction, type StepField } from './admin-steps.js';
import { byId, element } from './dom.js';
import {
  canAddStep,
  draftFromTour,
  emptyDraft,
  emptyStep,
  moveItem,
  TOUR_LIMITS,
  tourFromDraft,
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
}
let editor: Editor | undefined;
let busy = false;

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

/** Shows a problem+json answer: title and status, detail, and each field error next to its field. */
const showProblem = (action: string, problem: Problem): void => {
  clearProblem();
  const status = problem.status === 0 ? '' : ` (${problem.status})`;
  page.problem.append(
    element('h3', { class: 'problem__title' }, `${action} failed: ${problem.title}${status}`),
  );
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

// ---------------------------------------------------------------------------------------------------------
// The list

const renderList = (names: readonly string[], current?: string): void => {
  const items = names.slice(0, MAX_LISTED).map((name) => {
    const button = element('button', { type: 'button', class: 'tour-list__open' }, name);
    if (name === current) button.setAttribute('aria-current', 'true');
    button.addEventListener('click', () => {
      void openTour(name);
    });
    const item = element('li');
    item.append(button);
    return item;
  });
  page.list.replaceChildren(...items);
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
  const names = [...result.value].sort((a, b) => a.localeCompare(b));
  renderList(names, editor?.mode === 'edit' ? editor.draft.tour_name : undefined);
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
  startEditing({ mode: 'edit', draft: draftFromTour(result.value) });
  say('');
  await loadList();
};

const save = async (): Promise<void> => {
  if (editor === undefined || busy) return;
  const tour = tourFromDraft(editor.draft);
  const creating = editor.mode === 'create';
  setBusy(true);
  const result = creating ? await createTour(tour) : await updateTour(tour);
  setBusy(false);
  if (!result.ok) {
    showProblem(creating ? 'Creating' : 'Saving', result.problem);
    page.problem.focus();
    return;
  }
  clearProblem();
  editor.mode = 'edit';
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

/** After a re-render, focus the same action on the step that moved, or the nearest sensible control. */
const focusStepAction = (key: number, preferred: StepAction): void => {
  const step = page.steps.querySelector(`.step[data-key="${key}"]`);
  const candidates = [preferred, preferred === 'up' ? 'down' : 'up', 'remove'];
  for (const action of candidates) {
    const button = step?.querySelector<HTMLButtonElement>(`[data-action="${action}"]`);
    if (button && !button.disabled) {
      button.focus();
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
  editor = undefined;
  clearProblem();
  renderEditor();
  say('');
  page.newTour.focus();
});
page.newTour.addEventListener('click', () => {
  startEditing({ mode: 'create', draft: emptyDraft() });
  say('');
  page.name.focus();
});
page.reload.addEventListener('click', () => {
  void loadList();
});

renderEditor();
void loadList();
