import type { MicrophoneLogEntry } from '../../state/microphone-log.js';
import { jsonReply } from '../http/reply.js';
import type { AnyRoute } from '../http/route.js';

/** What the audit route reads: the microphone's state now, and its event log. */
export interface MicrophoneAudit {
  isEnabled(): boolean;
  /** Whether the log survives a restart (`--state_dir`), or covers this run only. */
  readonly kept: boolean;
  entries(): readonly MicrophoneLogEntry[];
}

/** The component schema the audit's answer names. */
export const MICROPHONE_SCHEMAS = {
  MicrophoneEvents: {
    type: 'object',
    required: ['enabled', 'kept', 'events'],
    properties: {
      enabled: { type: 'boolean', description: 'The state now' },
      kept: {
        type: 'boolean',
        description: 'true: the log is kept under --state_dir across restarts; false: this run only',
      },
      events: {
        type: 'array',
        description: 'The changes held, oldest first (at most 512; older ones are compacted away)',
        items: {
          type: 'object',
          required: ['seq', 'at', 'enabled', 'source', 'answer'],
          properties: {
            seq: { type: 'integer', minimum: 1, description: 'Numbered from 1, kept across restarts' },
            at: { type: 'string', format: 'date-time', description: 'When the change was kept (UTC)' },
            enabled: { type: 'boolean', description: 'The state it set' },
            source: {
              type: 'string',
              description:
                'Who asked, as far as the way in tells: std_srvs/SetBool carries no caller identity, so a ' +
                'ROS call is named by its service',
            },
            answer: { type: 'string', description: 'What the caller was told' },
          },
        },
      },
    },
  },
};

/**
 * Who switched the microphone, and when: the event log the state is folded from, read-only. Private like
 * the API (behind the token), and never cached.
 */
export const microphoneEventsRoute = (audit: MicrophoneAudit): AnyRoute => ({
  method: 'GET',
  pattern: '/microphone/events',
  docs: {
    summary: "The microphone's changes: who switched it, when, to what, and what they were told",
    description:
      'Each change a caller of /microphone/set_enabled made, kept before it was answered. Requests that ' +
      'changed nothing (already enabled) or were refused are not changes and are not listed.',
    responses: { 200: { description: 'The state and its log', schema: 'MicrophoneEvents' } },
  },
  handle: () =>
    jsonReply(
      200,
      { enabled: audit.isEnabled(), kept: audit.kept, events: audit.entries() },
      { 'cache-control': 'no-store' },
    ),
});
