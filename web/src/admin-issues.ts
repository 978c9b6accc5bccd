import { fieldLabel, validateDraft, type FieldError, type TourDraft } from './tour-model.js';

/**
 * The field errors the operator page's problem panel names, followed as the draft changes: each is tied to
 * its field, a step's to the step itself (its key), so moving or removing steps never points one at
 * another step, and one is dropped once it is fixed or its step is gone. Pure: no DOM.
 */

/** Where an error came from, which says when it is fixed. */
export type IssueSource =
  /** The page's own check (validateDraft): fixed once the check passes for that field. */
  | 'check'
  /** The robot's answer (a 422): fixed once the field is edited, as only the robot can check it again. */
  | 'answer'
  /** A name another tour has (a 409, or a name in the list): fixed once the name is another. */
  | 'taken';

export interface FieldIssue {
  readonly source: IssueSource;
  /** `tour_name`, `map_name`, `steps`, a step's field (with `stepKey`), or a path the page has no field for. */
  readonly field: string;
  /** The step the field belongs to: '' as `field` is the step as a whole. */
  readonly stepKey?: number;
  /** The field's text when the error was found (for `steps`, how many there were). */
  readonly value: string;
  /** Said beside the field. */
  readonly message: string;
  /** Said in the panel's list; a taken name is said by the panel's heading and is not listed. */
  readonly summary: string;
}

const STEP_FIELDS = ['description', 'destination', 'dialogue'] as const;
type StepFieldName = (typeof STEP_FIELDS)[number];
const isStepField = (name: string): name is StepFieldName =>
  (STEP_FIELDS as readonly string[]).includes(name);

/** The field's text in `draft`; undefined when its step is gone. */
const valueIn = (draft: TourDraft, issue: Pick<FieldIssue, 'field' | 'stepKey'>): string | undefined => {
  if (issue.stepKey !== undefined) {
    const step = draft.steps.find((each) => each.key === issue.stepKey);
    if (step === undefined) return undefined;
    if (isStepField(issue.field)) return step[issue.field];
    return JSON.stringify([step.description, step.destination, step.dialogue]);
  }
  if (issue.field === 'tour_name') return draft.tour_name;
  if (issue.field === 'map_name') return draft.map_name;
  if (issue.field === 'steps') return String(draft.steps.length);
  return '';
};

/** The API's path of the field in `draft` (`steps.2.dialogue` for the step now third); undefined when its step is gone. */
export const pathIn = (draft: TourDraft, issue: FieldIssue): string | undefined => {
  if (issue.stepKey === undefined) return issue.field;
  const index = draft.steps.findIndex((step) => step.key === issue.stepKey);
  if (index < 0) return undefined;
  return issue.field === '' ? `steps.${index}` : `steps.${index}.${issue.field}`;
};

/** The id of the issue's control on the page (admin.html, admin-steps.ts), if it has one. */
export const controlIdOf = (issue: FieldIssue): string | undefined => {
  if (issue.stepKey !== undefined) {
    return `step-${issue.stepKey}-${isStepField(issue.field) ? issue.field : 'description'}`;
  }
  const ids: Readonly<Record<string, string>> = {
    tour_name: 'tour-name',
    map_name: 'map-name',
    steps: 'steps-field',
  };
  return ids[issue.field];
};

/** A list line: "Step 2 description: Describe step 2, or remove it." */
export const issueLine = (draft: TourDraft, issue: FieldIssue): string =>
  `${fieldLabel(pathIn(draft, issue) ?? issue.field)}: ${issue.summary}`;

/** Errors named by the API's paths, as issues of the draft they were found in. */
export const issuesFrom = (
  draft: TourDraft,
  errors: readonly FieldError[],
  source: IssueSource,
): FieldIssue[] =>
  errors.map((error) => {
    const step = /^steps\.(\d+)(?:\.(\w+))?$/.exec(error.field);
    const key = step === null ? undefined : draft.steps[Number(step[1])]?.key;
    const where = key === undefined ? { field: error.field } : { field: step?.[2] ?? '', stepKey: key };
    return {
      source,
      ...where,
      value: valueIn(draft, where) ?? '',
      message: error.message,
      summary: error.summary ?? error.message,
    };
  });

/**
 * The issues still wrong in `draft`, each with what is wrong now (a too-long field now blank says so).
 * Dropped: a step that is gone; a checked field that passes; an answered field edited since; a name
 * changed from the taken one.
 */
export const stillWrong = (issues: readonly FieldIssue[], draft: TourDraft): FieldIssue[] => {
  const checked = validateDraft(draft);
  return issues.flatMap((issue): FieldIssue[] => {
    const value = valueIn(draft, issue);
    const path = pathIn(draft, issue);
    if (value === undefined || path === undefined) return [];
    switch (issue.source) {
      case 'check': {
        const now = checked.find((error) => error.field === path);
        return now === undefined
          ? []
          : [{ ...issue, message: now.message, summary: now.summary ?? now.message }];
      }
      case 'answer':
        return value === issue.value ? [issue] : [];
      case 'taken':
        return value === issue.value || value.trim() === issue.value ? [issue] : [];
    }
  });
};
