import * as v from 'valibot';

/**
 * What every JSON body schema shares, so that each route's 422 names a problem the same way: the JSON
 * type it got, a missing or unknown field, an array where an object belongs, and where the issue sits.
 */

/** A JSON value's type as a 422 names it: `null` and `array` are not lumped in with `object`. */
const jsonTypeOf = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;

/** The message of a value of the wrong JSON type: `expected string, got number`. */
export const expected =
  (type: string) =>
  (issue: v.BaseIssue<unknown>): string =>
    `expected ${type}, got ${jsonTypeOf(issue.input)}`;

/**
 * A strict object's issues: valibot reports a missing field, an unknown field and a value that is no
 * object at all with the object's one message, so it is told apart here by what the issue expected.
 */
const objectIssue =
  (what: string) =>
  (issue: v.StrictObjectIssue): string =>
    issue.expected === 'never'
      ? `unknown field in ${what}`
      : issue.expected === 'Object'
        ? `expected ${what} object, got ${jsonTypeOf(issue.input)}`
        : 'missing field';

/**
 * A JSON object of these fields: valibot's object schemas take an array for one (its indices as keys),
 * which a 422 would then describe as missing and unknown fields; an array is refused first, as any other
 * non-object is. (The OpenAPI document describes such a pipe by its object schema.)
 */
export const jsonObject = <const Entries extends v.ObjectEntries>(what: string, entries: Entries) =>
  v.pipe(
    v.unknown(),
    v.check((input) => !Array.isArray(input), `expected ${what} object, got array`),
    v.strictObject(entries, objectIssue(what)),
  );

/** Where in a value a validation issue sits, as a JSON-pointer-like dotted path (`steps.0.description`). */
export const issuePath = (issue: v.BaseIssue<unknown>): string =>
  (issue.path ?? []).map((item) => String(item.key)).join('.');
