import type { HeardMsg } from '../../ros/port/ros-messages.js';

/** How many heard reports the simulation keeps: the latest, as a dialogue history's last turns. */
export const HEARD_HISTORY_LENGTH = 16;

/**
 * The `/conversation/heard` reports the simulated robot received, the latest `length`, oldest first: what
 * a robot's dialogue history would correct. Copies, so a publisher reusing its message changes nothing.
 */
export class HeardHistory {
  readonly #reports: HeardMsg[] = [];
  #received = 0;

  constructor(readonly length = HEARD_HISTORY_LENGTH) {}

  add(message: HeardMsg): void {
    const { utterance_id, played_ms, heard_text } = message;
    this.#reports.push({ utterance_id, played_ms, heard_text });
    this.#received += 1;
    if (this.#reports.length > this.length) this.#reports.shift();
  }

  /** The kept reports, oldest first. */
  list(): readonly HeardMsg[] {
    return this.#reports.slice();
  }

  /** Reports received since the simulation started, those dropped from the history included. */
  get received(): number {
    return this.#received;
  }
}
