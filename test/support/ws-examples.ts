import { busyMessage, DEFAULT_LIMITS } from '../../src/protocol/ws/index.js';

/**
 * The /ws protocol's example frames, as docs/protocol.md shows them (test/repo/docs-match.test.ts); the
 * protocol tests parse every one of them. Messages the server builds (busy) are built here by the very
 * function the server uses, so the page cannot show a text never sent.
 */

export interface ExampleFrame {
  readonly direction: 'client→server' | 'server→client';
  readonly kind: 'text' | 'binary';
  readonly description: string;
  /** Text frames: the exact JSON. Binary frames: the bytes in hex, header first. */
  readonly frame: string;
}

export const EXAMPLE_FRAMES: readonly ExampleFrame[] = [
  {
    direction: 'server→client',
    kind: 'text',
    description: 'Sent once on connect: what to show and whether the microphone is enabled.',
    frame:
      '{"type":"state","emotion":"neutral","text":"","microphone":{"enabled":true},"limits":{"utteranceMs":65534}}',
  },
  {
    direction: 'client→server',
    kind: 'binary',
    description: 'Raw audio recorded by the kiosk; forwarded as one /chat call.',
    frame: '52 49 46 46 …',
  },
  {
    direction: 'server→client',
    kind: 'text',
    description:
      "Metadata of an answer to the kiosk's turn 1 (the /chat answer, or one part of a Converse answer).",
    frame: '{"type":"audio","emotion":"happy","text":"Welcome to the museum!","messageId":7,"turn":1}',
  },
  {
    direction: 'server→client',
    kind: 'binary',
    description: 'Directly follows its metadata: message id 7 as 4 bytes big-endian, then the audio.',
    frame: '00 00 00 07 52 49 46 46 …',
  },
  {
    direction: 'server→client',
    kind: 'text',
    description: 'Turn 1 is over: every pair of it was sent.',
    frame: '{"type":"turn_end","turn":1,"outcome":"answered"}',
  },
  {
    direction: 'server→client',
    kind: 'text',
    description: 'Metadata of a /play_audio message: no turn.',
    frame: '{"type":"audio","emotion":"neutral","text":"Please follow me.","messageId":8}',
  },
  {
    direction: 'server→client',
    kind: 'text',
    description:
      'This kiosk was slower than a burst of /play_audio: the 3 oldest messages waiting for it were dropped (sent before the next message it gets).',
    frame: '{"type":"audio_dropped","count":3}',
  },
  {
    direction: 'client→server',
    kind: 'text',
    description: 'Clears the conversation history of the robot.',
    frame: '{"service":"clear_history"}',
  },
  {
    direction: 'server→client',
    kind: 'text',
    description: 'The history was cleared.',
    frame: '{"type":"ack","service":"clear_history"}',
  },
  {
    direction: 'client→server',
    kind: 'text',
    description: 'Barge-in: stops the running turn and drops the queued ones; not queued.',
    frame: '{"service":"cancel"}',
  },
  {
    direction: 'server→client',
    kind: 'text',
    description: 'The running turn 2 was cancelled (one such frame per cancelled turn, in turn order) …',
    frame: '{"type":"turn_end","turn":2,"outcome":"cancelled"}',
  },
  {
    direction: 'server→client',
    kind: 'text',
    description: '… then the ack: no pair of a cancelled turn comes after it.',
    frame: '{"type":"ack","service":"cancel"}',
  },
  {
    direction: 'server→client',
    kind: 'text',
    description: 'Turn 3 timed out; its turn_end (outcome failed) follows.',
    frame: JSON.stringify({
      type: 'error',
      code: 'chat_timeout',
      // What RosTimeoutError says (test/unit/protocol.test.ts holds them equal): protocol imports no ROS.
      message: `ROS service /chat did not answer within ${DEFAULT_LIMITS.chatTimeoutMs} ms`,
      turn: 3,
    }),
  },
  {
    direction: 'server→client',
    kind: 'text',
    description: 'Sent to every session when /microphone/set_enabled changes the microphone state.',
    frame: '{"type":"microphone","enabled":false}',
  },
  {
    direction: 'server→client',
    kind: 'text',
    description:
      "A recoverable error; the session stays open. Here the session's queue was full when its 6th utterance came; its turn_end (outcome refused) follows.",
    frame: JSON.stringify({
      type: 'error',
      code: 'busy',
      message: busyMessage('chat', { kind: 'queue', maxWaitingCalls: DEFAULT_LIMITS.maxWaitingCalls }),
      turn: 6,
    }),
  },
  {
    direction: 'server→client',
    kind: 'text',
    description:
      "The same code when the audio queued by all sessions is at its limit (this session's first utterance).",
    frame: JSON.stringify({
      type: 'error',
      code: 'busy',
      message: busyMessage('chat', {
        kind: 'audio',
        maxQueuedAudioBytes: DEFAULT_LIMITS.maxQueuedAudioBytes,
      }),
      turn: 1,
    }),
  },
  {
    direction: 'client→server',
    kind: 'text',
    description:
      'Opens a streamed utterance: turn 4 (the next turn), its parts follow while the visitor speaks.',
    frame: '{"service":"utterance_start"}',
  },
  {
    direction: 'client→server',
    kind: 'binary',
    description:
      'Part 0 of utterance 4: turn and sequence, 4 bytes big-endian each, then 16-bit PCM (100 ms is 3,200 bytes).',
    frame: '00 00 00 04 00 00 00 00 1f 00 2a 00 …',
  },
  {
    direction: 'server→client',
    kind: 'text',
    description: 'What the robot heard so far of utterance 4; each replaces the last.',
    frame: '{"type":"transcript","turn":4,"text":"where is the","final":false}',
  },
  {
    direction: 'client→server',
    kind: 'text',
    description: 'Closes utterance 4 after its 12 parts: its turn starts.',
    frame: '{"service":"utterance_end","turn":4,"parts":12}',
  },
  {
    direction: 'server→client',
    kind: 'text',
    description: 'The final transcript of utterance 4; the answer pairs and turn_end follow as for any turn.',
    frame: '{"type":"transcript","turn":4,"text":"where is the exit","final":true}',
  },
  {
    direction: 'server→client',
    kind: 'text',
    description: 'Part 5 came where part 3 was due: utterance 5 is abandoned (turn_end abandoned follows).',
    frame:
      '{"type":"error","code":"part_out_of_order","message":"part 5 of utterance 5 came where part 3 was due","turn":5}',
  },
  {
    direction: 'client→server',
    kind: 'text',
    description:
      'The visitor interrupted the answer to turn 4 after 2.9 s: message 21 was playing, 900 ms of its 2,000 ms.',
    frame: '{"service":"heard","turn":4,"playedMs":2900,"messageId":21,"partPlayedMs":900,"partMs":2000}',
  },
];
