/**
 * A read-only record of what the kiosk really did — frames sent, messages played and dropped, states
 * applied — exposed as `window.tourKiosk.snapshot()` for the browser tests and for a technician's console.
 * Every list keeps only its latest entries.
 */

const KEEP = 200;

export interface SentRecord {
  /** Audio bytes: the WAV file of a whole utterance; the PCM of a streamed one's parts, headers not counted. */
  readonly bytes: number;
  readonly ms: number;
  /** Its turn number (the kiosk counts its utterances as the server does). */
  readonly turn: number;
  /** The AudioContext's clock (s) when the visitor let go: the start of "time to first sound". */
  readonly releasedClock: number;
  /** One binary frame when the visitor let go, or parts while they spoke (`?upload=whole` picks the first). */
  readonly upload: 'whole' | 'streamed';
  /** Binary frames the utterance took: 1 for a whole one. */
  readonly parts: number;
}
/** A `heard` report sent: how much of an answer the visitor heard before cutting it short. */
export interface HeardRecord {
  readonly turn: number;
  readonly playedMs: number;
  readonly messageId: number;
  readonly partPlayedMs: number;
  readonly partMs: number;
}
export interface PlayedRecord {
  readonly messageId: number;
  readonly emotion: string;
  readonly text: string;
  readonly audioBytes: number;
  /** The utterance it answers; undefined for /play_audio messages. */
  readonly turn: number | undefined;
  /** Its place on the AudioContext's clock (s): where its audio was scheduled to start and end. */
  readonly clockStart: number;
  readonly clockEnd: number;
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
  /** Message ids of answers to cancelled turns, dropped on arrival. */
  readonly ignored: readonly number[];
  /** Turns the visitor talked over: the `cancel` commands sent. */
  readonly bargeIns: readonly number[];
  /** How many times hands-free voice interrupted the robot (a press is not counted here). */
  readonly voiceInterrupts: number;
  readonly turnEnds: readonly { readonly turn: number; readonly outcome: string }[];
  /** Why the browser gave no microphone, in its own words (the visitor is only told to ask staff). */
  readonly microphoneProblem: string | undefined;
  /** The `service` of every ack received. */
  readonly acks: readonly string[];
  /** Every transcript received, shown or not. */
  readonly transcripts: readonly { readonly turn: number; readonly text: string; readonly final: boolean }[];
  readonly heard: readonly HeardRecord[];
  /** Streamed utterances the kiosk opened and then abandoned (with `cancel`), by turn. */
  readonly abandoned: readonly number[];
}

const keep = <T>(list: T[], item: T): void => {
  list.push(item);
  if (list.length > KEEP) list.shift();
};

export class Probe {
  connects = 0;
  statesApplied = 0;
  microphoneProblem: string | undefined = undefined;
  private voiceInterrupts = 0;
  private readonly sent: SentRecord[] = [];
  private readonly played: PlayedRecord[] = [];
  private readonly dropped: number[] = [];
  private readonly orphans: number[] = [];
  private readonly refused: string[] = [];
  private readonly errors: string[] = [];
  private readonly ignored: number[] = [];
  private readonly bargeIns: number[] = [];
  private readonly turnEnds: { turn: number; outcome: string }[] = [];
  private readonly acks: string[] = [];
  private readonly transcripts: { turn: number; text: string; final: boolean }[] = [];
  private readonly heard: HeardRecord[] = [];
  private readonly abandoned: number[] = [];

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

  recordIgnored(messageId: number): void {
    keep(this.ignored, messageId);
  }

  /** `turn`: the latest turn sent when the visitor talked over the robot. */
  recordBargeIn(turn: number): void {
    keep(this.bargeIns, turn);
  }

  recordVoiceInterrupt(): void {
    this.voiceInterrupts += 1;
  }

  recordTurnEnd(turn: number, outcome: string): void {
    keep(this.turnEnds, { turn, outcome });
  }

  recordAck(service: string): void {
    keep(this.acks, service);
  }

  recordTranscript(turn: number, text: string, final: boolean): void {
    keep(this.transcripts, { turn, text, final });
  }

  recordHeard(record: HeardRecord): void {
    const { turn, playedMs, messageId, partPlayedMs, partMs } = record;
    keep(this.heard, { turn, playedMs, messageId, partPlayedMs, partMs });
  }

  recordAbandoned(turn: number): void {
    keep(this.abandoned, turn);
  }

  /** A deep copy, safe to hand out. */
  snapshot(): ProbeSnapshot {
    return structuredClone({
      connects: this.connects,
      statesApplied: this.statesApplied,
      microphoneProblem: this.microphoneProblem,
      sent: this.sent,
      played: this.played,
      dropped: this.dropped,
      orphans: this.orphans,
      refused: this.refused,
      errors: this.errors,
      ignored: this.ignored,
      bargeIns: this.bargeIns,
      voiceInterrupts: this.voiceInterrupts,
      turnEnds: this.turnEnds,
      acks: this.acks,
      transcripts: this.transcripts,
      heard: this.heard,
      abandoned: this.abandoned,
    });
  }
}
