import * as v from 'valibot';
import { expected, jsonObject } from './json-issues.js';
import type { JsonShape } from './json-shape.js';
import { TOUR_LIMITS } from './tour-limits.js';

export { TOUR_LIMITS };

// Control characters in an identifier break logs, file names on the robot and ROS tooling output.
const CONTROL_CHARACTERS = /\p{Cc}/u;
// A lone UTF-16 surrogate (`"\udc00"` in JSON) has no UTF-8 form: no URL can name it and a ROS string
// cannot carry it, so a tour holding one could be created but never read or deleted again.
// (String.prototype.isWellFormed, Node.js 20 and later, is not in the ES2023 library typings.)
const isWellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed();
const wellFormed = (field: string) =>
  v.check(isWellFormed, `${field} must be valid Unicode (it holds a lone UTF-16 surrogate)`);

const countCodePoints = (text: string): number => {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
};
// A text has at most as many code points as UTF-16 units: only a longer one needs counting.
const withinCodePoints = (text: string, maxChars: number): boolean =>
  text.length <= maxChars || countCodePoints(text) <= maxChars;

// A character that shows: neither white space, nor a control or an invisible format character (a
// zero-width space, a soft hyphen). A name without one reads as no name in every list.
const VISIBLE_CHARACTER = /[^\s\p{Cc}\p{Cf}]/u;

// The `check` actions enforce; the `metadata` actions say the same in the OpenAPI document
// (JSON Schema counts maxLength in code points, as the checks do), with an example, since a client
// generating requests from the document may not read a Unicode property pattern.
const EXAMPLES: Readonly<Record<string, string>> = { tour_name: 'garden', map_name: 'park' };
const identifier = (field: string, maxChars: number) =>
  v.pipe(
    v.string(expected('string')),
    v.metadata({ minLength: 1, maxLength: maxChars, pattern: '^\\P{Cc}+$', examples: [EXAMPLES[field]] }),
    v.check((text) => text.length > 0, `${field} must not be empty`),
    v.check((text) => withinCodePoints(text, maxChars), `${field} must be at most ${maxChars} characters`),
    v.check((text) => !CONTROL_CHARACTERS.test(text), `${field} must not contain control characters`),
    wellFormed(field),
  );

/** An identifier a new tour may take: one that also shows (not only spaces or invisible characters). */
const newIdentifier = (field: string, maxChars: number) =>
  v.pipe(
    v.string(expected('string')),
    v.metadata({
      minLength: 1,
      maxLength: maxChars,
      pattern: '^\\P{Cc}*[^\\s\\p{Cc}\\p{Cf}]\\P{Cc}*$',
      examples: [EXAMPLES[field]],
    }),
    v.check((text) => text.length > 0, `${field} must not be empty`),
    v.check((text) => withinCodePoints(text, maxChars), `${field} must be at most ${maxChars} characters`),
    v.check((text) => !CONTROL_CHARACTERS.test(text), `${field} must not contain control characters`),
    v.check(
      (text) => VISIBLE_CHARACTER.test(text),
      `${field} must not be blank (only spaces or invisible characters)`,
    ),
    wellFormed(field),
  );

const boundedText = (field: string, maxChars: number) =>
  v.pipe(
    v.string(expected('string')),
    v.metadata({ maxLength: maxChars }),
    v.check((text) => withinCodePoints(text, maxChars), `${field} must be at most ${maxChars} characters`),
    wellFormed(field),
  );

/** A tour name: 1–128 characters, no control characters. */
export const TourNameSchema = identifier('tour_name', TOUR_LIMITS.nameMaxChars);

// A URL path cannot name these: browsers and fetch read `/tour/..` (and `/tour/%2E%2E`) as `/`, and
// `/tour/.` as `/tour/`, so a tour called that could be listed but never opened, changed or deleted.
const DOT_SEGMENTS: readonly string[] = ['.', '..'];

// Characters that change how a name shows or reads without showing themselves: the bidirectional
// controls (U+202E turns "tour.exe" around), zero-width spaces and joiners of words, the soft hyphen, the
// byte order mark. A name holding one looks like another name. (Zero-width (non-)joiners, which some
// scripts and emoji need, are kept.)
const INVISIBLE_FORMATTING =
  /[\u00AD\u061C\u180E\u200B\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/gu;
// White space (in JavaScript's \s: the byte order mark and the ideographic space too) at either end.
const OUTER_WHITE_SPACE = /^\s+|\s+$/gu;
// The Halfwidth and Fullwidth Forms block: "Ａ" for "A", "ｶ" for "カ" (NFKC folds them; other
// compatibility characters, such as the Dutch "Ĳ", are letters of their own and stay).
const WIDTH_FORMS = /[\uFF01-\uFFEE]/gu;
const foldWidth = (text: string): string =>
  text.search(WIDTH_FORMS) < 0 ? text : text.replace(WIDTH_FORMS, (char) => char.normalize('NFKC'));

/**
 * The one form tour names are compared in (docs/api.md, "Tour names"): invisible formatting characters
 * removed, white space at either end trimmed, fullwidth and halfwidth forms folded, then Unicode NFC (a
 * composed and a decomposed "é" are one). A new tour's name must already be in it, so the name a client
 * sends is the name it gets; a new name whose form equals a stored tour's is refused as that tour's.
 */
export const tourNameKey = (name: string): string =>
  foldWidth(name.replace(INVISIBLE_FORMATTING, '').replace(OUTER_WHITE_SPACE, '')).normalize('NFC');

/**
 * A new tour's name: it must show (newIdentifier), a URL must be able to name it, and it must not look
 * like another name: it must be in the form names are compared in (tourNameKey), each rule with its own
 * message.
 */
const NewTourNameSchema = v.pipe(
  newIdentifier('tour_name', TOUR_LIMITS.nameMaxChars),
  v.metadata({ not: { enum: DOT_SEGMENTS } }),
  v.check(
    (text) => !DOT_SEGMENTS.includes(text),
    'tour_name must not be "." or ".." (no URL can name such a tour; browsers read /tour/.. as /)',
  ),
  v.check(
    (text) => text.search(INVISIBLE_FORMATTING) < 0,
    'tour_name must not contain invisible formatting characters (a bidirectional control such as U+202E, a zero-width space, a soft hyphen, a byte order mark): the name would look like another',
  ),
  v.check(
    (text) => text.search(OUTER_WHITE_SPACE) < 0,
    'tour_name must not begin or end with white space: the name would look like the one without it',
  ),
  v.check(
    (text) => text.search(WIDTH_FORMS) < 0,
    (issue) =>
      `tour_name must not use fullwidth or halfwidth forms: write ${JSON.stringify(foldWidth(issue.input))}, which it looks like`,
  ),
  v.check(
    (text) => text === text.normalize('NFC'),
    (issue) =>
      `tour_name must be in Unicode normal form NFC (a decomposed "é" looks like the composed one): send ${JSON.stringify(issue.input.normalize('NFC'))}`,
  ),
);

/** Longest tour name taken from a path, in UTF-8 bytes: far above any name a tour store keeps. */
const PATH_TOUR_NAME_MAX_BYTES = 4096;

/**
 * A tour name as a path names it, percent-decoded. Tours are stored by other ROS nodes, which may hold
 * names TourNameSchema would not create (longer, other characters): only what cannot be a name at all is
 * refused, and the tour service decides the rest (unknown: 404).
 */
export const PathTourNameSchema = v.object({
  tour_name: v.pipe(
    v.string(),
    // ROS 2 strings end at the first NUL: the service would be asked about another name.
    v.check((name) => !name.includes('\0'), 'a tour name cannot contain NUL (%00)'),
    // A UTF-16 unit is at most 3 UTF-8 bytes: only long names need counting.
    v.check(
      (name) =>
        name.length * 3 <= PATH_TOUR_NAME_MAX_BYTES || Buffer.byteLength(name) <= PATH_TOUR_NAME_MAX_BYTES,
      `the tour name in the path is over ${PATH_TOUR_NAME_MAX_BYTES} bytes; no tour can have such a name`,
    ),
  ),
});

export const TourStepSchema = jsonObject('step', {
  description: boundedText('description', TOUR_LIMITS.descriptionMaxChars),
  destination: v.optional(v.nullable(boundedText('destination', TOUR_LIMITS.destinationMaxChars)), null),
  dialogue: v.optional(v.nullable(boundedText('dialogue', TOUR_LIMITS.dialogueMaxChars)), null),
});
export type TourStep = v.InferOutput<typeof TourStepSchema>;
/** A step as the HTTP API reads it: the input of the pipe's object (its first item takes any value). */
type TourStepInput = v.InferInput<(typeof TourStepSchema)['pipe'][2]>;

/**
 * The steps, their number checked before any step is: a pipe stops before its next schema once an action
 * failed, so an array of 520,000 bad elements costs one issue and no per-element work, not 520,000 issues.
 * (valibot types a pipe of several schemas by its first; the cast states the last one's types.)
 */
const StepsSchema = v.pipe(
  v.array(v.unknown(), expected('array')),
  v.maxLength(TOUR_LIMITS.maxSteps, `steps must hold at most ${TOUR_LIMITS.maxSteps} entries`),
  v.array(TourStepSchema),
  // What the OpenAPI document states (it documents such a pipe by its last schema and what follows it).
  v.metadata({ maxItems: TOUR_LIMITS.maxSteps }),
) as unknown as v.GenericSchema<TourStepInput[], TourStep[]>;

const TOUR_ENTRIES = {
  tour_name: TourNameSchema,
  map_name: identifier('map_name', TOUR_LIMITS.mapNameMaxChars),
  steps: StepsSchema,
};
export const TourSchema = jsonObject('tour', TOUR_ENTRIES);
/** A tour body nests step objects in the steps array in the tour object (3 deep), at most maxSteps of them. */
export const TOUR_BODY_SHAPE: JsonShape = {
  maxDepth: 3,
  maxMembers:
    Object.keys(TOUR_ENTRIES).length +
    TOUR_LIMITS.maxSteps * Object.keys(TourStepSchema.pipe[2].entries).length,
};
/**
 * The body of `POST /tour`: a tour whose names also show, and whose name a URL can hold. Only new tours
 * are held to it: tours stored before (or by other nodes) with such a name can still be read, updated,
 * deleted (by a client that sends the path as it is) and kept in a store file.
 */
export const NewTourSchema = jsonObject('tour', {
  ...TOUR_ENTRIES,
  tour_name: NewTourNameSchema,
  map_name: newIdentifier('map_name', TOUR_LIMITS.mapNameMaxChars),
});
/** The body of `PUT /tour/{tour_name}`: a tour that may leave out tour_name, since the path names it. */
export const TourPathBodySchema = jsonObject('tour', {
  ...TOUR_ENTRIES,
  tour_name: v.optional(TourNameSchema),
});
/** A tour as the HTTP API reads it (optional fields may be absent): the input of the pipe's object. */
export type TourInput = v.InferInput<(typeof TourSchema)['pipe'][2]>;
/** A tour after validation: every field present, absent optionals are null. */
export type Tour = v.InferOutput<typeof TourSchema>;

/**
 * A tour as the tour service answers it. Tours are stored by ROS nodes, which may hold names and texts
 * beyond TOUR_LIMITS (created by other nodes); the API passes them on as they are, so its answers are
 * documented by this shape, not by TourSchema.
 */
export const StoredTourSchema = v.object({
  tour_name: v.string(),
  map_name: v.string(),
  steps: v.array(
    v.object({
      description: v.string(),
      destination: v.nullable(v.string()),
      dialogue: v.nullable(v.string()),
    }),
  ),
});
export const StoredTourNameListSchema = v.array(v.string());
