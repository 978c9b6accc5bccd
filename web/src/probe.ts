/**
 * A read-only record of what the kiosk really did — frames sent, messages played and dropped, states
 * applied — exposed as `window.tourKiosk.snapshot()` for the browser tests and for a technician's console.
 * Every list keeps only its latest entries.
 */

const KEEP = 200;

export interface SentRecord {
  readonly bytes: number;
  readonly ms: number;
}
export interface PlayedRecord {
  readonly messageId: number;
  readonly emotion: string;
  readonly text: string;
  readonly audioBytes: number;
  /** performance.now() when its audio started and ended. */
  readonly startedAt: number;
  endedAt: number | undefined;
  outcome: string | undefined;
}
export interface ProbeSnapshot {
  readonly connects: number;
  readonly statesApplied: number;
  readonly sent: readonly SentRecord[];
  readonly played: readonly PlayedRecord[];
  readonly dropped: readonly number[];
  readonly orphans: readonly number[];
  readonly refused: readonly string[];
  readonly errors: readonly string[];
}

const keep = <T>(list: T[], item: T): void => {
  list.push(item);
  if (list.length > KEEP) list.shift();
};

export class Probe {
  connects = 0;
  statesApplied = 0;
  private readonly sent: SentRecord[] = [];
  private readonly played: PlayedRecord[] = [];
  private readonly dropped: number[] = [];
  private readonly orphans: number[] = [];
  private readonly refused: string[] = [];
  private readonly errors: string[] = [];

  recordSent(record: SentRecord): void {
    keep(this.sent, record);
  }

  recordStart(record: Omit<PlayedRecord, 'endedAt' | 'outcome'>): void {
    keep(this.played, { ...record, endedAt: undefined, outcome: undefined });
  }

  recordEnd(messageId: number, outcome: string): void {
    const record = this.played.findLast((entry) => entry.messageId === messageId);
    if (record === undefined) return;
    record.endedAt = performance.now();
    record.outcome = outcome;
  }

  recordDrop(messageId: number): void {
    keep(this.dropped, messageId);
  }

  recordOrphan(messageId: number): void {
    keep(this.orphans, messageId);
  }

  recordRefusal(reason: string): void {
    keep(this.refused, reason);
  }

  recordError(code: string): void {
    keep(this.errors, code);
  }

  /** A deep copy, safe to hand out. */
  snapshot(): ProbeSnapshot {
    return structuredClone({
      connects: this.connects,
      statesApplied: this.statesApplied,
      sent: this.sent,
      played: this.played,
      dropped: this.dropped,
      orphans: this.orphans,
      refused: this.refused,
      errors: this.errors,
    });
  }
}
