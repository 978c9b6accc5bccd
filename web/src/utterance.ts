/**
 * Where a recording goes as it is made: kept for one WAV at the end (UtteranceBuffer), or sent in parts as
 * it goes (utterance-stream.ts).
 */
export interface Recorder {
  /** Samples recorded so far. */
  readonly samples: number;
  readonly maxSamples: number;
  /** Appends what fits; false once the maximum is reached (the rest of `chunk` is dropped). */
  append(chunk: Int16Array): boolean;
}

/**
 * Collects the 16 kHz samples of one utterance, up to a fixed maximum (so one frame always fits the
 * server's audio frame limit), plus a short pre-roll so hands-free mode keeps the syllable that tripped the
 * threshold.
 */
export class UtteranceBuffer implements Recorder {
  private chunks: Int16Array[] = [];
  private length = 0;

  constructor(readonly maxSamples: number) {}

  get samples(): number {
    return this.length;
  }

  get full(): boolean {
    return this.length >= this.maxSamples;
  }

  /** Appends what fits; returns false once the buffer is full (the rest of `chunk` is dropped). */
  append(chunk: Int16Array): boolean {
    const room = this.maxSamples - this.length;
    if (room <= 0) return false;
    const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.chunks.push(part);
    this.length += part.length;
    return this.length < this.maxSamples;
  }

  /** The utterance as one array; empties the buffer. */
  take(): Int16Array {
    const all = new Int16Array(this.length);
    let offset = 0;
    for (const chunk of this.chunks) {
      all.set(chunk, offset);
      offset += chunk.length;
    }
    this.reset();
    return all;
  }

  reset(): void {
    this.chunks = [];
    this.length = 0;
  }
}

/** The most recent `maxSamples` samples, in chunks; older chunks fall off the front. */
export class PreRoll {
  private chunks: Int16Array[] = [];
  private length = 0;

  constructor(readonly maxSamples: number) {}

  push(chunk: Int16Array): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
    while (this.chunks.length > 1 && this.length - (this.chunks[0]?.length ?? 0) >= this.maxSamples) {
      this.length -= this.chunks.shift()?.length ?? 0;
    }
  }

  /** Hands over the held chunks, oldest first, and empties the pre-roll. */
  take(): Int16Array[] {
    const chunks = this.chunks;
    this.chunks = [];
    this.length = 0;
    return chunks;
  }
}
