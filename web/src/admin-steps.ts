import { element } from './dom.js';
import { TOUR_LIMITS, type StepDraft } from './tour-model.js';

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

const fieldControl = (step: StepDraft, index: number, field: (typeof FIELDS)[number]): HTMLElement => {
  const id = `step-${step.key}-${field.name}`;
  const wrapper = element('div', { class: 'field' });
  wrapper.append(element('label', { for: id }, field.label));
  const attributes: Record<string, string> = {
    id,
    name: id,
    maxlength: String(field.maxLength),
    'data-field': `steps.${index}.${field.name}`,
    'data-step-field': field.name,
    'aria-describedby': `${id}-error${field.hint === undefined ? '' : ` ${id}-hint`}`,
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
const actionButton = (action: StepAction, arrow: string, text: string, number: number, disabled: boolean) => {
  const button = element('button', { type: 'button', class: 'step__action', 'data-action': action });
  if (arrow !== '') button.append(element('span', { 'aria-hidden': 'true' }, `${arrow} `));
  button.append(text, element('span', { class: 'visually-hidden' }, ` step ${number}`));
  button.disabled = disabled;
  return button;
};

/** One step as a fieldset: its three fields and its move up / move down / remove buttons. */
export const renderStep = (step: StepDraft, index: number, count: number): HTMLLIElement => {
  const item = element('li', { class: 'step', 'data-key': String(step.key) });
  const fieldset = element('fieldset');
  const number = index + 1;
  fieldset.append(element('legend', {}, `Step ${number}`));
  const fields = element('div', { class: 'step__fields' });
  for (const field of FIELDS) fields.append(fieldControl(step, index, field));
  fieldset.append(fields);
  const actions = element('div', { class: 'step__actions' });
  actions.append(
    actionButton('up', '↑', 'Move up', number, index === 0),
    actionButton('down', '↓', 'Move down', number, index === count - 1),
    actionButton('remove', '', 'Remove', number, false),
  );
  fieldset.append(actions);
  item.append(fieldset);
  return item;
};
