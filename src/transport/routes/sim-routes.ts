import type { SimControl } from '../../ros/port/sim-control.js';
import { jsonReply } from '../http/reply.js';
import type { AnyRoute, Route } from '../http/route.js';
import {
  SetBoolResultSchema,
  SimMicrophoneSchema,
  SIM_PLAY_AUDIO_MAX_BODY_BYTES,
  SimPlayAudioSchema,
  type SimMicrophone,
  type SimPlayAudio,
} from './sim-schemas.js';

const playAudio = (sim: SimControl): Route<SimPlayAudio> => ({
  method: 'POST',
  pattern: '/sim/play_audio',
  body: SimPlayAudioSchema,
  maxBodyBytes: SIM_PLAY_AUDIO_MAX_BODY_BYTES,
  docs: {
    summary: 'SIMULATION ONLY: publish a message on the simulated /play_audio topic',
    responses: { 200: { description: 'Published', schema: 'Success' } },
  },
  handle: ({ body }) => {
    const { emotion, text, audio } = body;
    sim.publishPlayAudio({ emotion, text, audio: new Uint8Array(Buffer.from(audio, 'base64')) });
    return jsonReply(200, { success: true });
  },
});

const microphone = (sim: SimControl): Route<SimMicrophone> => ({
  method: 'POST',
  pattern: '/sim/microphone',
  body: SimMicrophoneSchema,
  docs: {
    summary: 'SIMULATION ONLY: call our /microphone/set_enabled service as a ROS client would',
    responses: { 200: { description: 'The service answer', schema: 'SetBoolResult' } },
  },
  handle: async ({ body }) => jsonReply(200, await sim.setMicrophone(body.enabled)),
});

/** Control of the simulated robot over HTTP; the composition root adds these only with the sim backend. */
export const simRoutes = (sim: SimControl): AnyRoute[] => [playAudio(sim), microphone(sim)];

/** The component schemas the sim routes' documentation names. */
export const SIM_SCHEMAS = { SetBoolResult: SetBoolResultSchema };
