import { PCM_PROCESSOR, type PcmChunk } from './capture-format.js';
import type { MicrophoneDevice } from './kiosk-view.js';

export type { MicrophoneDevice };

export interface MicrophoneHandlers {
  readonly onChunk: (chunk: PcmChunk) => void;
  readonly onDevice: (device: MicrophoneDevice, reason?: string) => void;
}

/**
 * The microphone: getUserMedia → MediaStreamSource → the capture worklet. Closing stops the tracks, so the
 * browser releases the device (and its "in use" indicator) while the robot has the microphone disabled.
 */
export class Microphone {
  private stream: MediaStream | undefined;
  private source: MediaStreamAudioSourceNode | undefined;
  private node: AudioWorkletNode | undefined;
  private worklet: Promise<void> | undefined;
  /** Bumped by every open and close, so an open that finishes after a close gives its device back. */
  private generation = 0;
  private device: MicrophoneDevice = 'closed';

  constructor(
    private readonly context: AudioContext,
    private readonly workletUrl: string,
    private readonly handlers: MicrophoneHandlers,
  ) {}

  get state(): MicrophoneDevice {
    return this.device;
  }

  /**
   * Whether the browser cancels its own output's echo on this microphone: what the track reports it
   * applies, not what was asked for; undefined while it is closed.
   */
  get echoCancellation(): boolean | undefined {
    const track = this.stream?.getAudioTracks()[0];
    if (track === undefined) return undefined;
    return track.getSettings().echoCancellation === true;
  }

  async open(): Promise<void> {
    if (this.device === 'open' || this.device === 'opening') return;
    const generation = ++this.generation;
    this.set('opening');
    try {
      // getUserMedia exists only in secure contexts: https, or http on localhost.
      if (!window.isSecureContext) {
        throw new Error('the page is not a secure context (serve it over https or open it on localhost)');
      }
      this.worklet ??= this.context.audioWorklet.addModule(this.workletUrl);
      await this.worklet;
      const stream = await navigator.mediaDevices.getUserMedia({
        audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true, autoGainControl: true },
        video: false,
      });
      if (generation !== this.generation) {
        for (const track of stream.getTracks()) track.stop();
        return;
      }
      const source = this.context.createMediaStreamSource(stream);
      // No outputs: Chrome pulls such a node by itself, and nothing captured leaks to the speakers.
      const node = new AudioWorkletNode(this.context, PCM_PROCESSOR, {
        numberOfInputs: 1,
        numberOfOutputs: 0,
        channelCount: 1,
        channelCountMode: 'explicit',
        channelInterpretation: 'speakers',
      });
      node.port.onmessage = (event: MessageEvent<PcmChunk>) => {
        this.handlers.onChunk(event.data);
      };
      source.connect(node);
      for (const track of stream.getAudioTracks()) {
        track.addEventListener('ended', () => {
          if (generation === this.generation) this.release('failed', 'the microphone was disconnected');
        });
      }
      this.stream = stream;
      this.source = source;
      this.node = node;
      this.set('open');
    } catch (error) {
      if (generation !== this.generation) return;
      // A failed module load is retried on the next open.
      this.worklet = undefined;
      this.release('failed', error instanceof Error ? error.message : String(error));
    }
  }

  close(): void {
    this.generation += 1;
    this.release('closed');
  }

  private release(device: MicrophoneDevice, reason?: string): void {
    this.node?.port.postMessage('stop');
    this.source?.disconnect();
    for (const track of this.stream?.getTracks() ?? []) track.stop();
    this.node = undefined;
    this.source = undefined;
    this.stream = undefined;
    this.set(device, reason);
  }

  private set(device: MicrophoneDevice, reason?: string): void {
    this.device = device;
    this.handlers.onDevice(device, reason);
  }
}
