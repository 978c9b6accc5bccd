import { FACES, resolveEmotion, type ResolvedEmotion } from './emotions.js';

/** The face's SVG parts, found once by id (index.html draws them). */
export interface FaceElements {
  readonly svg: SVGSVGElement;
  readonly label: SVGTitleElement;
  readonly mouth: SVGPathElement;
  readonly leftBrow: SVGPathElement;
  readonly rightBrow: SVGPathElement;
  readonly leftEye: SVGEllipseElement;
  readonly rightEye: SVGEllipseElement;
  readonly thought: SVGGElement;
}

const EYE_CY = 88;

/** Draws `emotion` (any string; unknown ones get the fallback face) and says it in the accessible name. */
export const showEmotion = (face: FaceElements, emotion: string): ResolvedEmotion => {
  const resolved = resolveEmotion(emotion);
  const shape = FACES[resolved.name];
  face.mouth.setAttribute('d', shape.mouth);
  face.leftBrow.setAttribute('d', shape.leftBrow);
  face.rightBrow.setAttribute('d', shape.rightBrow);
  for (const eye of [face.leftEye, face.rightEye]) {
    eye.setAttribute('ry', String(shape.eyeRy));
    eye.setAttribute('cy', String(EYE_CY + shape.eyeDy));
  }
  face.thought.classList.toggle('face__thought--shown', shape.thought);
  face.svg.dataset['emotion'] = resolved.name;
  face.svg.dataset['emotionKnown'] = String(resolved.known);
  // An emotion this display has no face for shows as neutral, to visitors and screen readers alike (the
  // value itself is in the probe's record of what played, for staff).
  face.label.textContent = `The robot looks ${resolved.name}`;
  return resolved;
};

/** The mouth moves while audio plays. */
export const setSpeaking = (face: FaceElements, speaking: boolean): void => {
  face.svg.classList.toggle('face--speaking', speaking);
};
