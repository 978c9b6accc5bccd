import { accessToken } from './access-token.js';
import type { PcmChunk } from './capture-format.js';
import { KioskConnection, type ConnectionStatus } from './connection.js';
import { setSpeaking } from './face.js';
import { FramePairer, type AudioPair } from './frame-pairer.js';
import { Microphone, type MicrophoneDevice } from './microphone.js';
import { Player, PLAYBACK_QUEUE_CAPACITY, type PlayOutcome } from './player.js';
import type { Slot } from './playback-timeline.js';
import {
  clearNotice,
  clearNoticeForAnswer,
  drawView,
  face,
  fitSpeech,
  markInterrupted,
  notify,
  page,
  pointAtHint,
  sayAnswer,
  sayPolitely,
  sayToVisitor,
  showAnswer,
  showVisitorWords,
  silenceAnnouncements,
} from './kiosk-page.js';
import { canTalk, kioskView, refusal, type Recording } from './kiosk-view.js';
import { Probe } from './probe.js';
import { SpeechFollower } from './speech-follower.js';
import {
  COMMAND,
  DEFAULT_MAX_AUDIO_FRAME_BYTES,
  PCM_SAMPLE_RATE,
  utteranceAudioMs,
  type ErrorCode,
  type Received,
  type ReceivedMessage,
} from '../../src/protocol/ws/index.js';
import { THINKING_MAX_MS, TurnTracker } from './turns.js';
import { PreRoll, UtteranceBuffer, type Recorder } from './utterance.js';
import { limitNotice, maxUtteranceSamples } from './utterance-limit.js';
import { UtteranceStream } from './utterance-stream.js';
import { AnswerProgress, type HeardReport } from './heard-report.js';
import { VisitorWords } from './visitor-words.js';
import {
  ABANDONED_UTTERANCE,
  failureLine,
  LOST_QUESTION,
  LOST_RECORDING,
  type FailureLine,
} from './failure-lines.js';
import { KioskSettings } from './kiosk-settings.js';
import { DEFAULT_VAD, VoiceActivityDetector } from './vad.js';
import { bindTalkControls } from './talk-controls.js';
import { encodeWav, samplesMs } from './wav.js';

/**
 * The kiosk page: wires the connection, the microphone and the player to the page. Each part is its own
 * module (the page's elements and drawing in kiosk-page.ts, the press to talk in talk-controls.ts); this one
 * holds the page state and decides what may happen when.
 */

/**
 * Utterances go up in parts while the visitor speaks (docs/protocol.md, "Streamed utterances");
 * `?upload=whole` in the page's address sends each as one WAV frame when they stop, as the specification
 * has it.
 */
const STREAMING = new URLSearchParams(location.search).get('upload') !== 'whole';
/** Shorter presses are taken as accidental taps and not sent (nor opened, when streaming). */
const MIN_UTTERANCE_MS = 250;
/**
 * Hands-free opens its streamed utterance once the voice detector is sure of it, or at the latest once this
 * much is recorded: what was held goes up at once, and must stay well inside how far the service lets a
 * stream run ahead of real time (2 s).
 */
const HANDS_FREE_OPEN_MS = 1_000;
/** For this many seconds before the limit, the button counts down what is left. */
const LIMIT_WARNING_S = 10;
const TOO_SHORT = 'Not sent: that was very short. Hold the button while you speak.';
/** Hands-free keeps this much audio from before the threshold tripped. */
const PRE_ROLL_SAMPLES = 0.3 * PCM_SAMPLE_RATE;
/** Hands-free ignores the microphone while the robot speaks and this long after, so it does not hear itself. */
const ECHO_TAIL_MS = 600;
/**
 * Over the robot's voice, voice must be this much louder than the threshold to count: what the browser's
 * echo canceller leaves of the robot must not interrupt it.
 */
const BARGE_IN_MARGIN_DB = 6;

const state = {
  connection: 'connecting' as ConnectionStatus,
  /** From a session's end until the next session's state: reconnect attempts still show offline. */
  lostSession: false,
  /** performance.now() of the next reconnect attempt, while one is scheduled. */
  retryAt: undefined as number | undefined,
  /** What the service says (`state` and `microphone` frames); undefined until the session's state. */
  microphoneAllowed: undefined as boolean | undefined,
  device: 'closed' as MicrophoneDevice,
  tokenGiven: accessToken() !== undefined,
  handsFree: false,
  recording: 'none' as Recording,
  secondsLeft: undefined as number | undefined,
  heldPastLimit: false,
  thinking: false,
  speaking: false,
  /** The operator allows voice to interrupt the robot (kiosk settings). */
  voiceInterruptsAllowed: true,
  /** Allowed, and the browser cancels the robot's echo on the microphone: see kiosk-view.ts. */
  voiceInterrupts: false,
  /** The primary pointer is a finger (the kiosk-view.ts hint). */
  touchOnly: matchMedia('(pointer: coarse)').matches,
  lastPlaybackEndedAt: -Infinity,
  /** The emotion of what the robot said last (the face shows it unless the robot is thinking). */
  emotion: 'neutral',
  /** The turn whose parts the bubble shows: its later parts add to it (undefined: a new answer replaces it). */
  bubbleTurn: undefined as number | undefined,
  /** A question was waiting for its answer when the session ended: the next session apologises. */
  lostQuestion: false,
  /** The visitor was speaking when the session ended: the next session asks them to say it again. */
  lostRecording: false,
  /**
   * Hands-free sent at the length limit while the visitor went on speaking: nothing they say counts, nor
   * interrupts the answer, until they pause (quietMs of the voice detector's hang-over).
   */
  untilPause: undefined as { quietMs: number } | undefined,
};

const probe = new Probe();
const context = new AudioContext({ latencyHint: 'interactive' });
/** Until the service's `state` says otherwise, its default limit (the frame of --max_audio_frame_bytes). */
let utteranceMaxSamples = maxUtteranceSamples(utteranceAudioMs(DEFAULT_MAX_AUDIO_FRAME_BYTES));
let utterance = new UtteranceBuffer(utteranceMaxSamples);
const preRoll = new PreRoll(PRE_ROLL_SAMPLES);
const vad = new VoiceActivityDetector(DEFAULT_VAD);
const pairer = new FramePairer();
const turns = new TurnTracker();
const progress = new AnswerProgress();
const visitorWords = new VisitorWords();
/** The streamed utterance being recorded (undefined when recording whole, or not recording). */
let stream: UtteranceStream | undefined;
/** Where what is recorded now goes. */
const recorder = (): Recorder => stream ?? utterance;
/** The turn whose failure the bubble shows (so a turn_end `abandoned` after it adds nothing). */
let failureShownFor: number | undefined;
/**
 * Answers and /play_audio that came while the visitor records: the robot does not talk over them. They
 * play when the recording ends (after it was sent, so an answer it replaced never starts).
 */
const heldWhileRecording: AudioPair[] = [];

// ---------------------------------------------------------------------------------------------------------
// Rendering: the page shows `state`; every change goes through render().

/** While offline with a retry scheduled, the countdown is redrawn every quarter second. */
let countdown: ReturnType<typeof setInterval> | undefined;

const render = (): void => {
  const now = performance.now();
  state.thinking = turns.thinking(now) && !player.busy;
  state.speaking = player.busy;
  state.voiceInterrupts = state.voiceInterruptsAllowed && microphone.echoCancellation === true;
  settings.showMicrophone(microphone.echoCancellation, probe.microphoneProblem);
  drawView(kioskView(state, now), state);
  const counting = state.connection === 'offline' && state.retryAt !== undefined;
  if (counting && countdown === undefined) countdown = setInterval(render, 250);
  if (!counting && countdown !== undefined) {
    clearInterval(countdown);
    countdown = undefined;
  }
};

// ---------------------------------------------------------------------------------------------------------
// Talking

/** What the robot heard goes from the face: of any utterance, or only of `turn`'s. */
const clearVisitorWords = (turn?: number): void => {
  if (turn !== undefined && visitorWords.turn !== turn) return;
  if (visitorWords.clear()) showVisitorWords(visitorWords.view);
};

const startRecording = (kind: Exclude<Recording, 'none'>): void => {
  utterance = new UtteranceBuffer(utteranceMaxSamples);
  stream = STREAMING
    ? new UtteranceStream((frame) => connection.send(frame), utteranceMaxSamples)
    : undefined;
  // A new question: what the robot heard of the last one goes.
  clearVisitorWords();
  state.recording = kind;
  state.secondsLeft = undefined;
  state.heldPastLimit = false;
  if (kind === 'push') sayToVisitor('Listening. Release to send.');
  render();
};

/** The recording ended: what came meanwhile plays, unless it belongs to a question since replaced. */
const releaseHeld = (): void => {
  for (const pair of heldWhileRecording.splice(0)) {
    if (pair.meta.turn !== undefined && turns.cancelled(pair.meta.turn)) {
      probe.recordIgnored(pair.meta.messageId);
    } else player.enqueue(pair);
  }
};

/**
 * One question at a time: a new one is about to reach the robot while it still thinks about or answers an
 * older one, which is cancelled first (its voice stops, nothing more of it plays).
 */
const replaceOldQuestion = (): void => {
  if (turns.unanswered || robotAnswering()) bargeIn();
};

/**
 * Opens the streamed utterance once it is sure to be sent: a press long enough not to be a tap; in
 * hands-free, voice long enough not to be discarded, or the most it may hold. A tap or a cough then never
 * reaches the service, and never needs the `cancel` that would also stop the robot's answer.
 */
const openWhenSure = (): void => {
  if (stream === undefined || stream.turn !== undefined) return;
  const ms = samplesMs(stream.samples);
  const sure =
    state.recording === 'push' ? ms >= MIN_UTTERANCE_MS : vad.confirmed || ms >= HANDS_FREE_OPEN_MS;
  if (sure) replaceOldQuestion();
  if (sure && !stream.open(() => turns.utteranceOpened())) {
    finishRecording(false, 'Not sent: the robot is not connected.');
  }
};

/**
 * An open streamed utterance the visitor will not finish. The protocol's one `cancel` abandons it and also
 * stops whatever the robot still does for this kiosk: the visitor had started a new question, so the answer
 * to an older one is not what they wait for, and its voice stops with it (as at a barge-in).
 */
const abandonUtterance = (turn: number): void => {
  // A session that ended took the utterance with it: the service abandoned it itself.
  if (!connection.open) return;
  probe.recordAbandoned(turn);
  clearVisitorWords(turn);
  if (robotAnswering()) {
    bargeIn();
    return;
  }
  turns.cancelAll();
  connection.send(JSON.stringify({ service: COMMAND.cancel }));
};

/** What went up for an utterance: its turn, audio bytes and binary frames. */
interface Sent {
  readonly turn: number;
  readonly bytes: number;
  readonly parts: number;
}

/** Sends what was recorded as one WAV frame; undefined when it could not be sent. */
const sendWhole = (samples: Int16Array): Sent | undefined => {
  replaceOldQuestion();
  const wav = encodeWav(samples);
  if (!connection.send(wav)) return undefined;
  return { turn: turns.utteranceSent(performance.now()), bytes: wav.byteLength, parts: 1 };
};

/** Closes the streamed utterance, opening it first if the last chunk made it long enough. */
const closeStream = (streamed: UtteranceStream): Sent | undefined => {
  if (streamed.turn === undefined) replaceOldQuestion();
  if (!streamed.open(() => turns.utteranceOpened())) return undefined;
  const closed = streamed.close();
  if (closed !== undefined) turns.utteranceClosed(closed.turn, performance.now());
  return closed;
};

/** Ends the utterance in progress: sends it (the rest of its parts, or one WAV frame), or drops it. */
const finishRecording = (send: boolean, note?: string): void => {
  if (state.recording === 'none') return;
  // Where "time to first sound" starts: the audio clock when the visitor let go.
  const releasedClock = context.currentTime;
  const pushed = state.recording === 'push';
  state.recording = 'none';
  state.secondsLeft = undefined;
  vad.reset();
  const upload =
    stream === undefined
      ? ({ kind: 'whole', samples: utterance.take() } as const)
      : ({ kind: 'streamed', stream } as const);
  stream = undefined;
  const ms = samplesMs(upload.kind === 'whole' ? upload.samples.length : upload.stream.samples);
  render();
  try {
    sendOrDrop(upload, send, ms, releasedClock, pushed, note);
  } finally {
    releaseHeld();
    render();
  }
};

/** The end of finishRecording: the recording goes up, or is dropped, and the visitor hears which. */
const sendOrDrop = (
  upload:
    | { readonly kind: 'whole'; readonly samples: Int16Array }
    | { readonly kind: 'streamed'; readonly stream: UtteranceStream },
  send: boolean,
  ms: number,
  releasedClock: number,
  pushed: boolean,
  note: string | undefined,
): void => {
  /** What happened, said once: to the visitor who pressed at once, else politely (the notice shows it). */
  const tell = (text: string, outlivesAnswer = false): void => {
    if (pushed) sayToVisitor(text);
    notify(text, outlivesAnswer, pushed);
  };
  if (!send || ms < MIN_UTTERANCE_MS) {
    if (upload.kind === 'streamed' && upload.stream.turn !== undefined) abandonUtterance(upload.stream.turn);
    if (send) tell(TOO_SHORT);
    else if (note !== undefined) tell(note);
    else if (pushed) sayToVisitor('Not sent.');
    return;
  }
  const sent = upload.kind === 'whole' ? sendWhole(upload.samples) : closeStream(upload.stream);
  if (sent === undefined) {
    tell('Not sent: the robot is not connected.');
    return;
  }
  probe.recordSent({ ...sent, ms, releasedClock, upload: upload.kind });
  // A server that never ends the turn stops showing "thinking" after a while (turns.ts).
  setTimeout(render, THINKING_MAX_MS + 1);
  // "Thinking…" under the face shows the rest (kiosk-view.ts). A note says what happened to the question,
  // so it stays when the answer starts.
  tell(note ?? 'Sent.', note !== undefined);
};

/**
 * The service ended the turn being streamed while the visitor still speaks (it abandoned or refused the
 * utterance; its error already said why in the bubble): recording stops, nothing more is sent.
 */
const streamEndedByService = (turn: number): void => {
  if (stream?.turn !== turn || state.recording === 'none') return;
  if (state.recording === 'push') sayToVisitor('Not sent.');
  stream = undefined;
  state.recording = 'none';
  state.secondsLeft = undefined;
  vad.reset();
  releaseHeld();
  render();
};

/** The robot is answering an utterance: its audio plays or waits, or more of it is on the way. */
const robotAnswering = (): boolean => turns.answering || player.holds((pair) => pair.meta.turn !== undefined);

/** Anything of the robot's a visitor's new question stops: its voice, or a question it thinks about. */
const robotBusy = (): boolean => robotAnswering() || player.busy || turns.unanswered;

/**
 * Barge-in: the visitor talks over the robot. Its voice stops at once, nothing more of the turns sent so
 * far is played (turns.ts drops what still arrives), and the service stops working on them. `mark`: the
 * bubble greys what was not said (not when the conversation is being forgotten anyway).
 */
const bargeIn = (mark = true): void => {
  const spokenTo = answerPlaying ? follower.spokenOffset() : undefined;
  const cutShort = answerPlaying && mark;
  const heard = heardSoFar();
  player.stopAll();
  if (cutShort) markInterrupted(spokenTo);
  turns.cancelAll();
  probe.recordBargeIn(turns.latest);
  // Before the cancel, while the service still holds the turn's answer to match the report against.
  if (heard !== undefined && connection.send(JSON.stringify(heard))) probe.recordHeard(heard);
  connection.send(JSON.stringify({ service: COMMAND.cancel }));
};

/**
 * How much of the answer being cut the visitor heard, from what the player played; undefined when no
 * answer is cut short (none played, or the last one played to its end with nothing more to come).
 */
const heardSoFar = (): HeardReport | undefined => {
  const turn = progress.turn;
  if (turn === undefined) return undefined;
  const early = player.holds((pair) => pair.meta.turn === turn) || turns.pending(turn);
  const report = progress.cut(context.currentTime);
  return early ? report : undefined;
};

/** Hands-free: the visitor interrupts the robot, by a press or by voice. */
const interrupt = (): void => {
  if (robotAnswering() || player.busy) bargeIn();
  // The robot's voice was cut, not finished: there is no echo of it to wait out.
  state.lastPlaybackEndedAt = -Infinity;
  render();
};

const beginPush = (): void => {
  if (state.recording !== 'none') return;
  const reason = refusal(state);
  if (reason !== undefined) {
    probe.recordRefusal(reason);
    // The hint beside the button already says why: it is pointed at, not repeated in a notice.
    sayToVisitor(reason);
    pointAtHint();
    return;
  }
  // Hands-free: the press only interrupts; listening starts afresh at once (nothing heard over the robot's
  // voice counts, and there is no echo tail to wait out).
  if (state.handsFree) {
    vad.reset();
    interrupt();
    return;
  }
  // The robot's voice stops at the press. A question it still thinks about is cancelled once the press
  // is long enough to be a new one (replaceOldQuestion); until then its answer waits (heldWhileRecording).
  if (robotAnswering() || player.busy) bargeIn();
  startRecording('push');
};

const endPush = (send: boolean): void => {
  if (state.recording === 'push') finishRecording(send);
  if (state.heldPastLimit) {
    state.heldPastLimit = false;
    render();
  }
};

/** Counts down the last seconds before the length limit; false once the limit is reached. */
const appendRecorded = (samples: Int16Array): boolean => {
  const room = recorder().append(samples);
  const left = Math.ceil((recorder().maxSamples - recorder().samples) / PCM_SAMPLE_RATE);
  const secondsLeft = left <= LIMIT_WARNING_S ? left : undefined;
  if (room && secondsLeft !== state.secondsLeft) {
    // The label counts every second; a screen reader hears it once, when the countdown starts.
    if (state.secondsLeft === undefined) sayPolitely(`${secondsLeft} seconds left.`);
    state.secondsLeft = secondsLeft;
    render();
  }
  return room;
};

const onChunk = (chunk: PcmChunk): void => {
  settings.showLevel(chunk.levelDb);
  if (state.recording === 'push') {
    if (!appendRecorded(chunk.samples)) {
      // The finger is still down: the button says it was sent and to let go.
      state.heldPastLimit = true;
      finishRecording(true, limitNotice(recorder().maxSamples));
    } else openWhenSure();
    return;
  }
  if (state.recording === 'hands-free') {
    const full = !appendRecorded(chunk.samples);
    const event = vad.update(chunk.levelDb, chunk.ms);
    if (full) {
      // The visitor is still speaking: that is not a new question, nor a reason to stop the answer.
      state.untilPause = { quietMs: 0 };
      finishRecording(true, limitNotice(recorder().maxSamples));
    } else if (event === 'end') finishRecording(true);
    else if (event === 'discard') finishRecording(false);
    else openWhenSure();
    return;
  }
  // While the robot speaks, hands-free listens only where voice may interrupt it; just after, its echo
  // may still be in the room, so it waits that out.
  if (state.untilPause !== undefined) {
    state.untilPause.quietMs = chunk.levelDb < vad.thresholdDb ? state.untilPause.quietMs + chunk.ms : 0;
    if (state.untilPause.quietMs < DEFAULT_VAD.hangoverMs) {
      vad.reset();
      preRoll.take();
      return;
    }
    state.untilPause = undefined;
    render();
  }
  const speaking = player.busy;
  const listens = speaking
    ? state.voiceInterrupts
    : performance.now() - state.lastPlaybackEndedAt >= ECHO_TAIL_MS && context.state === 'running';
  if (!state.handsFree || !canTalk(state) || !listens) {
    vad.reset();
    preRoll.take();
    return;
  }
  preRoll.push(chunk.samples);
  const levelDb = speaking ? chunk.levelDb - BARGE_IN_MARGIN_DB : chunk.levelDb;
  if (vad.update(levelDb, chunk.ms) === 'start') {
    const heard = preRoll.take();
    if (speaking) {
      probe.recordVoiceInterrupt();
      interrupt();
    }
    startRecording('hands-free');
    for (const part of heard) recorder().append(part);
  }
};

const microphone = new Microphone(context, '/assets/pcm-worklet.js', {
  onChunk,
  onDevice: (device, problem) => {
    state.device = device;
    // The visitor is told the microphone is not available; the browser's reason is for staff (the kiosk
    // settings and the probe).
    if (device === 'failed') probe.microphoneProblem = problem ?? 'no reason given';
    else if (device === 'open') probe.microphoneProblem = undefined;
    if (device !== 'open') finishRecording(false);
    render();
  },
});

/** The microphone is open exactly while the service allows it. */
const applyMicrophoneAllowed = (allowed: boolean): void => {
  const wasKnown = state.microphoneAllowed !== undefined;
  const changed = state.microphoneAllowed !== allowed;
  state.microphoneAllowed = allowed;
  // A reason said for a refused press ("switched off") no longer holds.
  if (changed) silenceAnnouncements();
  if (allowed) {
    void microphone.open();
  } else {
    if (state.recording !== 'none') finishRecording(false, 'What you were saying was not sent.');
    microphone.close();
  }
  // Said once each way: the hint and the bubble show it, but are not live regions.
  if (changed && state.connection === 'online' && !state.lostSession) {
    if (allowed) notify('The microphone is on again.');
    // The hint shows it already: said, not added as a notice.
    else if (wasKnown) sayPolitely('The robot has switched the microphone off for now.');
  }
  render();
};

// ---------------------------------------------------------------------------------------------------------
// Listening

/** An apology where the answer would have been, with its face; the next answer replaces it. */
const showFailure = (line: FailureLine): void => {
  state.emotion = line.emotion;
  state.bubbleTurn = undefined;
  showAnswer(line.text);
  sayAnswer(line.text);
};

const follower = new SpeechFollower(page.speechBox, page.speech, () => context.currentTime);
/** The bubble's answer is being spoken now (its audio started and has not ended). */
let answerPlaying = false;

const player = new Player(context, {
  onStart: (pair: AudioPair, slot: Slot) => {
    clearNoticeForAnswer();
    state.emotion = pair.meta.emotion;
    // The parts of one streamed answer stay together; anything else starts the bubble afresh.
    const samePart = pair.meta.turn !== undefined && pair.meta.turn === state.bubbleTurn;
    state.bubbleTurn = pair.meta.turn;
    const text = samePart ? `${page.speech.textContent} ${pair.meta.text}` : pair.meta.text;
    showAnswer(text, samePart);
    sayAnswer(pair.meta.text, samePart);
    follower.follow(text.length - pair.meta.text.length, text.length, slot, !samePart);
    answerPlaying = true;
    progress.started(pair.meta.turn, pair.meta.messageId, slot);
    setSpeaking(face, true);
    probe.recordStart({
      messageId: pair.meta.messageId,
      emotion: pair.meta.emotion,
      text: pair.meta.text,
      audioBytes: pair.audio.byteLength,
      turn: pair.meta.turn,
      clockStart: slot.start,
      clockEnd: slot.end,
      startedAt: performance.now(),
    });
    render();
  },
  onEnd: (pair: AudioPair, outcome: PlayOutcome) => {
    answerPlaying = false;
    follower.stop();
    setSpeaking(face, false);
    state.lastPlaybackEndedAt = performance.now();
    probe.recordEnd(pair.meta.messageId, outcome);
    render();
  },
  onDrop: (pair: AudioPair) => {
    probe.recordDrop(pair.meta.messageId);
  },
});

/**
 * Errors about no turn, under the button (an error about a turn is said in the bubble: failure-lines.ts).
 * Per the protocol these are a refused or failed New conversation, and frames the kiosk should not send.
 */
const ERROR_NOTICES: Readonly<Partial<Record<ErrorCode, string>>> = {
  busy: 'One moment — the robot is still answering. Try New conversation again after.',
  clear_history_failed: 'The robot could not start a new conversation. Please try again.',
  clear_history_timeout: 'The robot did not confirm the new conversation. Please try again.',
  clear_history_unavailable: 'The robot cannot start a new conversation right now.',
};

/**
 * Errors about what the kiosk reports, not what the visitor asked: a refused `heard` report, a dropped part
 * (the utterance's own error follows when it loses it: utterance_incomplete).
 */
const QUIET_ERRORS: ReadonlySet<string> = new Set<ErrorCode>(['heard_invalid', 'part_invalid']);

/** An error the visitor should see: in the bubble when a question went unanswered, else under the button. */
const showError = (message: Received<'error' | 'unknown_error'>): void => {
  const line = message.type === 'error' && message.turn !== undefined ? failureLine(message.code) : undefined;
  const notice = message.type === 'error' ? ERROR_NOTICES[message.code] : undefined;
  if (line !== undefined) {
    showFailure(line);
    failureShownFor = message.turn;
  }
  // A code newer than this page (the service was upgraded under it) gets the general notice.
  else notify(notice ?? 'Something went wrong; please try again.');
};

/** How a turn ended: a streamed utterance the service gave up on stops being recorded and is said in the bubble. */
const endTurn = ({ turn, outcome }: Received<'turn_end'>): void => {
  const cancelled = turns.cancelled(turn);
  turns.turnEnded(turn);
  streamEndedByService(turn);
  if (outcome === 'answered' || outcome === 'failed') return;
  // Abandoned, refused or cancelled: what the robot heard of it came to nothing.
  clearVisitorWords(turn);
  if (outcome === 'abandoned' && !cancelled && failureShownFor !== turn) showFailure(ABANDONED_UTTERANCE);
};

const onMessage = (message: ReceivedMessage): void => {
  switch (message.type) {
    case 'state':
      // A new session's state replaces whatever the page showed before (reconnects included).
      probe.statesApplied += 1;
      state.bubbleTurn = undefined;
      failureShownFor = undefined;
      clearVisitorWords();
      clearNotice();
      if (state.lostRecording || state.lostQuestion) {
        showFailure(state.lostRecording ? LOST_RECORDING : LOST_QUESTION);
        state.lostRecording = false;
        state.lostQuestion = false;
      } else {
        state.emotion = message.emotion;
        showAnswer(message.text);
      }
      applyMicrophoneAllowed(message.microphone.enabled);
      // A recording under way keeps the limit it started with; the next one has this session's.
      utteranceMaxSamples = maxUtteranceSamples(message.limits.utteranceMs);
      return;
    case 'audio': {
      const evicted = pairer.meta(message);
      if (evicted !== undefined) probe.recordOrphan(evicted.messageId);
      return;
    }
    case 'microphone':
      applyMicrophoneAllowed(message.enabled);
      return;
    case 'ack':
      probe.recordAck(message.service);
      // A cancel's ack needs no words: the visitor is already talking.
      if (message.service === COMMAND.clearHistory) {
        // What was said is forgotten: its last answer goes from the bubble too.
        state.bubbleTurn = undefined;
        state.emotion = 'neutral';
        showAnswer('');
        sayAnswer('');
        clearVisitorWords();
        notify('New conversation: the robot has forgotten what was said.');
        render();
      }
      return;
    case 'error':
    case 'unknown_error':
      probe.recordError(message.code);
      if (QUIET_ERRORS.has(message.code)) return;
      // About a turn the visitor talked over: old news.
      if (turns.error(message.turn) === 'show') showError(message);
      render();
      return;
    case 'turn_end':
      probe.recordTurnEnd(message.turn, message.outcome);
      endTurn(message);
      render();
      return;
    case 'transcript': {
      probe.recordTranscript(message.turn, message.text, message.final);
      // While the visitor speaks anew, a late word about what they said before is no longer news.
      const ownWords = state.recording === 'none' || stream?.turn === message.turn;
      if (ownWords && turns.transcript(message.turn) === 'show' && visitorWords.heard(message)) {
        showVisitorWords(visitorWords.view);
      }
      return;
    }
  }
};

const onBinary = (frame: ArrayBuffer): void => {
  const result = pairer.binary(frame);
  if (result.kind === 'pair') {
    if (turns.pair(result.pair.meta.turn) !== 'show') probe.recordIgnored(result.pair.meta.messageId);
    else if (state.recording === 'none') player.enqueue(result.pair);
    else {
      // The visitor is speaking: the robot waits for them (bounded as the player's own queue is).
      heldWhileRecording.push(result.pair);
      if (heldWhileRecording.length > PLAYBACK_QUEUE_CAPACITY) {
        probe.recordDrop(heldWhileRecording.shift()?.meta.messageId ?? 0);
      }
    }
    render();
  } else if (result.kind === 'orphan') probe.recordOrphan(result.messageId);
};

const wsUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
const connection = new KioskConnection(wsUrl, {
  onStatus: (status, retryInMs) => {
    if (status === 'online') {
      probe.connects += 1;
      state.lostSession = false;
    }
    state.connection = status;
    state.retryAt = retryInMs === undefined ? undefined : performance.now() + retryInMs;
    render();
  },
  onMessage,
  onBinary,
  onSessionEnd: () => {
    // The offline screen says the robot cannot answer: its voice must not go on saying otherwise.
    player.stopAll();
    heldWhileRecording.length = 0;
    // Message ids belong to a session; an utterance cannot be sent on a socket that is gone.
    pairer.clear();
    // A question still waiting now will never be answered: the next session says so.
    state.lostQuestion = state.lostQuestion || turns.unanswered;
    // Turns are numbered per session: the next one counts from 1 again.
    turns.reset();
    progress.reset();
    clearVisitorWords();
    // Nothing of the old session stays up: its answer, its notices, its microphone permission. The next
    // session's state says what to show.
    // Said of the session that ended; a failed reconnect attempt ends no session worth silencing.
    if (!state.lostSession) silenceAnnouncements();
    state.lostSession = true;
    clearNotice();
    showAnswer('');
    sayAnswer('');
    state.emotion = 'neutral';
    // What the visitor was saying is lost with the session: the offline screen says why nothing answers,
    // and the next session asks them to say it again (a notice now would be wiped by the offline screen).
    state.lostRecording = state.lostRecording || state.recording !== 'none';
    finishRecording(false);
    state.microphoneAllowed = undefined;
    microphone.close();
    render();
  },
});

// ---------------------------------------------------------------------------------------------------------
// Controls

// The settings dialog, made below, takes the keys while it is open.
bindTalkControls(page.talk, { begin: beginPush, end: endPush, keysElsewhere: () => settings.open });

page.handsFree.addEventListener('change', () => {
  state.handsFree = page.handsFree.checked;
  state.untilPause = undefined;
  finishRecording(false);
  vad.reset();
  render();
});
const settings = new KioskSettings(page.faceWrap, {
  onThreshold: (db) => {
    vad.setThreshold(db);
  },
  onVoiceInterrupts: (allowed) => {
    state.voiceInterruptsAllowed = allowed;
    render();
  },
});
/**
 * New conversation: stop means stop. The robot's voice stops at once, what it works on or says is
 * cancelled (`heard`, then `cancel`), and nothing more of it plays; then it forgets (`clear_history`, run
 * after the cancel: one call at a time, in order).
 */
page.newConversation.addEventListener('click', () => {
  if (!connection.open) {
    notify('Not connected.');
    return;
  }
  if (state.recording !== 'none') finishRecording(false);
  heldWhileRecording.length = 0;
  if (robotBusy()) bargeIn(false);
  state.lastPlaybackEndedAt = -Infinity;
  if (!connection.send(JSON.stringify({ service: COMMAND.clearHistory }))) notify('Not connected.');
  render();
});

// Browsers start audio only after a user gesture unless the kiosk's browser is set to allow it
// (--autoplay-policy=no-user-gesture-required, see docs/kiosk.md); until then a tap anywhere unlocks it.
// The talk button stays above the overlay (kiosk.css), so a first press on it also talks; unlocking
// listens in the capture phase, so audio resumes before the press starts the utterance.
const showUnlock = () => {
  page.unlock.hidden = context.state === 'running';
};
context.addEventListener('statechange', showUnlock);
const unlock = () => {
  if (context.state !== 'running') void context.resume();
};
document.addEventListener('pointerdown', unlock, { capture: true });
document.addEventListener('keydown', unlock, { capture: true });

window.addEventListener('online', () => {
  connection.retryNow();
});

Object.defineProperty(window, 'tourKiosk', {
  value: Object.freeze({
    snapshot: () => ({
      ...probe.snapshot(),
      page: Object.fromEntries(Object.entries(page.body.dataset)),
      audio: { clock: context.currentTime, liveSources: player.liveSources, busy: player.busy },
    }),
  }),
});

settings.apply();
new ResizeObserver(fitSpeech).observe(page.speechBox.parentElement ?? page.body);
showUnlock();
render();
connection.start();
