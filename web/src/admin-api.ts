import { authorizationHeaders } from './access-token.js';
import { parseProblem, parseTour, parseTourNames, type Problem, type Tour } from './tour-model.js';

/** The tour HTTP API (`/tour`), as the operator page uses it. Every call is bounded by a time-out. */

export type ApiResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly problem: Problem };

const TIMEOUT_MS = 10_000;

const tourPath = (name: string): string => `/tour/${encodeURIComponent(name)}`;

const call = async <T>(
  method: string,
  path: string,
  read: (json: unknown) => T | undefined,
  body?: unknown,
): Promise<ApiResult<T>> => {
  let response: Response;
  let text: string;
  try {
    response = await fetch(path, {
      method,
      headers: {
        ...authorizationHeaders(),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
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
        title: timedOut ? 'No answer' : 'Cannot reach the service',
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
  if (!response.ok) return { ok: false, problem: parseProblem(response.status, json, text) };
  const value = read(json);
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

export const listTours = () => call('GET', '/tour', parseTourNames);
export const getTour = (name: string) => call('GET', tourPath(name), parseTour);
export const createTour = (tour: Tour) => call('POST', '/tour', success, tour);
/** Updates the tour named in the path; the body carries the same name. */
export const updateTour = (tour: Tour) => call('PUT', tourPath(tour.tour_name), success, tour);
export const deleteTour = (name: string) => call('DELETE', tourPath(name), success);
