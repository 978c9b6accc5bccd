import { element } from './dom.js';
import { fieldLabel, fieldMessage, type Problem } from './tour-model.js';

/**
 * The operator page's problem panel: a heading, a sentence, each field error beside its field and listed
 * as the form names it ("Step 1 description", not `steps.0.description`), and the actions the problem
 * offers (reload or overwrite after a conflict).
 */

export interface ProblemView {
  /** The panel (role alert). */
  readonly panel: HTMLElement;
  /** The form whose controls carry `data-field` as the API names fields. */
  readonly form: HTMLFormElement;
}

/** A button the problem offers; the first is the one to take when unsure. */
export interface ProblemAction {
  readonly label: string;
  readonly run: () => void;
}

export const clearProblem = (view: ProblemView): void => {
  view.panel.hidden = true;
  view.panel.replaceChildren();
  for (const control of view.form.querySelectorAll('[aria-invalid="true"]')) {
    control.removeAttribute('aria-invalid');
  }
  for (const message of view.form.querySelectorAll('.field__error')) message.textContent = '';
};

/** The form control an API error path names, or the nearest one (`steps.0` → the step's first field). */
const controlFor = (form: HTMLFormElement, field: string): HTMLElement | undefined => {
  const parts = field.split('.');
  while (parts.length > 0) {
    const path = parts.join('.');
    const exact = form.querySelector<HTMLElement>(`[data-field="${CSS.escape(path)}"]`);
    if (exact !== null) return exact;
    const inside = form.querySelector<HTMLElement>(`[data-field^="${CSS.escape(`${path}.`)}"]`);
    if (inside !== null) return inside;
    parts.pop();
  }
  return undefined;
};

/** Marks the control of `field` invalid and says why beside it; the control, or undefined if none. */
export const markField = (view: ProblemView, field: string, message: string): HTMLElement | undefined => {
  const control = controlFor(view.form, field);
  if (control === undefined) return undefined;
  control.setAttribute('aria-invalid', 'true');
  const beside = document.getElementById(`${control.id}-error`);
  if (beside !== null) beside.textContent = message;
  return control;
};

/** Shows a problem: a heading, its detail, each field error next to its field, and the offered actions. */
export const showProblemAs = (
  view: ProblemView,
  heading: string,
  problem: Problem,
  actions: readonly ProblemAction[] = [],
): void => {
  clearProblem(view);
  const { panel } = view;
  panel.append(element('h3', { class: 'problem__title' }, heading));
  // The detail of a schema failure repeats its first field error, which is listed below anyway.
  const first = problem.errors[0];
  const repeatsFirst = first !== undefined && problem.detail === `${first.field}: ${first.message}`;
  if (problem.detail !== '' && !repeatsFirst) {
    panel.append(element('p', { class: 'problem__detail' }, problem.detail));
  }
  if (problem.errors.length > 0) {
    const list = element('ul', { class: 'problem__errors' });
    for (const error of problem.errors) {
      const message = fieldMessage(error.field, error.message);
      const control = markField(view, error.field, message);
      const text = `${fieldLabel(error.field)}: ${message}`;
      const item = element('li');
      if (control === undefined) {
        item.textContent = text;
      } else {
        const jump = element('button', { type: 'button', class: 'link' }, text);
        jump.addEventListener('click', () => {
          control.focus();
        });
        item.append(jump);
      }
      list.append(item);
    }
    panel.append(list);
  }
  if (actions.length > 0) {
    const bar = element('div', { class: 'problem__actions' });
    actions.forEach((action, index) => {
      const button = element('button', { type: 'button', class: index === 0 ? 'primary' : '' }, action.label);
      button.addEventListener('click', action.run);
      bar.append(button);
    });
    panel.append(bar);
  }
  panel.hidden = false;
};

/** Shows an API problem answering `action` ("Saving"), with its title and status. */
export const showProblem = (view: ProblemView, action: string, problem: Problem): void => {
  const status = problem.status === 0 ? '' : ` (${problem.status})`;
  showProblemAs(view, `${action} failed: ${problem.title}${status}`, problem);
};
