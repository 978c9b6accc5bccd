import { byId } from './dom.js';
import { clampThreshold, DEFAULT_VAD, THRESHOLD_RANGE } from './vad.js';

/**
 * The kiosk settings, for operators: a dialog behind a long press on the face, or Ctrl+Alt+S on a keyboard,
 * out of a visitor's way (no button, no tab stop). The
 * hands-free threshold sits on the live level meter, on one scale; beside it, whether voice may interrupt
 * the robot while it speaks, and what the browser says about echo cancellation, which that needs. Kept in
 * this browser's storage, per kiosk.
 */

/** A press on the face this long opens the settings (a visitor's tap does nothing). */
const SETTINGS_PRESS_MS = 2_000;
/**
 * Ctrl+Alt+S opens the settings from a keyboard: an operator's chord, which a visitor does not press by
 * chance and which Chromium leaves to the page. By `code`, so it is the same key on any layout.
 */
const isSettingsShortcut = (event: KeyboardEvent): boolean =>
  event.ctrlKey && event.altKey && !event.shiftKey && !event.metaKey && event.code === 'KeyS';
const THRESHOLD_KEY = 'tour-bridge.kiosk.threshold-db';
const VOICE_INTERRUPTS_KEY = 'tour-bridge.kiosk.voice-interrupts';

const stored = (key: string): string | null => {
  try {
    return localStorage.getItem(key);
  } catch {
    // Storage can be switched off in the browser; the defaults then hold.
    return null;
  }
};

const store = (key: string, value: string): void => {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Not kept across reloads then; it still applies now.
  }
};

export interface SettingsHandlers {
  readonly onThreshold: (db: number) => void;
  readonly onVoiceInterrupts: (allowed: boolean) => void;
}

export class KioskSettings {
  private readonly dialog = byId('settings', HTMLDialogElement);
  private readonly threshold = byId('threshold', HTMLInputElement);
  private readonly thresholdValue = byId('threshold-value', HTMLOutputElement);
  private readonly level = byId('level', HTMLMeterElement);
  private readonly levelValue = byId('level-value', HTMLOutputElement);
  private readonly voiceInterrupts = byId('voice-interrupts', HTMLInputElement);
  private readonly echoStatus = byId('echo-status', HTMLElement);
  private press: ReturnType<typeof setTimeout> | undefined;

  constructor(
    face: HTMLElement,
    private readonly handlers: SettingsHandlers,
  ) {
    // One scale for the threshold and the level it is set against.
    this.threshold.min = String(THRESHOLD_RANGE.minDb);
    this.threshold.max = String(THRESHOLD_RANGE.maxDb);
    this.level.min = THRESHOLD_RANGE.minDb;
    this.level.max = THRESHOLD_RANGE.maxDb;
    const threshold = stored(THRESHOLD_KEY);
    this.threshold.value = String(
      threshold === null || threshold.trim() === ''
        ? DEFAULT_VAD.thresholdDb
        : clampThreshold(Number(threshold)),
    );
    this.threshold.addEventListener('input', () => {
      store(THRESHOLD_KEY, String(this.applyThreshold()));
    });
    this.voiceInterrupts.checked = stored(VOICE_INTERRUPTS_KEY) !== 'false';
    this.voiceInterrupts.addEventListener('change', () => {
      store(VOICE_INTERRUPTS_KEY, String(this.voiceInterrupts.checked));
      this.handlers.onVoiceInterrupts(this.voiceInterrupts.checked);
    });
    byId('settings-close', HTMLButtonElement).addEventListener('click', () => {
      this.dialog.close();
    });
    this.watchLongPress(face);
    document.addEventListener('keydown', (event) => {
      if (!isSettingsShortcut(event) || this.dialog.open) return;
      event.preventDefault();
      this.dialog.showModal();
    });
  }

  /** Hands the stored settings to the handlers (once, at start). */
  apply(): void {
    this.applyThreshold();
    this.handlers.onVoiceInterrupts(this.voiceInterrupts.checked);
  }

  get open(): boolean {
    return this.dialog.open;
  }

  /** The microphone's level now (dBFS), shown while the settings are open. */
  showLevel(levelDb: number): void {
    if (!this.dialog.open) return;
    const db = Math.max(THRESHOLD_RANGE.minDb, levelDb);
    this.level.value = db;
    this.levelValue.value = `${Math.round(db)} dB`;
  }

  /**
   * What the browser reports about echo cancellation on the microphone (undefined: it is closed), or, when
   * it gave no microphone, why: the visitor is only asked to fetch staff, and staff look here.
   */
  showMicrophone(on: boolean | undefined, problem: string | undefined): void {
    const text =
      problem !== undefined
        ? `Microphone not available in this browser: ${problem}.`
        : on === undefined
          ? 'Echo cancellation: not known until the microphone is on.'
          : on
            ? 'Echo cancellation: on in this browser.'
            : 'Echo cancellation: off in this browser, so hands-free does not listen while the robot speaks.';
    if (this.echoStatus.textContent !== text) this.echoStatus.textContent = text;
  }

  private applyThreshold(): number {
    const db = clampThreshold(Number(this.threshold.value));
    this.thresholdValue.value = `${db} dB`;
    this.handlers.onThreshold(db);
    return db;
  }

  private watchLongPress(target: HTMLElement): void {
    const cancel = (): void => {
      clearTimeout(this.press);
      this.press = undefined;
    };
    target.addEventListener('pointerdown', (event) => {
      if (event.button !== 0) return;
      cancel();
      this.press = setTimeout(() => {
        this.press = undefined;
        if (!this.dialog.open) this.dialog.showModal();
      }, SETTINGS_PRESS_MS);
    });
    for (const type of ['pointerup', 'pointercancel', 'pointerleave'] as const) {
      target.addEventListener(type, cancel);
    }
    target.addEventListener('contextmenu', (event) => {
      event.preventDefault();
    });
  }
}
