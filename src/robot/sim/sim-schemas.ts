import * as v from 'valibot';

/** Most audio bytes one `/sim/play_audio` request may carry (base64 inflates the body by 4/3). */
export const SIM_AUDIO_MAX_BYTES = 8 * 1024 * 1024;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export const SimPlayAudioSchema = v.strictObject({
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
    v.regex(BASE64, 'audio must be standard base64 (RFC 4648, with padding)'),
    v.description('Audio bytes, base64-encoded'),
  ),
});
export type SimPlayAudio = v.InferOutput<typeof SimPlayAudioSchema>;

export const SimMicrophoneSchema = v.strictObject({
  enabled: v.boolean('enabled must be a boolean'),
});

export const SetBoolResultSchema = v.object({ success: v.boolean(), message: v.string() });
export type SimMicrophone = v.InferOutput<typeof SimMicrophoneSchema>;
