/** What the capture worklet posts to the main thread; shared by both sides (pcm-worklet.ts, microphone.ts). */

/** Name the worklet registers its processor under. */
export const PCM_PROCESSOR = 'pcm-capture';

export interface PcmChunk {
  /** 16 kHz mono 16-bit samples. */
  readonly samples: Int16Array;
  /** Loudest 128-frame block of the chunk, in dBFS (the voice-activity threshold compares with it). */
  readonly levelDb: number;
  /** Duration of the chunk in milliseconds. */
  readonly ms: number;
}
