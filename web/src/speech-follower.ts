import type { Slot } from './playback-timeline.js';

/**
 * Keeps what the robot is saying in view when its answer is longer than the bubble: the text scrolls by
 * the share of the audio played, so the line being spoken sits about a third of the way down the box. A
 * visitor who scrolls the box themselves (wheel, touch, keys, the scroll bar) takes it over; following
 * resumes once they leave it alone for a while, or with the next answer.
 */

/** How often the box is moved on while the robot speaks. */
const STEP_MS = 250;
/** After the visitor scrolled the box, it is theirs for this long. */
const VISITOR_HOLD_MS = 8_000;
/** The spoken line sits this far down the box: some of what was just said stays readable above it. */
const SPOKEN_LINE_AT = 1 / 3;
/** Keys that scroll a focused box. */
const SCROLL_KEYS = new Set(['ArrowUp', 'ArrowDown', 'PageUp', 'PageDown', 'Home', 'End', ' ']);

interface Following {
  /** The characters of the bubble's text that this audio says. */
  readonly from: number;
  readonly to: number;
  readonly slot: Slot;
}

export class SpeechFollower {
  private following: Following | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private visitorUntil = -Infinity;

  /** `box` scrolls; `text` holds the answer as one text node; `clock` is the audio clock (s). */
  constructor(
    private readonly box: HTMLElement,
    private readonly text: HTMLElement,
    private readonly clock: () => number,
  ) {
    const visitorScrolls = (): void => {
      this.visitorUntil = performance.now() + VISITOR_HOLD_MS;
    };
    box.addEventListener('wheel', visitorScrolls, { passive: true });
    box.addEventListener('touchstart', visitorScrolls, { passive: true });
    box.addEventListener('pointerdown', visitorScrolls);
    box.addEventListener('keydown', (event) => {
      if (SCROLL_KEYS.has(event.key)) visitorScrolls();
    });
  }

  /** The audio in `slot` says characters `from`..`to` of the bubble's text. */
  follow(from: number, to: number, slot: Slot, newAnswer: boolean): void {
    if (newAnswer) this.visitorUntil = -Infinity;
    this.following = { from, to, slot };
    this.timer ??= setInterval(() => {
      this.step();
    }, STEP_MS);
    this.step();
  }

  /** The character of the bubble's text the voice is at now, by its share of the audio; undefined when silent. */
  spokenOffset(): number | undefined {
    const following = this.following;
    if (following === undefined) return undefined;
    const { slot, from, to } = following;
    const share = Math.min(1, Math.max(0, (this.clock() - slot.start) / (slot.end - slot.start || 1)));
    return Math.round(from + share * (to - from));
  }

  /** The robot stopped speaking: the box stays where it is. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.following = undefined;
  }

  private step(): void {
    const node = this.text.firstChild;
    if (this.following === undefined || !(node instanceof Text)) return;
    if (performance.now() < this.visitorUntil) return;
    const room = this.box.scrollHeight - this.box.clientHeight;
    if (room <= 0) return;
    const offset = Math.min(node.length, this.spokenOffset() ?? 0);
    const range = document.createRange();
    range.setStart(node, offset);
    range.setEnd(node, Math.min(node.length, offset + 1));
    const spoken = range.getBoundingClientRect();
    const box = this.box.getBoundingClientRect();
    const target = this.box.scrollTop + spoken.top - box.top - this.box.clientHeight * SPOKEN_LINE_AT;
    // Only forward: the robot's voice moves on, and a line it has not reached yet is never scrolled back to.
    const top = Math.min(room, Math.max(this.box.scrollTop, this.wholeLines(target)));
    if (Math.abs(top - this.box.scrollTop) >= 1) this.box.scrollTop = top;
  }

  /** `scrollTop` moved to the nearest whole line: a line starts where the box's top padding ends. */
  private wholeLines(scrollTop: number): number {
    const line = parseFloat(getComputedStyle(this.text).lineHeight);
    if (!(line > 0)) return scrollTop;
    const start =
      this.text.getBoundingClientRect().top -
      this.box.getBoundingClientRect().top -
      this.box.clientTop +
      this.box.scrollTop -
      parseFloat(getComputedStyle(this.box).paddingTop);
    return start + Math.round((scrollTop - start) / line) * line;
  }
}
