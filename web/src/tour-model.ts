/**
 * Tours as the operator page edits them. Pure: no DOM, so the rules (limits, reordering, null vs "")
 * are unit-tested in Node. TOUR_LIMITS are the API's own (src/protocol/tour-limits.ts, bundled into the
 * page). The form never cuts text at a limit: each limited field counts its characters as
 * the API does (code points) and a draft over a limit is refused before anything is sent.
 */

import { TOUR_LIMITS } from '../../src/protocol/tour-limits.js';

export { TOUR_LIMITS };

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

/** Characters as the API counts them: code points (an emoji is one, not two UTF-16 units). */
export const countCharacters = (text: string): number => {
  let count = 0;
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    // A high surrogate followed by a low one is one character.
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index += 1;
    }
    count += 1;
  }
  return count;
};

/** A count as the page writes it: 16,384. */
export const formatCount = (count: number): string => count.toLocaleString('en-US');

/** The limit of each limited text field, by its name in the draft. */
export const FIELD_LIMITS = {
  tour_name: TOUR_LIMITS.nameMaxChars,
  map_name: TOUR_LIMITS.mapNameMaxChars,
  description: TOUR_LIMITS.descriptionMaxChars,
  destination: TOUR_LIMITS.destinationMaxChars,
  dialogue: TOUR_LIMITS.dialogueMaxChars,
} as const;

/** What a field's counter says, and whether the text is over the limit. */
export const counterText = (text: string, max: number): { text: string; over: boolean } => {
  const count = countCharacters(text);
  return count > max
    ? {
        text: `${formatCount(count)} / ${formatCount(max)}: ${formatCount(count - max)} too many`,
        over: true,
      }
    : { text: `${formatCount(count)} / ${formatCount(max)}`, over: false };
};

/** The message for a field over its limit, said next to it (where the counter is). */
export const tooLongMessage = (text: string, max: number): string =>
  `Too long: ${formatCount(countCharacters(text))} characters, at most ${formatCount(max)}. Shorten it to save.`;

/**
 * The same in the problem panel's list: without the count, so the list (a live region) does not change,
 * and is not read out again, at each character typed while the field is still too long.
 */
export const tooLongSummary = (max: number): string =>
  `Too long: at most ${formatCount(max)} characters. Shorten it to save.`;

/** Said when a tour has no steps: the API takes one, the page asks first (a tour with nothing to do). */
export const NO_STEPS_MESSAGE = 'Add at least one step.';

const STEP_FIELD_LABELS: Readonly<Record<string, string>> = {
  description: 'description',
  destination: 'destination',
  dialogue: 'dialogue',
};

/**
 * A field as the form names it, from the API's path: `tour_name` → "Tour name", `steps.0.description` →
 * "Step 1 description", `steps.3` → "Step 4". Unknown paths are shown as they are.
 */
export const fieldLabel = (field: string): string => {
  if (field === 'tour_name') return 'Tour name';
  if (field === 'map_name') return 'Map name';
  if (field === 'steps') return 'Steps';
  if (field === '(body)') return 'The tour';
  const step = /^steps\.(\d+)(?:\.(\w+))?$/.exec(field);
  if (step !== null) {
    const number = `Step ${Number(step[1]) + 1}`;
    const name = step[2];
    if (name === undefined) return number;
    return `${number} ${STEP_FIELD_LABELS[name] ?? name}`;
  }
  return field;
};

/**
 * An API message as the page shows it beside a label: the API starts some with the field's JSON name
 * ("tour_name must not contain control characters"), which the label already says.
 */
export const fieldMessage = (field: string, message: string): string => {
  const name = field.split('.').at(-1) ?? field;
  if (!message.startsWith(`${name} `)) return message;
  const rest = message.slice(name.length + 1);
  return `${rest.charAt(0).toUpperCase()}${rest.slice(1)}`;
};

export interface FieldError {
  /** As the API names fields: `tour_name`, `map_name`, `steps.<index>.description`. */
  readonly field: string;
  readonly message: string;
  /** How the problem panel's list says it, when not as `message` (a too-long field: without its count). */
  readonly summary?: string;
}

// Blank as the API sees a new tour's name: nothing but white space and invisible format characters.
const isBlank = (text: string): boolean => !/[^\s\p{Cc}\p{Cf}]/u.test(text);

/**
 * The page's own rules, checked before anything is sent: no blank names, no text over its limit, no step
 * without a description (stricter than the API, which accepts an empty description), and at least one
 * step unless `noStepsAllowed` (the API and the specification accept a tour without steps; the page saves
 * one only when the operator says so). The API's other rules (control characters) are left to its 422
 * answers.
 */
export const validateDraft = (draft: TourDraft, noStepsAllowed = false): FieldError[] => {
  const errors: FieldError[] = [];
  const limit = (field: string, text: string, max: number): boolean => {
    if (countCharacters(text) <= max) return false;
    errors.push({ field, message: tooLongMessage(text, max), summary: tooLongSummary(max) });
    return true;
  };
  if (!limit('tour_name', draft.tour_name, FIELD_LIMITS.tour_name) && isBlank(draft.tour_name)) {
    errors.push({ field: 'tour_name', message: 'Give the tour a name.' });
  }
  if (!limit('map_name', draft.map_name, FIELD_LIMITS.map_name) && isBlank(draft.map_name)) {
    errors.push({ field: 'map_name', message: 'Give the name of its map.' });
  }
  draft.steps.forEach((step, index) => {
    const path = `steps.${index}`;
    if (!limit(`${path}.description`, step.description, FIELD_LIMITS.description)) {
      if (step.description.trim() === '') {
        errors.push({ field: `${path}.description`, message: `Describe step ${index + 1}, or remove it.` });
      }
    }
    limit(`${path}.destination`, step.destination, FIELD_LIMITS.destination);
    limit(`${path}.dialogue`, step.dialogue, FIELD_LIMITS.dialogue);
  });
  if (draft.steps.length === 0 && !noStepsAllowed) errors.push({ field: 'steps', message: NO_STEPS_MESSAGE });
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

/**
 * The tour's version from an ETag header, as If-Match takes it. A proxy that compresses JSON (nginx with
 * `gzip_types application/json`) marks the bridge's strong tag weak (`W/"…"`); the tag itself is still
 * the tour's version, and If-Match matches only its strong form.
 */
export const versionFromEtag = (etag: string | null): string | undefined =>
  etag === null || etag === '' ? undefined : etag.replace(/^W\//, '');

export const parseTourNames = (json: unknown): string[] | undefined =>
  Array.isArray(json) && json.every((name) => typeof name === 'string') ? json : undefined;

/** An RFC 9457 problem as the page shows it. */
export interface Problem {
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly errors: readonly { readonly field: string; readonly message: string }[];
  /** The tour's current version, when the answer named it (a 412). */
  readonly etag?: string;
}

/** Per-field errors shown at most; a body failing on more fields gets the first ones (enough to act on). */
export const MAX_SHOWN_ERRORS = 20;

const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max)}…` : text);

const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  413: 'Content Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/**
 * The sentence for an answer that is not the service's problem+json: an error page of a proxy in front of
 * it (nginx's 502 HTML when the service is down), never shown raw.
 */
const unreadableAnswer = (status: number): string => {
  const named =
    STATUS_TEXT[status] === undefined ? `HTTP ${status}` : `HTTP ${status} ${STATUS_TEXT[status]}`;
  if (status === 502 || status === 503 || status === 504) {
    return `A proxy between this page and the service answered ${named}: the service is not reachable right now (stopped, restarting or too slow). Try again in a moment.`;
  }
  return `The service answered ${named} without details this page can read.`;
};

/**
 * Reads a problem+json body; anything else (a proxy's HTML error page) becomes a problem whose detail is
 * a sentence naming the status, never the body itself.
 */
export const parseProblem = (status: number, json: unknown): Problem => {
  if (!isRecord(json) || typeof json['title'] !== 'string') {
    return {
      status,
      title: STATUS_TEXT[status] ?? `HTTP ${status}`,
      detail: unreadableAnswer(status),
      errors: [],
    };
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
