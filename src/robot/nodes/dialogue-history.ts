import type { HeardMsg } from '../../ros/port/ros-messages.js';

/*
 * The reference Converse server's dialogue history: what the visitor said (the recogniser's transcript)
 * and what the robot answered, turn by turn, as a robot's dialogue model would keep it for its next
 * answer. When the visitor interrupts an answer, the bridge reports how much was heard
 * (/conversation/heard), and the answer's entry then holds that instead of what was said: the next
 * answer must not assume the visitor heard the rest.
 */

/** The last `entries` entries are kept; a text longer than `textChars` is cut (its storage bound). */
export const HISTORY_LIMITS = { entries: 16, textChars: 2000 } as const;

export interface DialogueEntry {
  readonly role: 'visitor' | 'robot';
  /** The turn: the Converse goal's utterance_id. */
  readonly utterance_id: string;
  /** The visitor's transcript; the robot's answer as said, or as heard once a heard report came. */
  readonly text: string;
  /** A robot entry the visitor interrupted: how much of its audio played; `text` is then what was heard. */
  readonly heard?: { readonly played_ms: number };
}

export interface DialogueHistory {
  /** A turn begins: what the visitor said. */
  visitor(utteranceId: string, text: string): void;
  /** One part of the answer was said: added to the turn's robot entry (made at its first part). */
  said(utteranceId: string, text: string): void;
  /**
   * A heard report: the turn's robot entry now holds what was heard. False when no entry of that turn is
   * kept (an unnamed turn, one that has left the history, or one this server never answered).
   */
  heard(report: HeardMsg): boolean;
  /** /clear_history: a new conversation. */
  clear(): void;
  readonly entries: readonly DialogueEntry[];
}

const cut = (text: string): string =>
  text.length <= HISTORY_LIMITS.textChars ? text : `${text.slice(0, HISTORY_LIMITS.textChars - 1)}…`;

/** The history as a JSON document, what /converse/history carries: `{"entries":[…]}`, oldest first. */
export const historyJson = (entries: readonly DialogueEntry[]): string => JSON.stringify({ entries });

/** `changed` runs after every change, with the entries as they are then. */
export const createDialogueHistory = (
  changed: (entries: readonly DialogueEntry[]) => void = () => undefined,
): DialogueHistory => {
  let entries: DialogueEntry[] = [];

  const update = (next: DialogueEntry[]) => {
    entries = next.slice(-HISTORY_LIMITS.entries);
    changed(entries);
  };
  /** The latest robot entry of a named turn; the history is bounded, so is the search. */
  const robotEntryOf = (utteranceId: string): number =>
    utteranceId === ''
      ? -1
      : entries.findLastIndex((entry) => entry.role === 'robot' && entry.utterance_id === utteranceId);

  return {
    visitor: (utteranceId, text) => {
      update([...entries, { role: 'visitor', utterance_id: utteranceId, text: cut(text) }]);
    },
    said: (utteranceId, text) => {
      const at = robotEntryOf(utteranceId);
      const entry = at === -1 ? undefined : entries[at];
      // The last robot entry of this turn, unless another turn has spoken since or the visitor cut it.
      if (entry !== undefined && at === entries.length - 1 && entry.heard === undefined) {
        update([...entries.slice(0, at), { ...entry, text: cut(`${entry.text} ${text}`) }]);
        return;
      }
      if (entry?.heard !== undefined) return;
      update([...entries, { role: 'robot', utterance_id: utteranceId, text: cut(text) }]);
    },
    heard: (report) => {
      const at = robotEntryOf(report.utterance_id);
      const entry = at === -1 ? undefined : entries[at];
      if (entry === undefined) return false;
      const next = [...entries];
      next[at] = {
        role: 'robot',
        utterance_id: entry.utterance_id,
        text: cut(report.heard_text),
        heard: { played_ms: report.played_ms },
      };
      update(next);
      return true;
    },
    clear: () => {
      update([]);
    },
    get entries() {
      return entries;
    },
  };
};
