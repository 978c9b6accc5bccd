import { hash } from 'node:crypto';

/**
 * A tour's version, as the HTTP API shows it in `ETag` and checks it in `If-Match`: a strong entity tag
 * made of the SHA-256 of the tour's canonical JSON (`tourMsgToJson`: fixed field order, JSON's own string
 * escapes, nulls kept apart from ""). It depends on the tour's content alone, so the same tour has the
 * same tag whichever store node holds it, across restarts, and on every bridge.
 */

/** The strong entity tag of a tour, from its canonical JSON: `"` + 43 base64url characters + `"`. */
export const tourEntityTag = (canonicalJson: string): string =>
  `"${hash('sha256', canonicalJson, 'base64url')}"`;

/** Longest `If-Match` value read; a longer one is refused with 400 rather than parsed. */
export const IF_MATCH_MAX_CHARS = 4096;

/**
 * An `If-Match` header (RFC 9110 §13.1.1): absent, `*`, a list of entity tags, or not a valid value
 * (the reason is said to the client). Weak tags (`W/"…"`) are kept, flagged: strong comparison, which
 * If-Match uses, never matches them.
 */
export type IfMatch =
  | { readonly kind: 'absent' }
  | { readonly kind: 'any' }
  | { readonly kind: 'tags'; readonly tags: readonly { readonly tag: string; readonly weak: boolean }[] }
  | { readonly kind: 'invalid'; readonly reason: string };

const ABSENT: IfMatch = { kind: 'absent' };
const ANY: IfMatch = { kind: 'any' };
// entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE; etagc = %x21 / %x23-7E / obs-text (RFC 9110 §8.8.3).
const ENTITY_TAG = /[ \t]*(W\/)?("[\x21\x23-\x7e\x80-\xff]*")[ \t]*(?:,|$)/y;

export const parseIfMatch = (value: string): IfMatch => {
  if (value === '') return ABSENT;
  if (value.length > IF_MATCH_MAX_CHARS) {
    return { kind: 'invalid', reason: `If-Match is longer than ${IF_MATCH_MAX_CHARS} characters` };
  }
  if (value.trim() === '*') return ANY;
  const tags: { tag: string; weak: boolean }[] = [];
  ENTITY_TAG.lastIndex = 0;
  while (ENTITY_TAG.lastIndex < value.length) {
    const at = ENTITY_TAG.lastIndex;
    const match = ENTITY_TAG.exec(value);
    if (match === null) {
      return {
        kind: 'invalid',
        reason: `If-Match must be * or a list of quoted entity tags, as ETag sends them ("…"); it is not, from character ${at + 1}`,
      };
    }
    tags.push({ tag: match[2] ?? '', weak: match[1] !== undefined });
  }
  return tags.length === 0
    ? { kind: 'invalid', reason: 'If-Match holds no entity tag' }
    : { kind: 'tags', tags };
};

/** Strong comparison (RFC 9110 §8.8.3.2): the same opaque tag, neither of them weak. */
export const ifMatchHolds = (condition: IfMatch & { kind: 'tags' }, current: string): boolean =>
  condition.tags.some((candidate) => !candidate.weak && candidate.tag === current);
