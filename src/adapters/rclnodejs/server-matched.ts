import { firstLine } from '../../binding/error-text.js';

/**
 * Asks the graph, without waiting, whether a server is matched for a client (a service's or an action's),
 * and fails the call when none is, or when rcl cannot tell: a missing server is answered at once, not
 * after the call's time-out.
 */
export const serverMatched = (
  isAvailable: () => boolean,
  handler: { failed(error: Error): void },
  failure: (detail: string, cause: unknown) => Error,
  unavailable: () => Error,
): boolean => {
  let available: boolean;
  try {
    available = isAvailable();
  } catch (error) {
    handler.failed(failure(firstLine(error), error));
    return false;
  }
  if (!available) handler.failed(unavailable());
  return available;
};
