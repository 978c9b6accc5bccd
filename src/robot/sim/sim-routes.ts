import * as v from 'valibot';
import type { SimControl } from './sim-backend.js';
import { issuePath } from '../../protocol/tour-schema.js';
import { jsonReply, problemReply, type HttpReply } from '../../transport/http/reply.js';
import type { Route } from '../../transport/http/route.js';
import { SimMicrophoneSchema, SimPlayAudioSchema } from './sim-schemas.js';

const invalid = (issues: readonly v.BaseIssue<unknown>[]): HttpReply => {
  const errors = issues.map((issue) => ({ field: issuePath(issue) || '(body)', message: issue.message }));
  const first = errors[0];
  return problemReply(
    'validation-failed',
    first === undefined ? 'invalid body' : `${first.field}: ${first.message}`,
    {
      extensions: { errors },
    },
  );
};

/** Control of the simulated robot. Installed only with the sim backend. */
export const createSimRoutes = (sim: SimControl): Route[] => [
  {
    method: 'POST',
    pattern: '/sim/play_audio',
    jsonBody: true,
    handle: ({ body }) => {
      const parsed = v.safeParse(SimPlayAudioSchema, body, { abortPipeEarly: true });
      if (!parsed.success) return invalid(parsed.issues);
      const { emotion, text, audio } = parsed.output;
      sim.publishPlayAudio({ emotion, text, audio: new Uint8Array(Buffer.from(audio, 'base64')) });
      return jsonReply(200, { success: true });
    },
  },
  {
    method: 'POST',
    pattern: '/sim/microphone',
    jsonBody: true,
    handle: async ({ body }) => {
      const parsed = v.safeParse(SimMicrophoneSchema, body, { abortPipeEarly: true });
      if (!parsed.success) return invalid(parsed.issues);
      const result = await sim.setMicrophone(parsed.output.enabled);
      return jsonReply(200, result);
    },
  },
];
