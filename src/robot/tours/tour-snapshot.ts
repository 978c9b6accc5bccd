import * as v from 'valibot';
import { foldTourEvents, type TourState } from './tour-rules.js';
import { issuePath } from '../../protocol/json-issues.js';
import { TourSchema } from '../../protocol/tour-schema.js';

/**
 * The tour store's file: the whole state as one JSON document. Tours are validated with the same
 * schema the HTTP API and the tour rules use, so a file edited by hand cannot bring in a tour the
 * service would refuse.
 */

export const SNAPSHOT_FORMAT = 'tour-bridge/tour-store';
export const SNAPSHOT_VERSION = 1;

const SnapshotSchema = v.strictObject({
  format: v.literal(SNAPSHOT_FORMAT, `format must be "${SNAPSHOT_FORMAT}"`),
  version: v.literal(SNAPSHOT_VERSION, `version must be ${SNAPSHOT_VERSION}`),
  tours: v.array(TourSchema, 'tours must be an array'),
});

export class SnapshotError extends Error {
  override readonly name = 'SnapshotError';
}

/** The state in creation order, as written to the file. */
export const encodeSnapshot = (state: TourState): string =>
  `${JSON.stringify({ format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, tours: [...state.values()] }, null, 1)}\n`;

/** Reads a file's content back into a state; throws SnapshotError saying what is wrong and where. */
export const decodeSnapshot = (text: string): TourState => {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new SnapshotError(`not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = v.safeParse(SnapshotSchema, json);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    throw new SnapshotError(`${issuePath(issue) || 'document'}: ${issue.message}`);
  }
  const names = new Set<string>();
  for (const tour of parsed.output.tours) {
    if (names.has(tour.tour_name)) throw new SnapshotError(`tour "${tour.tour_name}" appears twice`);
    names.add(tour.tour_name);
  }
  return foldTourEvents(parsed.output.tours.map((tour) => ({ type: 'tour.created', tour }) as const));
};
