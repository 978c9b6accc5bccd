/**
 * Streaming sample-rate conversion from the AudioContext's rate (44.1 or 48 kHz, whatever the device runs)
 * to 16 kHz 16-bit, fed 128-frame blocks by the capture worklet.
 *
 * Downsampling first low-passes the input (a windowed-sinc FIR, cut-off at 0.45 × the output rate), so
 * sound above 8 kHz does not fold back into the speech band, then reads the output samples off the
 * filtered signal by linear interpolation. 127 taps at 48 kHz cost ~6 M multiply-adds a second: well
 * within the audio thread's budget, with no allocation per block beyond the output.
 */
export class StreamingResampler {
  /** Input samples per output sample. */
  private readonly step: number;
  private readonly taps: Float32Array | undefined;
  /** The last `taps.length` input samples, as a ring. */
  private readonly history: Float32Array;
  private head = 0;
  /** The previous filtered sample and where the next output falls after it (in input samples, 0–1]. */
  private previous = 0;
  private next = 1;

  constructor(
    readonly inputRate: number,
    readonly outputRate: number,
    tapCount = 127,
  ) {
    if (!(inputRate > 0 && outputRate > 0)) throw new RangeError('sample rates must be positive');
    this.step = inputRate / outputRate;
    // Upsampling (a context slower than 16 kHz, unusual) has nothing to remove: interpolation alone.
    this.taps = inputRate > outputRate ? lowPassTaps((0.45 * outputRate) / inputRate, tapCount) : undefined;
    this.history = new Float32Array(this.taps?.length ?? 1);
  }

  /** Most output samples `push` can return for `inputLength` input samples. */
  maxOutputFor(inputLength: number): number {
    return Math.ceil(inputLength / this.step) + 1;
  }

  /** Converts one block; returns the output samples it completed (possibly none). */
  push(input: Float32Array): Int16Array {
    const output = new Int16Array(this.maxOutputFor(input.length));
    let produced = 0;
    for (const sample of input) {
      const filtered = this.filter(sample);
      while (this.next <= 1 && produced < output.length) {
        output[produced] = toInt16(this.previous + (filtered - this.previous) * this.next);
        produced += 1;
        this.next += this.step;
      }
      this.next -= 1;
      this.previous = filtered;
    }
    return output.subarray(0, produced);
  }

  private filter(sample: number): number {
    const taps = this.taps;
    if (taps === undefined) return sample;
    const history = this.history;
    history[this.head] = sample;
    let sum = 0;
    let index = this.head;
    for (const tap of taps) {
      sum += tap * (history[index] ?? 0);
      index = index === 0 ? history.length - 1 : index - 1;
    }
    this.head = this.head + 1 === history.length ? 0 : this.head + 1;
    return sum;
  }
}

/** A Blackman-windowed sinc low-pass with unity gain at 0 Hz; `cutoff` is a fraction of the sample rate. */
export const lowPassTaps = (cutoff: number, count: number): Float32Array => {
  const taps = new Float32Array(count);
  const middle = (count - 1) / 2;
  let sum = 0;
  for (let index = 0; index < count; index += 1) {
    const x = index - middle;
    const sinc = x === 0 ? 2 * cutoff : Math.sin(2 * Math.PI * cutoff * x) / (Math.PI * x);
    const phase = (2 * Math.PI * index) / (count - 1);
    const window = 0.42 - 0.5 * Math.cos(phase) + 0.08 * Math.cos(2 * phase);
    taps[index] = sinc * window;
    sum += sinc * window;
  }
  for (let index = 0; index < count; index += 1) taps[index] = (taps[index] ?? 0) / sum;
  return taps;
};

/** Float [-1, 1] to 16-bit, clipped (a hot microphone must saturate, not wrap around). */
export const toInt16 = (value: number): number => {
  const clipped = Math.max(-1, Math.min(1, value));
  return Math.round(clipped < 0 ? clipped * 0x8000 : clipped * 0x7fff);
};

/** Level of a block in dBFS (RMS); -Infinity for silence. Used by the voice-activity threshold. */
export const levelDb = (block: Float32Array): number => {
  if (block.length === 0) return -Infinity;
  let squares = 0;
  for (const sample of block) squares += sample * sample;
  return 10 * Math.log10(squares / block.length);
};
