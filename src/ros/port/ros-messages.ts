/**
 * TypeScript mirrors of the interfaces in ros/tour_guide_interfaces (msg/, srv/ and action/).
 * test/repo/ros-interfaces-drift.test.ts parses the .msg/.srv/.action files and fails when these drift
 * apart (through the field tables in test/support/ros-field-tables.ts, which tsc ties to these interfaces).
 *
 * Field names follow the ROS files (snake_case) so a message object can be handed to rclnodejs as is.
 */

/** Outcome codes of every tour service response (constants in each srv response). */
export const TourOutcome = {
  OK: 0,
  NOT_FOUND: 1,
  ALREADY_EXISTS: 2,
  INVALID: 3,
  ERROR: 4,
  /** The store holds all it may (its most tours, or its most bytes): nothing is added until one is deleted. */
  FULL: 5,
} as const;
export type TourOutcomeCode = (typeof TourOutcome)[keyof typeof TourOutcome];

/**
 * tour_guide_interfaces/msg/TourStep. `destination` and `dialogue` are bounded sequences `string[<=1]`:
 * an empty sequence is null, one element is the value (possibly the empty string).
 */
export interface TourStepMsg {
  description: string;
  destination: string[];
  dialogue: string[];
}

/** tour_guide_interfaces/msg/Tour */
export interface TourMsg {
  tour_name: string;
  map_name: string;
  steps: TourStepMsg[];
}

/** tour_guide_interfaces/msg/PlayAudio */
export interface PlayAudioMsg {
  emotion: string;
  text: string;
  audio: Uint8Array;
}

/** Events of tour_guide_interfaces/msg/UtteranceAudio (constants in the message). */
export const UtteranceEvent = {
  PART: 0,
  END: 1,
  ABANDONED: 2,
} as const;
export type UtteranceEventCode = (typeof UtteranceEvent)[keyof typeof UtteranceEvent];

/** tour_guide_interfaces/msg/UtteranceAudio: one event of a streamed utterance. */
export interface UtteranceAudioMsg {
  utterance_id: string;
  sequence: number;
  event: number;
  audio: Uint8Array;
}

/** tour_guide_interfaces/msg/Transcript: what the recogniser heard of a streamed utterance so far. */
export interface TranscriptMsg {
  utterance_id: string;
  text: string;
  final: boolean;
}

/** tour_guide_interfaces/msg/Heard: how much of an interrupted answer the visitor heard. */
export interface HeardMsg {
  utterance_id: string;
  played_ms: number;
  heard_text: string;
}

/** Fields shared by the five tour service responses. */
export interface TourOutcomeFields {
  success: boolean;
  outcome: number;
  message: string;
}

export interface ChatRequestMsg {
  audio: Uint8Array;
}
export interface ChatResponseMsg {
  emotion: string;
  text: string;
  audio: Uint8Array;
}

/** tour_guide_interfaces/action/Converse: the goal. Streamed: the audio is on /utterance/audio. */
export interface ConverseGoalMsg {
  utterance_id: string;
  streamed: boolean;
  audio: Uint8Array;
}
/** tour_guide_interfaces/action/Converse: one feedback, a part of the answer. */
export interface ConverseFeedbackMsg {
  emotion: string;
  text: string;
  audio: Uint8Array;
}
/** tour_guide_interfaces/action/Converse: the result. `outcome` is one of ConverseOutcome. */
export interface ConverseResultMsg {
  success: boolean;
  outcome: number;
  message: string;
}
/** Outcome codes of the Converse result (constants in the action's result). */
export const ConverseOutcome = {
  OK: 0,
  INVALID: 3,
  ERROR: 4,
} as const;

export type EmptyRequestMsg = Record<string, never>;
export type EmptyResponseMsg = Record<string, never>;

export type TourListRequestMsg = Record<string, never>;
export interface TourListResponseMsg extends TourOutcomeFields {
  tour_names: string[];
}

export interface TourGetRequestMsg {
  tour_name: string;
}
export interface TourGetResponseMsg extends TourOutcomeFields {
  tour: TourMsg;
}

export interface TourCreateRequestMsg {
  tour: TourMsg;
}
export type TourCreateResponseMsg = TourOutcomeFields;

export interface TourUpdateRequestMsg {
  tour: TourMsg;
}
export type TourUpdateResponseMsg = TourOutcomeFields;

export interface TourDeleteRequestMsg {
  tour_name: string;
}
export type TourDeleteResponseMsg = TourOutcomeFields;

/** std_srvs/srv/SetBool */
export interface SetBoolRequestMsg {
  data: boolean;
}
export interface SetBoolResponseMsg {
  success: boolean;
  message: string;
}
