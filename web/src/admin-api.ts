import { authorizationHeaders } from './access-token.js';
import {
  parseProblem,
  parseTour,
  parseTourNames,
  versionFromEtag,
  type Problem,
  type Tour,
} from './tour-model.js';

/** The tour HTTP API (`/tour`), as the operator page uses it. Every call is bounded by a time-out. */

export type ApiResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly problem: Problem };

const TIMEOUT_MS = 10_000;

const tourPath = (name: string): string => `/tour/${encodeURIComponent(name)}`;

/** What an answer told about access: refused (401), or granted (a success). */
export type AccessOutcome = 'refused' | 'granted';

let onAccess: (outcome: AccessOutcome, tokenSent: boolean) => void = () => undefined;
/**
 * Told what each answer says about access: a 401 is refused (e.g. to point at the token field), a success
 * granted. `tokenSent` tells an answer to a request with a token from one without: a success without a
 * token means the service needs none.
 */
export const whenAccess = (listener: (outcome: AccessOutcome, tokenSent: boolean) => void): void => {
  onAccess = listener;
};

/** The title of the page's own time-out (the service did not answer at all). */
const NO_ANSWER = 'No answer';

/**
 * The robot did not confirm in time: the bridge gave up waiting on the ROS service (504), or the page on
 * the bridge. The request may still have reached the robot, which may still carry it out.
 */
export const unconfirmed = (problem: Problem): boolean =>
  problem.status === 504 || (problem.status === 0 && problem.title === NO_ANSWER);

const versionOf = (headers: Headers): string | undefined => versionFromEtag(headers.get('etag'));

const call = async <T>(
  method: string,
  path: string,
  read: (json: unknown, headers: Headers) => T | undefined,
  body?: unknown,
  headers: Readonly<Record<string, string>> = {},
): Promise<ApiResult<T>> => {
  let response: Response;
  let text: string;
  const authorization = authorizationHeaders();
  const tokenSent = authorization['authorization'] !== undefined;
  try {
    response = await fetch(path, {
      method,
      headers: {
        ...authorization,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    text = await response.text();
  } catch (error) {
    const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
    return {
      ok: false,
      problem: {
        status: 0,
        title: timedOut ? NO_ANSWER : 'Cannot reach the service',
        detail: timedOut
          ? `The service did not answer within ${TIMEOUT_MS / 1000} s.`
          : 'The request did not reach the service; check the connection.',
        errors: [],
      },
    };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (response.status === 401) {
    onAccess('refused', tokenSent);
    return {
      ok: false,
      problem: {
        status: 401,
        title: 'Access refused',
        detail: tokenSent
          ? 'This robot refused the access token given: enter the right one in the field at the top of the page.'
          : 'This robot needs its access token: enter it in the field at the top of the page.',
        errors: [],
      },
    };
  }
  if (!response.ok) {
    const problem = parseProblem(response.status, json);
    // A 412 names the tour's current version: what "overwrite" sends back.
    const etag = versionOf(response.headers);
    return { ok: false, problem: etag === undefined ? problem : { ...problem, etag } };
  }
  onAccess('granted', tokenSent);
  const value = read(json, response.headers);
  if (value === undefined) {
    return {
      ok: false,
      problem: {
        status: response.status,
        title: 'Unexpected answer',
        detail: 'The service answered with data this page does not understand.',
        errors: [],
      },
    };
  }
  return { ok: true, value };
};

const success = (json: unknown): true | undefined =>
  typeof json === 'object' && json !== null && (json as { success?: unknown }).success === true
    ? true
    : undefined;

/** A tour and its version (the ETag), which every change of it sends back in If-Match. */
export interface VersionedTour {
  readonly tour: Tour;
  readonly etag: string;
}

const versionedTour = (json: unknown, headers: Headers): VersionedTour | undefined => {
  const tour = parseTour(json);
  const etag = versionOf(headers);
  return tour === undefined || etag === undefined ? undefined : { tour, etag };
};

export const listTours = () => call('GET', '/tour', parseTourNames);
export const getTour = (name: string) => call('GET', tourPath(name), versionedTour);
export const createTour = (tour: Tour) => call('POST', '/tour', success, tour);
/**
 * Updates the tour `name` (the path) to `tour`, only if it is still the version `etag` (else 412: someone
 * else changed it). The body names the same tour.
 */
export const updateTour = (name: string, tour: Tour, etag: string) =>
  call('PUT', tourPath(name), success, tour, { 'if-match': etag });
/** Deletes the tour `name`, only if it is still the version `etag`. */
export const deleteTour = (name: string, etag: string) =>
  call('DELETE', tourPath(name), success, undefined, { 'if-match': etag });
