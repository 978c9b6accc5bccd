/**
 * The `/ws` protocol, apart from its transport: one module, imported by the service and bundled by
 * `npm run build:web` into the kiosk, so it uses nothing of Node.js or the DOM. docs/protocol.md describes
 * it and test/repo/docs-match.test.ts holds the two equal; test/unit/protocol.test.ts checks that the
 * documented example frames (test/support/ws-examples.ts) agree with the schemas.
 *
 * Frames:
 * - client → server, binary: raw audio of one utterance: one turn (one `/chat` call or one Converse goal);
 *   in a session that streams (it sent `utterance_start`), one part of the open utterance, headed by
 *   PART_HEADER_BYTES.
 * - client → server, text: a JSON command (`ClientCommand`): clear_history (queued), cancel (at once),
 *   utterance_start and utterance_end (a streamed utterance), heard (how much of an answer was played).
 * - server → client, text: a JSON message (`ServerMessage`; a client reads it as a `ReceivedMessage`).
 * - server → client, binary: 4-byte big-endian unsigned message id, then audio bytes (possibly none). It always
 *   directly follows the `audio` text message carrying the same `messageId`.
 *
 * By idea: codes.ts names the commands, error codes, turn outcomes and close codes; messages.ts holds the
 * text frames' schemas, the types read off them and their parsers; frames.ts the binary frames, the audio
 * format and the frames the service builds; limits.ts the endpoint's limits.
 */
export * from './codes.js';
export * from './messages.js';
export * from './frames.js';
export * from './limits.js';
