import { controlIdOf, issueLine, issuesFrom, stillWrong, type FieldIssue } from './admin-issues.js';
import { element } from './dom.js';
import { fieldLabel, fieldMessage, type Problem, type TourDraft } from './tour-model.js';

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

/** A line of the panel's list; with a control, a button that goes to it. */
interface PanelLine {
  readonly text: string;
  readonly control?: HTMLElement | undefined;
}

/** The panel's content: a heading, a sentence, a list and buttons (nothing beside the fields). */
const renderPanel = (
  panel: HTMLElement,
  heading: string,
  detail: string,
  lines: readonly PanelLine[],
  actions: readonly ProblemAction[],
): void => {
  const content: HTMLElement[] = [element('h3', { class: 'problem__title' }, heading)];
  if (detail !== '') content.push(element('p', { class: 'problem__detail' }, detail));
  if (lines.length > 0) {
    const list = element('ul', { class: 'problem__errors' });
    for (const line of lines) {
      const item = element('li');
      const { control } = line;
      if (control === undefined) {
        item.textContent = line.text;
      } else {
        const jump = element('button', { type: 'button', class: 'link' }, line.text);
        jump.addEventListener('click', () => {
          control.focus();
        });
        item.append(jump);
      }
      list.append(item);
    }
    content.push(list);
  }
  if (actions.length > 0) {
    const bar = element('div', { class: 'problem__actions' });
    actions.forEach((action, index) => {
      const button = element('button', { type: 'button', class: index === 0 ? 'primary' : '' }, action.label);
      button.addEventListener('click', action.run);
      bar.append(button);
    });
    content.push(bar);
  }
  panel.replaceChildren(...content);
  panel.hidden = false;
};

/** The detail as shown: a schema failure's repeats its first field error, which the list says anyway. */
const shownDetail = (problem: Problem): string => {
  const first = problem.errors[0];
  return first !== undefined && problem.detail === `${first.field}: ${first.message}` ? '' : problem.detail;
};

/** Shows a problem: a heading, its detail, each field error next to its field, and the offered actions. */
export const showProblemAs = (
  view: ProblemView,
  heading: string,
  problem: Problem,
  actions: readonly ProblemAction[] = [],
): void => {
  clearProblem(view);
  const lines = problem.errors.map((error) => {
    const message = fieldMessage(error.field, error.message);
    return {
      text: `${fieldLabel(error.field)}: ${message}`,
      control: markField(view, error.field, message),
    };
  });
  renderPanel(view.panel, heading, shownDetail(problem), lines, actions);
};

// ---------------------------------------------------------------------------------------------------------
// A problem with the fields, followed as they are edited

/** A problem about fields: the panel says what is still wrong as they are edited, and goes once nothing is. */
export interface FieldProblem {
  readonly heading: string;
  readonly detail: string;
  readonly issues: readonly FieldIssue[];
  readonly actions: readonly ProblemAction[];
}

/** The panel's content for `problem` in `draft`, as text: the same text shows the same panel. */
const panelText = (problem: FieldProblem, draft: TourDraft): string =>
  JSON.stringify([
    problem.heading,
    problem.detail,
    problem.actions.map((action) => action.label),
    listed(problem).map((issue) => issueLine(draft, issue)),
  ]);

const listed = (problem: FieldProblem): FieldIssue[] =>
  problem.issues.filter((issue) => issue.source !== 'taken');

/** Marks each issue's control invalid with its message beside it. */
const markIssues = (view: ProblemView, issues: readonly FieldIssue[]): void => {
  for (const issue of issues) {
    const id = controlIdOf(issue);
    const control = id === undefined ? null : document.getElementById(id);
    if (control === null) continue;
    control.setAttribute('aria-invalid', 'true');
    const beside = document.getElementById(`${control.id}-error`);
    if (beside !== null) beside.textContent = issue.message;
  }
};

/** The text each panel shows for its problem about fields, to tell whether an edit changes it. */
const shownText = new WeakMap<HTMLElement, string>();

const renderFieldProblem = (view: ProblemView, problem: FieldProblem, draft: TourDraft): void => {
  shownText.set(view.panel, panelText(problem, draft));
  const lines = listed(problem).map((issue) => {
    const id = controlIdOf(issue);
    return {
      text: issueLine(draft, issue),
      control: (id === undefined ? null : document.getElementById(id)) ?? undefined,
    };
  });
  renderPanel(view.panel, problem.heading, problem.detail, lines, problem.actions);
};

const unmarkSteps = (view: ProblemView): void => {
  const steps = view.form.querySelector('[data-field="steps"]');
  steps?.removeAttribute('aria-invalid');
  const beside = steps === null ? null : document.getElementById(`${steps.id}-error`);
  if (beside !== null) beside.textContent = '';
};

/** Shows a problem about fields: its heading, detail and list, and each issue beside its field. */
export const showFieldProblem = (view: ProblemView, problem: FieldProblem, draft: TourDraft): void => {
  clearProblem(view);
  markIssues(view, problem.issues);
  renderFieldProblem(view, problem, draft);
};

/** What an edit did to a problem about fields: nothing, a shorter list, or nothing left to fix. */
export type Followed =
  | { readonly outcome: 'unchanged' | 'updated'; readonly problem: FieldProblem }
  | { readonly outcome: 'fixed' };

/**
 * After an edit: the issues still wrong stay marked beside their fields and listed, and the panel is
 * rendered again only when its text changes (it is a live region: each change is read out). With none
 * left the panel goes, and the marks that no edit of a text field cleared (the steps' list) with it.
 */
export const followFieldProblem = (view: ProblemView, problem: FieldProblem, draft: TourDraft): Followed => {
  const issues = stillWrong(problem.issues, draft);
  if (issues.length === 0) {
    // Only the panel and the steps' mark: a field made too long meanwhile keeps its own (refreshField).
    view.panel.hidden = true;
    view.panel.replaceChildren();
    unmarkSteps(view);
    return { outcome: 'fixed' };
  }
  const next = { ...problem, issues };
  // The steps' list has no text an edit changes (and clears the mark of, admin-counters.ts).
  if (problem.issues.some((issue) => issue.field === 'steps')) unmarkSteps(view);
  markIssues(view, issues);
  if (panelText(next, draft) === shownText.get(view.panel)) return { outcome: 'unchanged', problem: next };
  renderFieldProblem(view, next, draft);
  return { outcome: 'updated', problem: next };
};

/** Shows an API problem answering `action` ("Saving"), with its title and status. */
export const showProblem = (view: ProblemView, action: string, problem: Problem): void => {
  showProblemAs(view, failedHeading(action, problem), problem);
};

/** "Saving failed: Invalid tour (422)". */
export const failedHeading = (action: string, problem: Problem): string => {
  const status = problem.status === 0 ? '' : ` (${problem.status})`;
  return `${action} failed: ${problem.title}${status}`;
};

/** An API problem naming fields, answering `action`, as a problem about fields (`draft`: the one sent). */
export const answeredFieldProblem = (action: string, problem: Problem, draft: TourDraft): FieldProblem => ({
  heading: failedHeading(action, problem),
  detail: shownDetail(problem),
  issues: issuesFrom(
    draft,
    problem.errors.map((error) => ({
      field: error.field,
      message: fieldMessage(error.field, error.message),
    })),
    'answer',
  ),
  actions: [],
});
