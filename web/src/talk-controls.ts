/**
 * How a visitor holds to talk: a press on the talk button (pointer, Enter on the button), or Space anywhere
 * but on a control that Space operates itself. Letting go sends; a gesture the browser takes over (a scroll)
 * or a key released while the window had no focus ends the utterance as the calls below say.
 */
export interface TalkControls {
  /** The visitor pressed to talk. */
  readonly begin: () => void;
  /** The visitor let go: `send` false when the release was not deliberate. */
  readonly end: (send: boolean) => void;
  /** Keys belong to something else now (the settings dialog is open). */
  readonly keysElsewhere: () => boolean;
}

/** Space talks unless focus is on a control that Space operates itself. */
const spaceTalks = (talk: HTMLButtonElement, target: EventTarget | null): boolean =>
  !(target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement) &&
  !(target instanceof HTMLButtonElement && target !== talk);

export const bindTalkControls = (
  talk: HTMLButtonElement,
  { begin, end, keysElsewhere }: TalkControls,
): void => {
  talk.addEventListener('pointerdown', (event) => {
    if (event.button !== 0) return;
    event.preventDefault();
    talk.setPointerCapture(event.pointerId);
    begin();
  });
  talk.addEventListener('pointerup', () => {
    end(true);
  });
  // The browser took the gesture over (e.g. a scroll): not a deliberate release, so nothing is sent.
  talk.addEventListener('pointercancel', () => {
    end(false);
  });
  talk.addEventListener('contextmenu', (event) => {
    event.preventDefault();
  });

  // Enter on the talk button talks too, held like Space (a click would start and stop at once).
  talk.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' || keysElsewhere()) return;
    event.preventDefault();
    if (!event.repeat) begin();
  });
  talk.addEventListener('keyup', (event) => {
    if (event.key !== 'Enter' || keysElsewhere()) return;
    event.preventDefault();
    end(true);
  });

  document.addEventListener('keydown', (event) => {
    if (event.code !== 'Space' || keysElsewhere() || !spaceTalks(talk, event.target)) return;
    event.preventDefault();
    if (!event.repeat) begin();
  });
  document.addEventListener('keyup', (event) => {
    if (event.code !== 'Space' || keysElsewhere() || !spaceTalks(talk, event.target)) return;
    event.preventDefault();
    end(true);
  });
  // A key released while the window had no focus never reports keyup: end what was said.
  window.addEventListener('blur', () => {
    end(true);
  });
};
