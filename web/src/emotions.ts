/**
 * The face's expressions, as SVG geometry in a 200×200 view box. The robot may send any emotion string;
 * the known ones get their own face, anything else falls back to the neutral face (an unexpected value
 * should never produce an odd expression in front of visitors) and is reported as unknown.
 */

export const KNOWN_EMOTIONS = ['neutral', 'happy', 'sad', 'surprised', 'thinking', 'angry'] as const;
export type KnownEmotion = (typeof KNOWN_EMOTIONS)[number];

export interface FaceShape {
  /** Mouth outline (SVG path). */
  readonly mouth: string;
  readonly leftBrow: string;
  readonly rightBrow: string;
  /** Vertical radius of the eyes: wide open when surprised, narrower when sad. */
  readonly eyeRy: number;
  /** Eyes looking up (thinking) or straight ahead, as a vertical offset. */
  readonly eyeDy: number;
  /** Whether the "…" thought bubble shows. */
  readonly thought: boolean;
}

export const FACES: Readonly<Record<KnownEmotion, FaceShape>> = {
  neutral: {
    mouth: 'M70 136 Q100 142 130 136',
    leftBrow: 'M54 60 L86 60',
    rightBrow: 'M114 60 L146 60',
    eyeRy: 12,
    eyeDy: 0,
    thought: false,
  },
  happy: {
    mouth: 'M64 126 Q100 168 136 126',
    leftBrow: 'M54 58 Q70 50 86 58',
    rightBrow: 'M114 58 Q130 50 146 58',
    eyeRy: 11,
    eyeDy: 0,
    thought: false,
  },
  sad: {
    mouth: 'M70 152 Q100 124 130 152',
    leftBrow: 'M54 66 L86 56',
    rightBrow: 'M114 56 L146 66',
    eyeRy: 9,
    eyeDy: 3,
    thought: false,
  },
  surprised: {
    mouth: 'M100 124 C116 124 116 158 100 158 C84 158 84 124 100 124 Z',
    leftBrow: 'M54 48 Q70 40 86 48',
    rightBrow: 'M114 48 Q130 40 146 48',
    eyeRy: 16,
    eyeDy: 0,
    thought: false,
  },
  thinking: {
    mouth: 'M78 142 Q102 140 126 132',
    leftBrow: 'M54 62 L86 62',
    rightBrow: 'M114 54 Q130 48 146 56',
    eyeRy: 11,
    eyeDy: -6,
    thought: true,
  },
  angry: {
    mouth: 'M72 146 Q100 132 128 146',
    leftBrow: 'M54 54 L86 66',
    rightBrow: 'M114 66 L146 54',
    eyeRy: 10,
    eyeDy: 2,
    thought: false,
  },
};

export interface ResolvedEmotion {
  readonly name: KnownEmotion;
  /** False when the value was not recognised and the fallback (neutral) face is shown. */
  readonly known: boolean;
}

const isKnown = (value: string): value is KnownEmotion =>
  (KNOWN_EMOTIONS as readonly string[]).includes(value);

/** Case and surrounding spaces do not matter (`" Happy"` is happy); anything else is the fallback. */
export const resolveEmotion = (value: string): ResolvedEmotion => {
  const normalised = value.trim().toLowerCase();
  return isKnown(normalised) ? { name: normalised, known: true } : { name: 'neutral', known: false };
};
