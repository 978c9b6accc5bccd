import type { ConversationLimits } from '../../src/protocol/ws/index.js';

/** What each limit of the conversation endpoint bounds, and what a client meets beyond it. */
export const LIMIT_DESCRIPTIONS: Record<keyof ConversationLimits, string> = {
  maxTextFrameBytes:
    'Largest client text frame, in bytes; a larger one is answered with `text_frame_too_large` and ignored.',
  maxBinaryFrameBytes:
    'Largest client binary (audio) frame, in bytes; a larger one closes the session with 1009. About 4 minutes of 16 kHz 16-bit mono audio.',
  minBinaryFrameBytes:
    "Smallest client binary (audio) frame, in bytes; a smaller one is answered with `audio_too_short` and never reaches /chat. The default refuses only empty frames: the audio format is the kiosk's choice, so the floor of a real utterance is the deployment's to set (the reference kiosk never sends less than 250 ms, 8,044 bytes).",
  maxWaitingCalls:
    'Calls of one session that may wait behind the running one (chat and clear_history share the queue so history changes keep arrival order); beyond it the frame is answered with `busy`.',
  chatTimeoutMs:
    'Time a turn (a /chat call, or a Converse goal with all its parts) may take once its session starts it, in milliseconds, including any wait for a free place at the ROS service (ros backend); then `chat_timeout`.',
  clearHistoryTimeoutMs:
    'Time a /clear_history call may take once its session starts it, in milliseconds, including any wait for a free place at the ROS service (ros backend); then `clear_history_timeout`.',
  maxSessions: 'Sessions held at once; one more is closed with 1013.',
  maxSessionsPerAddress:
    'Sessions one client address may hold at once (0: no limit); one more is closed with 1013. Each socket may keep up to twice maxBinaryFrameBytes of an inbound message until it closes, so this bounds the memory one client can pin. Behind a front end all kiosks share its address.',
  maxSendBufferBytes:
    "Outbound bytes that may wait for one session; past it the kiosk's oldest `/play_audio` messages are dropped (it is told `audio_dropped`), and a frame of its own that still does not fit closes it with 1008.",
  maxOutboundBytes:
    'Outbound bytes that may wait for all sessions together; past it the sessions furthest behind lose their oldest `/play_audio` messages first (told `audio_dropped`).',
  sendTimeoutMs:
    'A client that answers no ping for this long, in milliseconds (it reads nothing, whatever it sends), is closed with 1008 `send timeout` (0: never).',
  maxQueuedAudioBytes:
    'Audio bytes held by the /chat calls of all sessions together (running and waiting); an audio frame that would exceed it is answered with `busy`.',
  maxInboundFramesPerSecond:
    "Client frames (text or binary) a session may send per second, sustained; bursts of up to 2 seconds' worth pass. Beyond, the session is closed with 1008.",
  maxInboundBytesPerSecond:
    'Client bytes a session may send per second, sustained; a burst of twice the largest frame allowed (binary or text), or of 2 seconds of its rate if that is more, passes. Beyond, the session is closed with 1008.',
  maxProcessInboundFramesPerSecond:
    "Client frames all sessions together may send per second; a burst of 2 seconds' worth passes. Past it, while the sessions' recent rate is above it, a frame from an address sending at least its fair part (the mean of the addresses' recent rates, weighted by what each sends) closes its session with 1008; the other addresses' frames pass.",
  maxProcessInboundBytesPerSecond:
    'Client bytes all sessions together may send per second, shared among addresses as maxProcessInboundFramesPerSecond.',
  maxPartBytes:
    'Largest audio of one part of a streamed utterance, in bytes (the header not counted); a larger part abandons the utterance with `part_too_large`. 2 seconds of 16 kHz 16-bit mono PCM.',
  maxStreamLeadMs:
    "How far a streamed utterance's audio (its bytes at 32,000 a second) may run ahead of the time since its `utterance_start`, in milliseconds; beyond, it is abandoned with `utterance_too_fast`.",
  utteranceStallMs:
    'Longest wait, in milliseconds, for the next part carrying audio or the `utterance_end` of an open utterance (an empty part does not count); then it is abandoned with `utterance_stalled`.',
  maxStreamLagMs:
    "How far a streamed utterance's audio may fall behind the time since its `utterance_start`, in milliseconds; beyond, it is abandoned with `utterance_too_slow`.",
  maxUtteranceMs:
    'Longest time a streamed utterance may stay open, in milliseconds, whatever it sends; then it is abandoned with `utterance_too_long`. By default the audio maxBinaryFrameBytes holds at real time plus maxStreamLagMs.',
  maxQueuedAudioBytesPerAddress:
    "Audio bytes the sessions of one client address may hold of maxQueuedAudioBytes; past it a frame or part is answered with `busy`. By default a sixteenth of maxQueuedAudioBytes, at least maxBinaryFrameBytes: more than one session's whole queue, and no fewer than 16 addresses can fill the budget.",
};
