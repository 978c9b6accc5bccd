import { PCM_PROCESSOR, type PcmChunk } from './capture-format.js';
// Of the /ws module, only its frames' file (the audio format): the audio thread's scope has no
// TextDecoder, which the module's text-frame parsers build as they load.
import { PCM_SAMPLE_RATE } from '../../src/protocol/ws/frames.js';
import { levelDb, StreamingResampler } from './resampler.js';

/**
 * The capture AudioWorklet (loaded with `audioWorklet.addModule('/assets/pcm-worklet.js')`). It runs on the
 * audio thread: converts the microphone to 16 kHz 16-bit as it arrives and posts it, about every 20 ms,
 * with the level of that stretch for the voice-activity threshold. Everything else (utterances, WAV,
 * sending) happens on the main thread.
 */

// The AudioWorkletGlobalScope is not in TypeScript's libraries; these are the parts used here.
declare abstract class AudioWorkletProcessor {
  readonly port: MessagePort;
}
declare function registerProcessor(name: string, processor: new () => AudioWorkletProcessor): void;
declare const sampleRate: number;

const OUTPUT_RATE = PCM_SAMPLE_RATE;
/** Samples per message: 20 ms at 16 kHz. */
const POST_SAMPLES = 320;

class PcmCaptureProcessor extends AudioWorkletProcessor {
  private readonly resampler = new StreamingResampler(sampleRate, OUTPUT_RATE);
  private pending: Int16Array[] = [];
  private pendingSamples = 0;
  private loudest = -Infinity;
  private running = true;

  constructor() {
    super();
    this.port.onmessage = (event: MessageEvent<unknown>) => {
      // The main thread says stop when the microphone closes; returning false lets the node be collected.
      if (event.data === 'stop') this.running = false;
    };
  }

  process(inputs: Float32Array[][]): boolean {
    const channel = inputs[0]?.[0];
    if (channel !== undefined && channel.length > 0) {
      const converted = this.resampler.push(channel);
      this.pending.push(converted);
      this.pendingSamples += converted.length;
      this.loudest = Math.max(this.loudest, levelDb(channel));
      if (this.pendingSamples >= POST_SAMPLES) this.flush();
    }
    return this.running;
  }

  private flush(): void {
    const samples = new Int16Array(this.pendingSamples);
    let offset = 0;
    for (const part of this.pending) {
      samples.set(part, offset);
      offset += part.length;
    }
    const chunk: PcmChunk = {
      samples,
      levelDb: this.loudest,
      ms: (samples.length * 1000) / OUTPUT_RATE,
    };
    // Transferred, not copied: the audio thread keeps no reference to it.
    this.port.postMessage(chunk, [samples.buffer]);
    this.pending = [];
    this.pendingSamples = 0;
    this.loudest = -Infinity;
  }
}

registerProcessor(PCM_PROCESSOR, PcmCaptureProcessor);
