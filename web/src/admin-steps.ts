import { counterFor, refreshField } from './admin-counters.js';
import { element } from './dom.js';
import { canAddStep, emptyStep, moveItem, TOUR_LIMITS, type StepDraft } from './tour-model.js';

/** Step fields by name: the form control's `data-field` is `steps.<index>.<name>`, as the API names errors. */
export type StepField = 'description' | 'destination' | 'dialogue';
export type StepAction = 'up' | 'down' | 'remove';

const FIELDS: readonly {
  readonly name: StepField;
  readonly label: string;
  readonly multiline: boolean;
  readonly maxLength: number;
  readonly hint?: string;
}[] = [
  { name: 'description', label: 'Description', multiline: true, maxLength: TOUR_LIMITS.descriptionMaxChars },
  {
    name: 'destination',
    label: 'Destination',
    multiline: false,
    maxLength: TOUR_LIMITS.destinationMaxChars,
    hint: 'Location id on the map; empty for none.',
  },
  {
    name: 'dialogue',
    label: 'Dialogue',
    multiline: true,
    maxLength: TOUR_LIMITS.dialogueMaxChars,
    hint: 'What the robot says here; empty for nothing.',
  },
];

const fieldControl = (step: StepDraft, field: (typeof FIELDS)[number]): HTMLElement => {
  const id = `step-${step.key}-${field.name}`;
  const wrapper = element('div', { class: 'field' });
  // The count sits beside the label, so the limit is in view without taking a line of its own.
  const head = element('div', { class: 'field__head' });
  head.append(element('label', { for: id }, field.label), counterFor(id));
  wrapper.append(head);
  // No maxlength: it would cut pasted text without a word. The counter shows the limit instead.
  const attributes: Record<string, string> = {
    id,
    name: id,
    'data-step-field': field.name,
    'data-max-chars': String(field.maxLength),
    // What Enter does here: the hint at the top of the form (admin.html), one line per kind of field.
    'aria-describedby': [
      `${id}-error`,
      `${id}-count`,
      ...(field.hint === undefined ? [] : [`${id}-hint`]),
      field.multiline ? 'key-enter-new-line' : 'key-enter-saves',
    ].join(' '),
  };
  if (field.name === 'description') attributes['required'] = '';
  const control = field.multiline
    ? element('textarea', { ...attributes, rows: '3' })
    : element('input', { ...attributes, type: 'text', autocomplete: 'off' });
  control.value = step[field.name];
  wrapper.append(control);
  if (field.hint !== undefined) wrapper.append(element('p', { id: `${id}-hint`, class: 'hint' }, field.hint));
  wrapper.append(element('p', { id: `${id}-error`, class: 'field__error' }));
  return wrapper;
};

/**
 * A step's button. Its accessible name is its visible text followed by the step it acts on ("Move up step
 * 2"): the visible words come first (WCAG 2.5.3, so speech control finds it by what it shows), the arrow
 * is decoration, and the step number is there for screen readers only.
 */
const actionButton = (action: StepAction, arrow: string, text: string) => {
  const button = element('button', { type: 'button', class: 'step__action', 'data-action': action });
  if (arrow !== '') button.append(element('span', { 'aria-hidden': 'true' }, `${arrow} `));
  button.append(text, element('span', { class: 'visually-hidden step__number' }));
  return button;
};

/** What of a rendered step depends on its place in the list, so a move or a removal updates only that. */
interface StepPlace {
  readonly legend: HTMLLegendElement;
  readonly controls: readonly HTMLElement[];
  readonly up: HTMLButtonElement;
  readonly down: HTMLButtonElement;
  readonly numbers: readonly HTMLElement[];
  index: number;
  count: number;
}
const places = new WeakMap<HTMLLIElement, StepPlace>();

/** One step as a fieldset: its three fields and its move up / move down / remove buttons, not yet placed. */
const createStep = (step: StepDraft): HTMLLIElement => {
  const item = element('li', { class: 'step', 'data-key': String(step.key) });
  const fieldset = element('fieldset');
  const legend = element('legend');
  fieldset.append(legend);
  const fields = element('div', { class: 'step__fields' });
  for (const field of FIELDS) fields.append(fieldControl(step, field));
  fieldset.append(fields);
  const actions = element('div', { class: 'step__actions' });
  const up = actionButton('up', '↑', 'Move up');
  const down = actionButton('down', '↓', 'Move down');
  actions.append(up, down, actionButton('remove', '', 'Remove'));
  fieldset.append(actions);
  item.append(fieldset);
  places.set(item, {
    legend,
    controls: [...fields.querySelectorAll<HTMLElement>('[data-step-field]')],
    up,
    down,
    numbers: [...actions.querySelectorAll<HTMLElement>('.step__number')],
    index: -1,
    count: -1,
  });
  return item;
};

/** Numbers a step for its place: its legend, its fields' API paths, its buttons' names and states. */
const placeStep = (item: HTMLLIElement, index: number, count: number): void => {
  const place = places.get(item);
  if (place === undefined || (place.index === index && place.count === count)) return;
  if (place.index !== index) {
    const number = index + 1;
    place.legend.textContent = `Step ${number}`;
    for (const control of place.controls) {
      control.dataset['field'] = `steps.${index}.${control.dataset['stepField'] ?? ''}`;
    }
    for (const span of place.numbers) span.textContent = ` step ${number}`;
  }
  place.up.disabled = index === 0;
  place.down.disabled = index === count - 1;
  place.index = index;
  place.count = count;
};

/**
 * Shows `steps` in `list`, keeping the element of every step already shown (matched by its key): a move
 * moves one element, a removal removes one, and the others are only renumbered where their place
 * changed. A tour of 500 steps is not rebuilt for each edit, and focus and typing stay where they are.
 */
export const renderSteps = (list: HTMLOListElement, steps: readonly StepDraft[]): void => {
  const shown = new Map<number, HTMLLIElement>();
  for (const item of list.querySelectorAll<HTMLLIElement>(':scope > li.step')) {
    shown.set(Number(item.dataset['key']), item);
  }
  const kept = new Set(steps.map((step) => step.key));
  for (const [key, item] of shown) {
    if (!kept.has(key)) item.remove();
  }
  const created: HTMLLIElement[] = [];
  let cursor = list.firstElementChild;
  steps.forEach((step, index) => {
    let item = shown.get(step.key);
    if (item === undefined) {
      item = createStep(step);
      created.push(item);
    }
    if (item === cursor) cursor = cursor.nextElementSibling;
    else list.insertBefore(item, cursor);
    placeStep(item, index, steps.length);
  });
  // Counters need the fields in the document; those of steps already shown are up to date.
  for (const item of created) {
    for (const control of item.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('[data-max-chars]')) {
      refreshField(control, Number(control.dataset['maxChars']));
    }
  }
};

export interface StepEditing {
  readonly list: HTMLOListElement;
  readonly addStep: HTMLButtonElement;
  /** The steps of the draft being edited; undefined when the editor is closed. */
  readonly steps: () => readonly StepDraft[] | undefined;
  readonly setSteps: (steps: readonly StepDraft[]) => void;
  /** Renders the steps again from the draft. */
  readonly render: () => void;
  /**
   * After each edit, once the fields show it: `said` is what to tell screen readers (the editor's status
   * line), if anything; the page may say it otherwise (with what it did to a problem the panel shows).
   */
  readonly edited: (said?: string) => void;
}

/**
 * After a re-render, focus the same action on the step that moved, or the nearest sensible control, and
 * bring the whole step into view (not only its button), clear of the sticky Save bar.
 */
const focusStepAction = (editing: StepEditing, key: number, preferred: StepAction): void => {
  const step = editing.list.querySelector<HTMLElement>(`.step[data-key="${key}"]`);
  const candidates = [preferred, preferred === 'up' ? 'down' : 'up', 'remove'];
  for (const action of candidates) {
    const button = step?.querySelector<HTMLButtonElement>(`[data-action="${action}"]`);
    if (button && !button.disabled) {
      button.focus({ preventScroll: true });
      step?.scrollIntoView({ block: 'nearest' });
      return;
    }
  }
  editing.addStep.focus();
};

/** Typing in a step's fields, its move and remove buttons, and "Add step". */
export const wireStepEditing = (editing: StepEditing): void => {
  editing.list.addEventListener('input', (event) => {
    const control = event.target;
    if (!(control instanceof HTMLInputElement || control instanceof HTMLTextAreaElement)) return;
    const key = Number(control.closest<HTMLElement>('.step')?.dataset['key']);
    const field = control.dataset['stepField'] as StepField | undefined;
    const steps = editing.steps();
    if (field === undefined || steps === undefined) return;
    refreshField(control, Number(control.dataset['maxChars']));
    editing.setSteps(steps.map((step) => (step.key === key ? { ...step, [field]: control.value } : step)));
    editing.edited();
  });

  editing.list.addEventListener('click', (event) => {
    const button = event.target instanceof Element ? event.target.closest('button[data-action]') : null;
    const steps = editing.steps();
    if (!(button instanceof HTMLButtonElement) || steps === undefined) return;
    const action = button.dataset['action'] as StepAction;
    const key = Number(button.closest<HTMLElement>('.step')?.dataset['key']);
    const index = steps.findIndex((step) => step.key === key);
    if (index < 0) return;
    if (action === 'remove') {
      const remaining = steps.filter((step) => step.key !== key);
      editing.setSteps(remaining);
      editing.render();
      const neighbour = remaining[Math.min(index, remaining.length - 1)];
      if (neighbour === undefined) editing.addStep.focus();
      else focusStepAction(editing, neighbour.key, 'remove');
      editing.edited(`Removed step ${index + 1}.`);
      return;
    }
    const delta = action === 'up' ? -1 : 1;
    editing.setSteps(moveItem(steps, index, delta));
    editing.render();
    focusStepAction(editing, key, action);
    editing.edited(`Moved step ${index + 1} to position ${index + 1 + delta}.`);
  });

  editing.addStep.addEventListener('click', () => {
    const steps = editing.steps();
    if (steps === undefined || !canAddStep({ tour_name: '', map_name: '', steps })) return;
    const step = emptyStep();
    editing.setSteps([...steps, step]);
    editing.render();
    document.getElementById(`step-${step.key}-description`)?.focus();
    editing.edited();
  });
};
