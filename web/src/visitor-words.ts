import type { TranscriptMessage } from '../../src/protocol/ws/index.js';

/**
 * What the robot heard the visitor say, shown while they speak: the robot's transcripts of the streamed
 * utterance, each replacing the one before, the final one correcting them all. Pure: kiosk.ts decides
 * which turn's transcripts count (turns.ts), kiosk-page.ts draws the line.
 */

/** The line shows at most this many characters: the latest words, which is what the visitor is saying. */
export const VISITOR_WORDS_MAX_CHARS = 140;

export interface VisitorWordsView {
  /** Empty: nothing to show. */
  readonly text: string;
  /** The recogniser's last word on this utterance; until then the words may still change. */
  readonly final: boolean;
}

/** The latest words of `text`, cut at a space, with an ellipsis where words were left out. */
export const latestWords = (text: string, maxChars = VISITOR_WORDS_MAX_CHARS): string => {
  const words = text.trim().replace(/\s+/g, ' ');
  if (words.length <= maxChars) return words;
  const tail = words.slice(words.length - (maxChars - 1));
  const space = tail.indexOf(' ');
  // One word longer than the line: its end is what there is room for.
  return `…${space < 0 ? tail : tail.slice(space + 1)}`;
};

export class VisitorWords {
  private shown: { readonly turn: number; readonly view: VisitorWordsView } | undefined;

  get view(): VisitorWordsView {
    return this.shown?.view ?? { text: '', final: false };
  }

  /** The turn whose words are shown, if any. */
  get turn(): number | undefined {
    return this.shown?.turn;
  }

  /**
   * A transcript the kiosk counts: replaces what is shown. After the final one of a turn, a late partial of
   * it changes nothing. Returns whether the view changed.
   */
  heard(message: TranscriptMessage): boolean {
    const shown = this.shown;
    if (shown?.turn === message.turn && shown.view.final) return false;
    const view = { text: latestWords(message.text), final: message.final };
    if (shown?.turn === message.turn && shown.view.text === view.text && !view.final) return false;
    this.shown = { turn: message.turn, view };
    return true;
  }

  /** The words go: a new utterance begins, the shown one came to nothing, or the session ended. */
  clear(): boolean {
    const had = this.shown !== undefined;
    this.shown = undefined;
    return had;
  }
}
