/**
 * Limits of a tour document. They bound memory per request and the size of ROS messages: the API validates
 * them (tour-schema.ts) and the operator page counts and refuses before saving (web/src, bundled with this
 * module). Imports nothing, so the browser build can.
 */
export const TOUR_LIMITS = {
  nameMaxChars: 128,
  mapNameMaxChars: 256,
  descriptionMaxChars: 4096,
  destinationMaxChars: 1024,
  dialogueMaxChars: 16384,
  maxSteps: 500,
} as const;
