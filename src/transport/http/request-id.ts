import { randomUUID } from 'node:crypto';
import type { HttpRequest } from 'uWebSockets.js';

// A caller-supplied id is echoed only when it cannot corrupt a log line or a header.
const SAFE_REQUEST_ID = /^[\w.:-]{1,64}$/;

// Our own ids: UUID-shaped, a random part drawn once per process and a counter, so they are unique across
// restarts and cost no random bytes per request (a randomUUID each would be a visible share of a GET's CPU).
const ID_PREFIX = randomUUID().slice(0, 24);
let idCounter = 0;

/** The request's id: the caller's `x-request-id` when it is safe to echo, else one of ours. */
export const requestIdOf = (req: Pick<HttpRequest, 'getHeader'>): string => {
  const given = req.getHeader('x-request-id');
  if (given !== '' && SAFE_REQUEST_ID.test(given)) return given;
  idCounter = (idCounter + 1) % 0x1000000000000;
  return ID_PREFIX + idCounter.toString(16).padStart(12, '0');
};
