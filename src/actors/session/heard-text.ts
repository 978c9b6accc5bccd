import type { HeardCommand, MessageId, TurnNumber as Turn } from '../../protocol/ws/index.js';

/**
 * The text of an answer up to where the visitor interrupted it: every part played whole, then the leading
 * words of the part cut short in proportion to how much of its audio played. Words are the unit because a
 * dialogue history is read as words; the proportion is an estimate (speech is not uniform), stated as such
 * in docs/robot.md.
 */
export const heardText = (
  partTexts: readonly string[],
  cutPartIndex: number,
  partPlayedMs: number,
  partMs: number,
): string => {
  const whole = partTexts.slice(0, cutPartIndex).filter((text) => text !== '');
  const cut = partTexts[cutPartIndex] ?? '';
  const words = cut.split(/\s+/).filter((word) => word !== '');
  const share = partMs <= 0 ? 0 : Math.min(1, partPlayedMs / partMs);
  const heardWords = words.slice(0, Math.round(words.length * share));
  if (heardWords.length > 0) whole.push(heardWords.join(' '));
  return whole.join(' ');
};

/** The latest answered (or answering) turn's pairs, in the order they left: what a heard report is read against. */
export interface SpokenTurn {
  readonly turn: Turn;
  readonly messageIds: MessageId[];
  readonly texts: string[];
}

/** Parts of one answer remembered for a heard report; an answer of more parts is cut there. */
export const MAX_SPOKEN_PARTS = 256;

/**
 * What a heard report tells the robot: how long the answer played and the text heard, when it names the
 * latest answered turn and one of its pairs; otherwise why it names none (`heard_invalid`).
 */
export const readHeardReport = (
  spoken: SpokenTurn | undefined,
  report: Omit<HeardCommand, 'service'>,
): { readonly playedMs: number; readonly heardText: string } | { readonly invalid: string } => {
  const cut = spoken?.turn === report.turn ? spoken.messageIds.indexOf(report.messageId) : -1;
  if (spoken === undefined || cut < 0) {
    return {
      invalid: `message ${report.messageId} of turn ${report.turn} is not one of the latest answer's (turn ${spoken?.turn ?? 'none'})`,
    };
  }
  return {
    playedMs: report.playedMs,
    heardText: heardText(spoken.texts, cut, report.partPlayedMs, report.partMs),
  };
};
