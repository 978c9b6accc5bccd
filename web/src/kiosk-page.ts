import { byId } from './dom.js';
import { showEmotion, type FaceElements } from './face.js';
import type { KioskState, KioskView } from './kiosk-view.js';
import type { VisitorWordsView } from './visitor-words.js';

/**
 * The kiosk page's elements, and how they show what kiosk.ts decided: the view of its state
 * (kiosk-view.ts), the robot's answer in its box, and short notices under the button.
 */

/**
 * Answer text shrinks this little before it scrolls in its box: it must stay legible at arm's length, and
 * a longer answer scrolls along with the robot's voice (speech-follower.ts).
 */
const SPEECH_SCALES = [1, 0.9] as const;
/** How long a notice under the button stays, and an announcement in its region. */
const NOTICE_MS = 6_000;

export const page = {
  body: document.body,
  connection: byId('connection-status', HTMLElement),
  retry: byId('connection-retry', HTMLElement),
  micText: byId('mic-text', HTMLElement),
  faceWrap: byId('face-wrap', HTMLElement),
  faceStatus: byId('face-status', HTMLElement),
  speechBox: byId('speech', HTMLElement),
  speechIdle: byId('speech-idle', HTMLElement),
  speech: byId('speech-text', HTMLElement),
  speechCut: byId('speech-cut', HTMLElement),
  talk: byId('talk', HTMLButtonElement),
  talkLabel: byId('talk-label', HTMLElement),
  hint: byId('talk-hint', HTMLElement),
  handsFree: byId('hands-free', HTMLInputElement),
  /**
   * The page's two voices for screen readers (docs/kiosk.md, "For screen readers"): what the visitor's own
   * press did, assertive, and everything else, polite. Nothing else on the page is a live region but the
   * connection status and the visitor's words.
   */
  talkStatus: byId('talk-status', HTMLElement),
  announcer: byId('announcer', HTMLElement),
  /** The answer as the robot speaks it, each part added as it starts (the bubble is not a live region). */
  speechSaid: byId('speech-said', HTMLElement),
  faceBadge: byId('face-badge', HTMLElement),
  visitorWords: byId('visitor-words', HTMLElement),
  visitorWordsText: byId('visitor-words-text', HTMLElement),
  notice: byId('notice', HTMLElement),
  newConversation: byId('new-conversation', HTMLButtonElement),
  unlock: byId('unlock', HTMLElement),
};

export const face: FaceElements = {
  svg: byId('face', SVGSVGElement),
  label: byId('face-label', SVGTitleElement),
  mouth: byId('mouth', SVGPathElement),
  leftBrow: byId('brow-left', SVGPathElement),
  rightBrow: byId('brow-right', SVGPathElement),
  leftEye: byId('eye-left', SVGEllipseElement),
  rightEye: byId('eye-right', SVGEllipseElement),
  thought: byId('thought', SVGGElement),
};

/** Sets an element's text only when it changes (the countdown re-renders often); true if it changed. */
const setText = (target: HTMLElement, text: string): boolean => {
  if (target.textContent === text) return false;
  target.textContent = text;
  return true;
};

const spokenTimers = new Map<HTMLElement, ReturnType<typeof setTimeout>>();
/**
 * Says `text` once in the live region `region`, then empties it after a while (so a reason stays no longer
 * than it holds). The same words again are said again: the region is emptied first and filled a moment
 * later, which screen readers take as a change.
 */
const speak = (region: HTMLElement, text: string): void => {
  clearTimeout(spokenTimers.get(region));
  const fill = () => {
    region.textContent = text;
    spokenTimers.set(
      region,
      setTimeout(() => {
        region.textContent = '';
      }, NOTICE_MS),
    );
  };
  if (region.textContent === text && text !== '') {
    region.textContent = '';
    spokenTimers.set(region, setTimeout(fill, 100));
  } else fill();
};

/** What the visitor's press did (listening, sent, not sent and why): said at once. */
export const sayToVisitor = (text: string): void => {
  speak(page.talkStatus, text);
};
/** Anything else worth hearing (a notice, an interruption, the time left): said when the reader is free. */
export const sayPolitely = (text: string): void => {
  speak(page.announcer, text);
};
/** Whatever was waiting to be said no longer holds (the microphone came back, the session ended). */
export const silenceAnnouncements = (): void => {
  for (const region of [page.talkStatus, page.announcer]) {
    clearTimeout(spokenTimers.get(region));
    region.textContent = '';
  }
};

/**
 * The robot says `text`: read out once. A later part of the same answer (`continued`) is added after the
 * earlier ones, so only the new words are read; anything else replaces them.
 */
export const sayAnswer = (text: string, continued = false): void => {
  if (!continued) page.speechSaid.replaceChildren();
  if (text === '') return;
  const part = document.createElement('span');
  part.textContent = continued ? ` ${text}` : text;
  page.speechSaid.append(part);
};

/**
 * Fits the answer box to its share of the screen: the text shrinks a step (never below a readable size),
 * then scrolls inside the box, which is then focusable so it can be scrolled from the keyboard too.
 */
export const fitSpeech = (): void => {
  const box = page.speechBox;
  let overflowing = false;
  for (const scale of SPEECH_SCALES) {
    box.style.setProperty('--speech-scale', String(scale));
    overflowing = box.scrollHeight > box.clientHeight + 1;
    if (!overflowing) break;
  }
  box.dataset['overflowing'] = String(overflowing);
  if (overflowing) box.tabIndex = 0;
  else box.removeAttribute('tabindex');
};

/**
 * What the robot says now; empty shows the idle text instead. `continued`: the text goes on from what the
 * box showed (the next part of one answer), so the box keeps its place instead of going back to the top.
 */
export const showAnswer = (text: string, continued = false): void => {
  page.speech.textContent = text;
  page.speechIdle.hidden = text !== '';
  page.speechCut.hidden = true;
  delete page.speechBox.dataset['interrupted'];
  CSS.highlights.delete(UNSAID);
  fitSpeech();
  if (!continued) page.speechBox.scrollTo({ top: 0, behavior: 'instant' });
};

/** The CSS highlight (kiosk.css, `::highlight(unsaid)`) that greys what the robot did not get to say. */
const UNSAID = 'unsaid';

/**
 * The visitor talked over the answer in the bubble, the voice at character `spokenTo` (undefined: not
 * known): the rest is greyed, and a line pinned to the box's lower edge says so wherever it is scrolled.
 */
export const markInterrupted = (spokenTo: number | undefined): void => {
  const node = page.speech.firstChild;
  // The word the voice was in counts as said: the grey starts at a word, not inside one.
  const wordEnd =
    node instanceof Text && spokenTo !== undefined ? node.data.slice(spokenTo).search(/\s/) : -1;
  const cut =
    spokenTo === undefined ? undefined : wordEnd < 0 ? Number.POSITIVE_INFINITY : spokenTo + wordEnd;
  const unsaid = node instanceof Text && cut !== undefined && cut < node.length;
  if (unsaid) {
    const range = document.createRange();
    range.setStart(node, cut);
    range.setEnd(node, node.length);
    CSS.highlights.set(UNSAID, new Highlight(range));
  }
  page.speechCut.textContent = unsaid
    ? 'You interrupted me: I did not say the part in grey.'
    : 'You interrupted me.';
  sayPolitely(page.speechCut.textContent);
  page.speechBox.dataset['interrupted'] = 'true';
  page.speechCut.hidden = false;
  fitSpeech();
};

/** What the robot heard the visitor say so far (visitor-words.ts); empty text clears the line. */
export const showVisitorWords = ({ text, final }: VisitorWordsView): void => {
  page.visitorWordsText.textContent = text === '' ? '' : `You: ${text}`;
  page.visitorWords.dataset['shown'] = String(text !== '');
  page.visitorWords.setAttribute('aria-busy', String(text !== '' && !final));
};

/** How long the hint stands out after a press it explains. */
const HINT_ATTENTION_MS = 2_000;
let hintTimer: ReturnType<typeof setTimeout> | undefined;
/** A press did nothing: the hint beside the button, which says why, stands out for a moment. */
export const pointAtHint = (): void => {
  page.hint.dataset['attention'] = 'true';
  clearTimeout(hintTimer);
  hintTimer = setTimeout(() => {
    delete page.hint.dataset['attention'];
  }, HINT_ATTENTION_MS);
};

let noticeTimer: ReturnType<typeof setTimeout> | undefined;
export const clearNotice = (): void => {
  clearTimeout(noticeTimer);
  page.notice.textContent = '';
};
/** The notice shown must stay when an answer starts (it says what happened to the question). */
let noticeOutlivesAnswer = false;
/**
 * A short message under the button; it goes away by itself, or when an answer starts unless
 * `outlivesAnswer` (clearNoticeForAnswer). It is said politely unless `said` (it was said already, as what
 * the visitor's press did: the notice only shows it).
 */
export const notify = (text: string, outlivesAnswer = false, said = false): void => {
  page.notice.textContent = text;
  if (!said) sayPolitely(text);
  noticeOutlivesAnswer = outlivesAnswer;
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(clearNotice, NOTICE_MS);
};
/** An answer starts: notices about getting there ("Sent.") are done. */
export const clearNoticeForAnswer = (): void => {
  if (!noticeOutlivesAnswer) clearNotice();
};

/** The emotion the face was last drawn with, so it is redrawn only when it changes. */
let drawnEmotion: string | undefined;

/** Draws the view of the kiosk's state; `emotion` is what the robot said last, unless the view overrides it. */
export const drawView = (
  view: KioskView,
  state: Pick<KioskState, 'connection' | 'recording' | 'handsFree'> & { readonly emotion: string },
): void => {
  const emotion = view.faceOverride ?? state.emotion;
  if (emotion !== drawnEmotion) {
    showEmotion(face, emotion);
    drawnEmotion = emotion;
  }
  page.body.dataset['thinking'] = String(view.faceOverride === 'thinking');
  setText(page.faceStatus, view.faceStatus);
  page.body.dataset['connection'] = view.connection;
  setText(page.faceBadge, view.badgeText);
  page.body.dataset['microphone'] = view.microphoneKey;
  page.body.dataset['recording'] = String(state.recording !== 'none');
  page.body.dataset['mode'] = state.handsFree ? 'hands-free' : 'push';
  setText(page.connection, view.connectionText);
  setText(page.retry, view.retryText);
  setText(page.micText, view.microphoneText);
  // aria-disabled rather than disabled: the button stays focusable and a press can say why it refuses.
  page.talk.setAttribute('aria-disabled', String(!view.talkUsable));
  page.talk.setAttribute('aria-pressed', String(state.recording === 'push'));
  page.talk.dataset['look'] = view.talkLook;
  setText(page.talkLabel, view.talkLabel);
  setText(page.hint, view.hint);
  if (setText(page.speechIdle, view.idleText)) fitSpeech();
  page.newConversation.disabled = state.connection !== 'online';
};
