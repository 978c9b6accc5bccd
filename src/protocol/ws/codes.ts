/**
 * The names of the `/ws` protocol: the commands a client sends, the codes of `error` messages, how a turn
 * ends, and the close codes that end a session. Each list is written once here and the types are read off
 * it, so a client's tables keyed by a code fail to compile when the code is renamed.
 */

/** The commands a client sends in a text frame, `{"service": …}`. */
export const COMMAND = {
  clearHistory: 'clear_history',
  cancel: 'cancel',
  utteranceStart: 'utterance_start',
  utteranceEnd: 'utterance_end',
  heard: 'heard',
} as const;
export type CommandService = (typeof COMMAND)[keyof typeof COMMAND];
export const COMMAND_SERVICES = Object.values(COMMAND) as [CommandService, ...CommandService[]];

/** How a kiosk utterance reaches the robot (`--chat_interface`): the `/chat` service, or the Converse action. */
export const CHAT_INTERFACES = ['service', 'action'] as const;
export type ChatInterface = (typeof CHAT_INTERFACES)[number];

/** What a client shows before the first answer. */
export const INITIAL_EMOTION = 'neutral';
export const INITIAL_TEXT = '';

/**
 * Turns: every binary (audio) frame a session receives is one turn, numbered from 1 in arrival order,
 * counting refused frames too, so a kiosk knows each utterance's number by counting what it sent. Highest
 * turn number; a session that reached it is closed (never in practice: one utterance a second for 285 years).
 */
export const MAX_TURN = Number.MAX_SAFE_INTEGER;

/** How a turn ended, in its `turn_end` frame. */
export const TURN_OUTCOMES = {
  answered: 'The call (or the Converse goal) succeeded and every pair of the turn was sent.',
  failed: 'An error frame (`chat_failed`, `chat_timeout`, `chat_unavailable`) came just before.',
  refused:
    "The frame was never queued: an `audio_too_short`, `busy` or `microphone_disabled` error came just before, or, for a turn refused `busy` while an earlier refused turn's `busy` stands (nothing was queued since), earlier.",
  cancelled:
    "The kiosk's `cancel` command stopped the turn (it ran), dropped it (it waited) or abandoned its streamed utterance (still open).",
  abandoned:
    'The streamed utterance was abandoned before it ended: an error about it (`part_out_of_order`, `part_too_large`, `utterance_too_large`, `utterance_too_fast`, `utterance_incomplete`, `utterance_stalled`, `part_odd_length`, `utterance_too_long`, `utterance_too_slow`, `microphone_disabled`) came just before.',
} as const satisfies Record<string, string>;
export type TurnOutcome = keyof typeof TURN_OUTCOMES;
export const TURN_OUTCOME_NAMES = Object.keys(TURN_OUTCOMES) as [TurnOutcome, ...TurnOutcome[]];

/**
 * What each error code of `{"type":"error"}` messages means; the description is the message of an error
 * sent without one of its own. None of them closes the session: the client may go on. Conditions that end
 * a session use a WebSocket close code instead (CLOSE_CODES).
 */
export const ERROR_CODES = {
  // Invalid UTF-8 never reaches the service: uWebSockets.js drops such a connection first (1006).
  invalid_json: { description: 'The text frame is not valid JSON.' },
  invalid_command: {
    description:
      'The JSON is not a valid command (not an object, a field missing, mistyped or unknown); the message names the field.',
  },
  unknown_service: { description: 'The command names a service this server does not offer.' },
  text_frame_too_large: {
    description: 'The text frame is larger than the text frame limit; it was ignored.',
  },
  audio_too_short: {
    description:
      'The binary frame is shorter than the smallest audio frame (minBinaryFrameBytes; by default, it is empty); it was not forwarded to /chat.',
  },
  busy: {
    description:
      'The session already has one call running and the maximum number waiting, or the audio queued by all sessions would exceed its process-wide limit; the frame was dropped, not queued.',
  },
  microphone_disabled: {
    description:
      'The microphone is disabled (/microphone/set_enabled); the audio frame was not forwarded to /chat.',
  },
  chat_failed: {
    description:
      "The /chat call or the Converse goal failed, or the goal's result was not OK (its message is the result's); no more answer comes for that turn.",
  },
  chat_timeout: {
    description:
      'The /chat call or the whole Converse goal did not finish within the chat time-out; anything late is dropped, never sent.',
  },
  chat_unavailable: {
    description:
      'No /chat service (with --chat_interface action: no /converse action server) is on the ROS graph.',
  },
  clear_history_failed: {
    description: 'The /clear_history call failed; the history may not have been cleared.',
  },
  clear_history_timeout: {
    description: 'The /clear_history call did not answer within its time-out; the outcome is unknown.',
  },
  clear_history_unavailable: { description: 'No /clear_history service is available on the ROS graph.' },
  utterance_open: {
    description:
      'An `utterance_start` came while an utterance of the session is still open (one at a time); it was refused, the open one goes on.',
  },
  part_invalid: {
    description:
      'A binary frame of a session that streams is shorter than the part header, or it (or an `utterance_end`) names a turn that is not the open utterance (unknown, or already ended); it was dropped.',
  },
  part_out_of_order: {
    description:
      "A part's sequence number is not the next one of its utterance; the utterance was abandoned.",
  },
  part_too_large: {
    description: "A part's audio is larger than maxPartBytes; the utterance was abandoned.",
  },
  utterance_too_large: {
    description:
      "The streamed utterance's audio would exceed maxBinaryFrameBytes, the limit of a whole utterance; it was abandoned.",
  },
  utterance_too_fast: {
    description:
      'The streamed audio ran further ahead of real time than maxStreamLeadMs (parts are spoken, so they come at the speed of speech); the utterance was abandoned.',
  },
  utterance_incomplete: {
    description:
      '`utterance_end` gave another number of parts than the server received; the utterance was abandoned, not answered.',
  },
  utterance_stalled: {
    description:
      'No part and no `utterance_end` came for utteranceStallMs while the utterance was open; it was abandoned.',
  },
  part_odd_length: {
    description:
      "A part's audio is an odd number of bytes, so not whole 16-bit samples; the utterance was abandoned.",
  },
  utterance_too_long: {
    description:
      'The streamed utterance stayed open longer than maxUtteranceMs (by default the audio maxBinaryFrameBytes holds at real time, plus maxStreamLagMs); it was abandoned.',
  },
  utterance_too_slow: {
    description:
      'The streamed audio fell further behind real time than maxStreamLagMs (parts carrying too little audio for the time that passed); the utterance was abandoned.',
  },
  heard_invalid: {
    description:
      'A `heard` report names a turn or message this session was not lately answered with (only the latest answered turn and the running one are kept); it was ignored.',
  },
} as const satisfies Record<string, { readonly description: string }>;
/** The codes of `error` messages (docs/protocol.md, "Error codes"). */
export type ErrorCode = keyof typeof ERROR_CODES;
export const ERROR_CODE_NAMES = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

/**
 * WebSocket close codes the server uses to end a session, with the reason sent in the close frame
 * (reasons stay under the 123-byte limit of a close frame).
 */
export const CLOSE_CODES = {
  goingAway: { code: 1001, reason: 'server shutting down', description: 'The server is stopping.' },
  sendBufferExceeded: {
    code: 1008,
    reason: 'send buffer limit exceeded',
    description: 'The client reads too slowly: more than maxSendBufferBytes waited for it.',
  },
  sendTimedOut: {
    code: 1008,
    reason: 'send timeout',
    description: 'The client answered no ping for sendTimeoutMs.',
  },
  inboundRateExceeded: {
    code: 1008,
    reason: 'inbound rate limit exceeded',
    description:
      'The client sent frames faster than maxInboundFramesPerSecond or bytes faster than maxInboundBytesPerSecond, beyond their bursts.',
  },
  inboundShareExceeded: {
    code: 1008,
    reason: 'address sends more than its share',
    description:
      "All sessions together sent faster than maxProcessInboundFramesPerSecond or maxProcessInboundBytesPerSecond, and the client's address sent the most; other addresses go on.",
  },
  binaryFrameTooLarge: {
    code: 1009,
    reason: 'binary frame too large',
    description: 'A binary (audio) frame was larger than maxBinaryFrameBytes.',
  },
  internalError: {
    code: 1011,
    reason: 'internal error',
    description: 'The session met an unexpected server-side failure; reconnecting starts a fresh session.',
  },
  tooManySessions: {
    code: 1013,
    reason: 'too many sessions',
    description: 'The server already holds maxSessions sessions; try again later.',
  },
  tooManySessionsFromAddress: {
    code: 1013,
    reason: 'too many sessions from this address',
    description:
      "The client's address already holds maxSessionsPerAddress sessions; close one, or try again later.",
  },
  placesKeptForOtherAddresses: {
    code: 1013,
    reason: 'last sessions kept for other addresses',
    description:
      "Only the places kept for addresses holding fewer than 2 sessions (a tenth of maxSessions) are left, and the client's address holds 2 or more; try again later.",
  },
} as const satisfies Record<
  string,
  { readonly code: number; readonly reason: string; readonly description: string }
>;
