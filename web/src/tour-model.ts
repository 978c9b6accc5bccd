/**
 * Tours as the operator page edits them. Pure: no DOM, so the rules (limits, reordering, null vs "")
 * are unit-tested in Node. TOUR_LIMITS copies src/protocol/tour-schema.ts (test/unit/web-protocol.test.ts
 * checks they agree); the form enforces them with maxlength so nothing over a limit is ever sent.
 */

export const TOUR_LIMITS = {
  nameMaxChars: 128,
  mapNameMaxChars: 256,
  descriptionMaxChars: 4096,
  destinationMaxChars: 1024,
  dialogueMaxChars: 16384,
  maxSteps: 500,
} as const;

export interface TourStep {
  readonly description: string;
  readonly destination: string | null;
  readonly dialogue: string | null;
}

export interface Tour {
  readonly tour_name: string;
  readonly map_name: string;
  readonly steps: readonly TourStep[];
}

/**
 * A step in the form. Text fields cannot tell "no value" (null) from an empty string, so an empty field
 * becomes null — unless the tour held "" there when it was opened, which is kept (the API keeps the two
 * apart, and merely opening and saving a tour must not change it).
 */
export interface StepDraft {
  /** Stable across reordering, so the page can keep focus on the step that moved. */
  readonly key: number;
  readonly description: string;
  readonly destination: string;
  readonly dialogue: string;
  readonly emptyDestination: '' | null;
  readonly emptyDialogue: '' | null;
}

export interface TourDraft {
  readonly tour_name: string;
  readonly map_name: string;
  readonly steps: readonly StepDraft[];
}

let nextKey = 1;
const newKey = (): number => nextKey++;

export const emptyStep = (): StepDraft => ({
  key: newKey(),
  description: '',
  destination: '',
  dialogue: '',
  emptyDestination: null,
  emptyDialogue: null,
});

export const emptyDraft = (): TourDraft => ({ tour_name: '', map_name: '', steps: [emptyStep()] });

export const draftFromTour = (tour: Tour): TourDraft => ({
  tour_name: tour.tour_name,
  map_name: tour.map_name,
  steps: tour.steps.map((step) => ({
    key: newKey(),
    description: step.description,
    destination: step.destination ?? '',
    dialogue: step.dialogue ?? '',
    emptyDestination: step.destination === '' ? '' : null,
    emptyDialogue: step.dialogue === '' ? '' : null,
  })),
});

export const tourFromDraft = (draft: TourDraft): Tour => ({
  tour_name: draft.tour_name,
  map_name: draft.map_name,
  steps: draft.steps.map((step) => ({
    description: step.description,
    destination: step.destination === '' ? step.emptyDestination : step.destination,
    dialogue: step.dialogue === '' ? step.emptyDialogue : step.dialogue,
  })),
});

/**
 * What the page sends: names without surrounding spaces. A new tour's name is trimmed; an existing tour's
 * name identifies it on the robot and is sent exactly as the robot holds it.
 */
export const normalizeDraft = (draft: TourDraft, mode: 'create' | 'edit'): TourDraft => ({
  ...draft,
  tour_name: mode === 'create' ? draft.tour_name.trim() : draft.tour_name,
  map_name: draft.map_name.trim(),
});

export interface FieldError {
  /** As the API names fields: `tour_name`, `map_name`, `steps.<index>.description`. */
  readonly field: string;
  readonly message: string;
}

/**
 * The page's own rules, checked before anything is sent: no blank names, no step without a description.
 * Stricter than the API, which accepts a name of spaces and an empty description (docs/kiosk.md, "Kiosk and admin
 * pages"); the API's other rules (length, control characters) are left to its 422 answers.
 */
export const validateDraft = (draft: TourDraft): FieldError[] => {
  const errors: FieldError[] = [];
  if (draft.tour_name.trim() === '') errors.push({ field: 'tour_name', message: 'Give the tour a name.' });
  if (draft.map_name.trim() === '') errors.push({ field: 'map_name', message: 'Give the name of its map.' });
  draft.steps.forEach((step, index) => {
    if (step.description.trim() === '') {
      errors.push({
        field: `steps.${index}.description`,
        message: `Describe step ${index + 1}, or remove it.`,
      });
    }
  });
  return errors;
};

/** The tour a draft would save, as a string: two drafts that save the same tour compare equal. */
export const draftFingerprint = (draft: TourDraft): string => JSON.stringify(tourFromDraft(draft));

/** The list with the item at `index` moved by `delta` places; unchanged when that leaves the list. */
export const moveItem = <T>(items: readonly T[], index: number, delta: -1 | 1): T[] => {
  const target = index + delta;
  const copy = [...items];
  const item = copy[index];
  if (item === undefined || target < 0 || target >= copy.length) return copy;
  copy.splice(index, 1);
  copy.splice(target, 0, item);
  return copy;
};

export const canAddStep = (draft: TourDraft): boolean => draft.steps.length < TOUR_LIMITS.maxSteps;

// ---------------------------------------------------------------------------------------------------------
// Reading what the API sends

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isNullableString = (value: unknown): value is string | null =>
  value === null || value === undefined || typeof value === 'string';

export const parseTour = (json: unknown): Tour | undefined => {
  if (!isRecord(json)) return undefined;
  const { tour_name, map_name, steps } = json;
  if (typeof tour_name !== 'string' || typeof map_name !== 'string' || !Array.isArray(steps))
    return undefined;
  const parsed: TourStep[] = [];
  for (const step of steps) {
    if (!isRecord(step)) return undefined;
    const { description, destination, dialogue } = step;
    if (typeof description !== 'string' || !isNullableString(destination) || !isNullableString(dialogue)) {
      return undefined;
    }
    parsed.push({ description, destination: destination ?? null, dialogue: dialogue ?? null });
  }
  return { tour_name, map_name, steps: parsed };
};

export const parseTourNames = (json: unknown): string[] | undefined =>
  Array.isArray(json) && json.every((name) => typeof name === 'string') ? json : undefined;

/** An RFC 9457 problem as the page shows it. */
export interface Problem {
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly errors: readonly { readonly field: string; readonly message: string }[];
}

/** Per-field errors shown at most; a body failing on more fields gets the first ones (enough to act on). */
export const MAX_SHOWN_ERRORS = 20;

const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max)}…` : text);

/** Reads a problem+json body; anything else becomes a generic problem naming the status. */
export const parseProblem = (status: number, json: unknown, fallbackText: string): Problem => {
  if (!isRecord(json)) {
    return { status, title: `HTTP ${status}`, detail: clip(fallbackText, 500), errors: [] };
  }
  const title = typeof json['title'] === 'string' ? json['title'] : `HTTP ${status}`;
  const detail = typeof json['detail'] === 'string' ? json['detail'] : '';
  const errors = (Array.isArray(json['errors']) ? json['errors'] : [])
    .filter(isRecord)
    .slice(0, MAX_SHOWN_ERRORS)
    .map((error) => ({
      field: typeof error['field'] === 'string' ? clip(error['field'], 200) : '(body)',
      message: typeof error['message'] === 'string' ? clip(error['message'], 500) : 'invalid',
    }));
  return { status, title: clip(title, 200), detail: clip(detail, 2000), errors };
};
