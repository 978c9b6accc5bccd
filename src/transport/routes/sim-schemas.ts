import * as v from 'valibot';
import { jsonObject } from '../../protocol/json-issues.js';

/** Most audio bytes one `/sim/play_audio` request may carry (base64 inflates the body by 4/3). */
export const SIM_AUDIO_MAX_BYTES = 8 * 1024 * 1024;

/**
 * The largest `/sim/play_audio` body, so that the documented audio limit, not `--max_body_bytes`, is what
 * refuses a request: the audio's base64 plus the longest emotion and text with every character escaped
 * (`\uXXXX`, 6 bytes), and room for the JSON around them.
 */
export const SIM_PLAY_AUDIO_MAX_BODY_BYTES = Math.ceil(SIM_AUDIO_MAX_BYTES / 3) * 4 + (64 + 16384) * 6 + 1024;

// Standard base64 with padding is these characters, at most two `=` at the end, and a length that is a
// multiple of 4. Said as one regex with a repeated group (`(?:[A-Za-z0-9+/]{4})*…`), V8 overflows its
// stack on 8 MiB of audio (11 M characters) and the process dies; a plain character class runs in a loop.
const BASE64_CHARACTERS = /^[A-Za-z0-9+/]*={0,2}$/;
const BASE64_MESSAGE = 'audio must be standard base64 (RFC 4648, with padding)';

/** Bytes that valid padded base64 decodes to. */
const decodedLength = (base64: string): number =>
  (base64.length / 4) * 3 - (base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0);

export const SimPlayAudioSchema = jsonObject('request', {
  emotion: v.pipe(
    v.string('emotion must be a string'),
    v.maxLength(64, 'emotion must be at most 64 characters'),
  ),
  text: v.pipe(
    v.string('text must be a string'),
    v.maxLength(16384, 'text must be at most 16384 characters'),
  ),
  audio: v.pipe(
    v.string('audio must be a base64 string'),
    v.maxLength(
      Math.ceil(SIM_AUDIO_MAX_BYTES / 3) * 4,
      `audio must decode to at most ${SIM_AUDIO_MAX_BYTES} bytes`,
    ),
    v.regex(BASE64_CHARACTERS, BASE64_MESSAGE),
    v.check((audio) => audio.length % 4 === 0, BASE64_MESSAGE),
    // The length bound above rounds up to whole base64 groups; this is the exact one.
    v.check(
      (audio) => decodedLength(audio) <= SIM_AUDIO_MAX_BYTES,
      `audio must decode to at most ${SIM_AUDIO_MAX_BYTES} bytes`,
    ),
    v.description('Audio bytes, base64-encoded'),
    // What the checks above accept, said as JSON Schema for the document (never run here).
    v.metadata({
      contentEncoding: 'base64',
      pattern: '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$',
    }),
  ),
});
export type SimPlayAudio = v.InferOutput<typeof SimPlayAudioSchema>;

export const SimMicrophoneSchema = jsonObject('request', {
  enabled: v.boolean('enabled must be a boolean'),
});

export const SetBoolResultSchema = v.object({ success: v.boolean(), message: v.string() });
export type SimMicrophone = v.InferOutput<typeof SimMicrophoneSchema>;
