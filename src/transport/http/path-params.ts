import * as v from 'valibot';
import { problemReply, type HttpReply } from './reply.js';
import type { PathParams, RouteParams } from './route.js';

/**
 * A route's path parameters as its handler gets them: each percent-decoded, then all validated by the
 * route's schema. A parameter that cannot be decoded, or fails the schema, is the route's problem (400).
 */
export const decodeParams = <Params>(
  declared: RouteParams<Params>,
  raw: PathParams,
): { readonly params: Params } | { readonly refusal: HttpReply } => {
  const decoded: Record<string, string> = {};
  for (const name in raw) {
    const value = raw[name] ?? '';
    try {
      decoded[name] = value.includes('%') ? decodeURIComponent(value) : value;
    } catch {
      return {
        refusal: problemReply(declared.problem, `the ${name} in the path is not valid percent-encoding`),
      };
    }
  }
  const checked = v.safeParse(declared.schema, decoded);
  if (!checked.success) return { refusal: problemReply(declared.problem, checked.issues[0].message) };
  return { params: checked.output };
};
