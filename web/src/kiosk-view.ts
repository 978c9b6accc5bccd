/**
 * What the kiosk shows, decided from its state: pure (no DOM), so every wording and every state the
 * visitor can meet is unit-tested in Node (test/unit/web-kiosk-view.test.ts). kiosk.ts puts the result on
 * the page.
 */

export type Recording = 'none' | 'push' | 'hands-free';
/** The socket's state (connection.ts); defined here so this module needs no DOM types. */
/** `refused`: the service refused this kiosk's token or origin (connection.ts asks after a failed connect). */
export type ConnectionStatus = 'connecting' | 'online' | 'offline' | 'refused';
/** The capture device's state (microphone.ts). */
export type MicrophoneDevice = 'closed' | 'opening' | 'open' | 'failed';

export interface KioskState {
  readonly connection: ConnectionStatus;
  /** True from a session's end until the next session's state arrives: reconnect attempts stay "offline". */
  readonly lostSession: boolean;
  /** performance.now() of the next reconnect attempt, while one is scheduled. */
  readonly retryAt: number | undefined;
  /** What the service says (`state` and `microphone` frames); undefined until the session's state. */
  readonly microphoneAllowed: boolean | undefined;
  readonly device: MicrophoneDevice;
  /** The page was opened with an access token (`?token=`): a refusal without one means not set up. */
  readonly tokenGiven: boolean;
  readonly handsFree: boolean;
  readonly recording: Recording;
  /** Whole seconds of recording left before the length limit, in the last seconds before it; else undefined. */
  readonly secondsLeft: number | undefined;
  /** The limit sent a push-to-talk recording while the button is still held. */
  readonly heldPastLimit: boolean;
  /** An utterance is with the robot, nothing of its answer has come yet, and nothing else plays. */
  readonly thinking: boolean;
  /** The robot's voice is playing. */
  readonly speaking: boolean;
  /**
   * Hands-free: voice louder than the robot's interrupts it (the operator allows it and the browser cancels
   * the robot's echo on the microphone); otherwise only a press does.
   */
  readonly voiceInterrupts: boolean;
  /**
   * Hands-free sent at the length limit while the visitor went on speaking: their voice neither counts
   * nor interrupts the answer until they pause.
   */
  readonly untilPause: unknown;
  /** The screen is the visitor's only way in (a finger: a phone, a kiosk tablet): no Space bar to offer. */
  readonly touchOnly: boolean;
}

/** The connection as the visitor sees it: a reconnect attempt after a lost session is still offline. */
export type ShownConnection = 'connecting' | 'online' | 'offline' | 'refused';

/** The talk button's look; CSS keys off it (`data-look`). */
export type TalkLook =
  | 'ready'
  | 'listening'
  | 'sent'
  | 'speaking'
  | 'hands-free'
  | 'hands-free-listening'
  | 'hands-free-speaking'
  | 'waiting'
  | 'unavailable'
  | 'offline';

export interface KioskView {
  readonly connection: ShownConnection;
  /** Announced (a status region): changes only when the connection does. */
  readonly connectionText: string;
  /** Beside it, not announced: the countdown to the next attempt while offline (else empty). */
  readonly retryText: string;
  readonly microphoneKey: 'pending' | 'enabled' | 'disabled' | 'unavailable' | 'offline';
  readonly microphoneText: string;
  readonly talkLabel: string;
  readonly talkLook: TalkLook;
  /** Whether a press of the button (or Space) starts an utterance. */
  readonly talkUsable: boolean;
  readonly hint: string;
  /** Shown in the answer box while there is no answer to show. */
  readonly idleText: string;
  /** The face's status line (announced): says the robot is thinking, else empty. */
  readonly faceStatus: string;
  /** The emotion the face shows while thinking; undefined: the emotion of what was said last. */
  readonly faceOverride: 'thinking' | undefined;
  /** The badge on the greyed face while offline or refused. */
  readonly badgeText: string;
}

export const shownConnection = (state: KioskState): ShownConnection => {
  if (state.connection === 'online') return 'online';
  if (state.connection === 'refused') return 'refused';
  if (state.connection === 'offline' || state.lostSession) return 'offline';
  return 'connecting';
};

/** Whole seconds left before the next attempt, counted down to 1 (never 0 while still waiting). */
export const secondsLeft = (retryAt: number, now: number): number =>
  Math.max(1, Math.ceil((retryAt - now) / 1000));

/** The service refused a kiosk opened without a token: nobody has set this display up yet. */
const notSetUp = (state: KioskState, shown: ShownConnection): boolean =>
  shown === 'refused' && !state.tokenGiven;

/** Every failure of the microphone device, in the visitor's words (the browser's reason goes to the console). */
const NO_MICROPHONE = 'The microphone is not available. Please ask a member of staff.';
const NOT_SET_UP = 'This display is not set up yet. Please ask a member of staff.';

export const canTalk = (state: KioskState): boolean =>
  state.connection === 'online' && state.microphoneAllowed === true && state.device === 'open';

/**
 * Why a press does not talk, in words for the visitor; undefined when it does. The hint beside the button
 * already says each of these, so the page points at the hint and a screen reader hears this.
 */
export const refusal = (state: KioskState): string | undefined => {
  const shown = shownConnection(state);
  if (shown === 'offline') return 'The robot is offline.';
  if (notSetUp(state, shown)) return NOT_SET_UP;
  if (shown === 'refused') return 'The robot refused this kiosk’s access.';
  if (state.connection !== 'online') return 'Not connected to the robot yet.';
  if (state.microphoneAllowed !== true) return 'The robot has switched the microphone off.';
  if (state.device === 'failed') return NO_MICROPHONE;
  if (state.device !== 'open') return 'The microphone is starting.';
  // Hands-free listens by itself; a press is for interrupting the robot while it speaks.
  if (state.handsFree && !state.speaking) return 'Hands-free mode is on: just speak.';
  return undefined;
};

const connectionText = (state: KioskState, shown: ShownConnection): string => {
  if (shown === 'online') return 'Connected';
  if (shown === 'connecting') return 'Connecting…';
  if (notSetUp(state, shown)) return 'Not set up: this display has no access token';
  if (shown === 'refused') return 'Access refused: check this kiosk’s token';
  return 'Offline';
};

const retryText = (state: KioskState, shown: ShownConnection, now: number): string => {
  if (shown !== 'offline') return '';
  if (state.connection === 'offline' && state.retryAt !== undefined) {
    return ` — trying again in ${secondsLeft(state.retryAt, now)} s`;
  }
  return ' — trying again now…';
};

const microphone = (
  state: KioskState,
  shown: ShownConnection,
): Pick<KioskView, 'microphoneKey' | 'microphoneText'> => {
  if (shown === 'offline')
    return { microphoneKey: 'offline', microphoneText: 'Microphone off while offline' };
  if (shown === 'refused')
    return { microphoneKey: 'offline', microphoneText: 'Microphone off: not connected' };
  if (state.microphoneAllowed === false)
    return { microphoneKey: 'disabled', microphoneText: 'Microphone off' };
  if (state.device === 'failed') return { microphoneKey: 'unavailable', microphoneText: 'No microphone' };
  if (state.microphoneAllowed === undefined || state.device !== 'open') {
    return { microphoneKey: 'pending', microphoneText: 'Microphone starting…' };
  }
  if (state.recording !== 'none') return { microphoneKey: 'enabled', microphoneText: 'Listening…' };
  if (state.handsFree && state.speaking) {
    return {
      microphoneKey: 'enabled',
      microphoneText: !state.voiceInterrupts
        ? 'Not listening while the robot speaks'
        : state.untilPause !== undefined
          ? 'Robot speaking — pause, then talk to interrupt'
          : 'Robot speaking — talk to interrupt',
    };
  }
  return {
    microphoneKey: 'enabled',
    microphoneText: state.handsFree ? 'Microphone on — just speak' : 'Microphone on',
  };
};

/** The seconds left before the length limit, on the label's second line, in the last seconds before it. */
const timeLeft = (state: KioskState): string =>
  state.secondsLeft === undefined ? '' : `\n${state.secondsLeft} s left`;

const talk = (state: KioskState, shown: ShownConnection): Pick<KioskView, 'talkLabel' | 'talkLook'> => {
  if (shown === 'offline') return { talkLabel: 'Offline', talkLook: 'offline' };
  if (notSetUp(state, shown)) return { talkLabel: 'Not set up', talkLook: 'offline' };
  if (shown === 'refused') return { talkLabel: 'Access refused', talkLook: 'offline' };
  if (shown === 'connecting') return { talkLabel: 'Connecting…', talkLook: 'waiting' };
  if (state.microphoneAllowed === false) return { talkLabel: 'Microphone off', talkLook: 'unavailable' };
  if (state.device === 'failed') return { talkLabel: 'No microphone', talkLook: 'unavailable' };
  if (state.microphoneAllowed === undefined || state.device !== 'open') {
    return { talkLabel: 'Starting…', talkLook: 'waiting' };
  }
  if (state.handsFree) {
    if (state.speaking && state.recording === 'none') {
      return { talkLabel: 'Speaking…\npress to interrupt', talkLook: 'hands-free-speaking' };
    }
    return state.recording === 'hands-free'
      ? { talkLabel: `Listening…${timeLeft(state)}`, talkLook: 'hands-free-listening' }
      : { talkLabel: 'Just speak', talkLook: 'hands-free' };
  }
  if (state.recording === 'push') {
    const label =
      state.secondsLeft === undefined ? 'Listening…\nlet go to send' : `Listening…${timeLeft(state)}`;
    return { talkLabel: label, talkLook: 'listening' };
  }
  // Still held after the limit sent the recording: nothing more is heard until the visitor lets go.
  if (state.heldPastLimit) return { talkLabel: 'Sent —\nlet go', talkLook: 'sent' };
  // A press stops the robot and records at once: the button says so while it speaks.
  if (state.speaking) return { talkLabel: 'Speaking…\nhold to interrupt', talkLook: 'speaking' };
  return { talkLabel: 'Hold to talk', talkLook: 'ready' };
};

const hint = (state: KioskState, shown: ShownConnection): string => {
  if (shown === 'offline') return 'The robot is offline: it cannot hear or answer until it is back.';
  if (notSetUp(state, shown)) {
    return `${NOT_SET_UP} Staff: open this page with the robot’s ?token=… in its address.`;
  }
  if (shown === 'refused') {
    return 'The robot refused this kiosk’s access token. Staff: open this page with the right ?token=… in its address.';
  }
  if (shown === 'connecting') return 'Connecting to the robot…';
  if (state.microphoneAllowed === false) return 'The robot has switched the microphone off for now.';
  if (state.device === 'failed') return NO_MICROPHONE;
  if (state.microphoneAllowed === undefined || state.device !== 'open') return 'The microphone is starting…';
  if (state.handsFree && state.speaking) {
    if (state.voiceInterrupts && state.untilPause !== undefined) {
      return 'The robot is answering what you said: pause a moment before you talk over it, or press the button, to interrupt it.';
    }
    return state.voiceInterrupts
      ? 'The robot is speaking: talk over it, or press the button, to interrupt it.'
      : 'The robot is speaking and does not listen meanwhile: press the button to interrupt it.';
  }
  if (state.handsFree) return 'Hands-free is on: just speak. The robot answers when you pause.';
  if (state.speaking && state.recording === 'none') {
    return 'The robot is speaking: hold the button to interrupt it and ask something else.';
  }
  if (state.touchOnly) return 'Hold the button while you speak, then let go.';
  return 'Hold the button — or the Space bar — while you speak, then let go.';
};

const idleText = (state: KioskState, shown: ShownConnection): string => {
  if (shown === 'offline') return 'I am offline at the moment, so I cannot hear or answer you. Back soon!';
  if (shown === 'refused') return 'I cannot talk on this screen right now. Please ask a member of staff.';
  if (shown === 'connecting') return 'Just a moment — I am getting ready.';
  // No invitation to talk that the kiosk cannot keep.
  if (state.microphoneAllowed === false) return 'Hello! My microphone is off for now, so I cannot hear you.';
  if (state.device === 'failed') {
    return 'Hello! I cannot hear you on this screen: it has no working microphone. Please ask a member of staff.';
  }
  if (state.microphoneAllowed === undefined || state.device !== 'open') {
    return 'Just a moment — I am getting ready.';
  }
  if (state.handsFree) return 'Hello! Just speak and ask me something.';
  return 'Hello! Hold the big button and ask me something.';
};

export const kioskView = (state: KioskState, now: number): KioskView => {
  const shown = shownConnection(state);
  // A lost connection ends every turn: offline is the one thing to say then.
  const thinking = state.thinking && shown === 'online';
  return {
    connection: shown,
    connectionText: connectionText(state, shown),
    retryText: retryText(state, shown, now),
    ...microphone(state, shown),
    ...talk(state, shown),
    talkUsable: refusal(state) === undefined,
    hint: hint(state, shown),
    idleText: idleText(state, shown),
    faceStatus: thinking ? 'Thinking…' : '',
    faceOverride: thinking ? 'thinking' : undefined,
    badgeText: notSetUp(state, shown) ? 'Not set up' : shown === 'refused' ? 'No access' : 'Offline',
  };
};
