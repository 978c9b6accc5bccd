/**
 * TypeScript mirrors of the interfaces in ros/tour_guide_interfaces (msg/, srv/ and action/).
 * test/unit/ros-interfaces-drift.test.ts parses the .msg/.srv/.action files and fails when these drift apart.
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

/** tour_guide_interfaces/action/Converse: the goal. */
export interface ConverseGoalMsg {
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

/*
 * Field tables: the .msg/.srv field list of every interface above, as data. The type `FieldTable<T>`
 * ties each table to its TS interface (a field added, removed or retyped on one side without the other
 * fails `tsc`); test/unit/ros-interfaces-drift.test.ts compares the tables with the files under
 * ros/tour_guide_interfaces (field order included, since it is the wire layout).
 */

type RosArraySuffix = '[]' | `[${number}]` | `[<=${number}]`;
type RosNumberType =
  | 'int8'
  | 'uint8'
  | 'int16'
  | 'uint16'
  | 'int32'
  | 'uint32'
  | 'float32'
  | 'float64'
  | 'byte'
  | 'char';

/** Messages of this package that other messages embed, by their ROS name. */
interface NestedRosMessages {
  TourStep: TourStepMsg;
  Tour: TourMsg;
}
type NestedRosMessageName<T> = {
  [N in keyof NestedRosMessages]: [T] extends [NestedRosMessages[N]]
    ? [NestedRosMessages[N]] extends [T]
      ? N
      : never
    : never;
}[keyof NestedRosMessages];

/** The ROS field types a TS field type may stand for (rclnodejs's mapping). */
type RosFieldType<T> = [T] extends [string]
  ? 'string' | `string<=${number}`
  : [T] extends [boolean]
    ? 'bool'
    : [T] extends [number]
      ? RosNumberType
      : [T] extends [bigint]
        ? 'int64' | 'uint64'
        : [T] extends [Uint8Array]
          ? `${'uint8' | 'byte'}${RosArraySuffix}`
          : [T] extends [readonly (infer E)[]]
            ? `${RosFieldType<E>}${RosArraySuffix}`
            : NestedRosMessageName<T>;

/** Field name to ROS type, for the interface T; an interface without fields has an empty table. */
export type FieldTable<T> = string extends keyof T
  ? Readonly<Record<string, never>>
  : { readonly [K in keyof T]-?: RosFieldType<T[K]> };

const TOUR_OUTCOME_FIELDS = {
  success: 'bool',
  outcome: 'uint8',
  message: 'string',
} as const satisfies FieldTable<TourOutcomeFields>;

export const TOUR_STEP_FIELDS = {
  description: 'string',
  destination: 'string[<=1]',
  dialogue: 'string[<=1]',
} as const satisfies FieldTable<TourStepMsg>;

export const TOUR_FIELDS = {
  tour_name: 'string',
  map_name: 'string',
  steps: 'TourStep[]',
} as const satisfies FieldTable<TourMsg>;

export const PLAY_AUDIO_FIELDS = {
  emotion: 'string',
  text: 'string',
  audio: 'uint8[]',
} as const satisfies FieldTable<PlayAudioMsg>;

export const CHAT_REQUEST_FIELDS = { audio: 'uint8[]' } as const satisfies FieldTable<ChatRequestMsg>;
export const CHAT_RESPONSE_FIELDS = {
  emotion: 'string',
  text: 'string',
  audio: 'uint8[]',
} as const satisfies FieldTable<ChatResponseMsg>;

export const TOUR_LIST_REQUEST_FIELDS = {} as const satisfies FieldTable<TourListRequestMsg>;
export const TOUR_LIST_RESPONSE_FIELDS = {
  ...TOUR_OUTCOME_FIELDS,
  tour_names: 'string[]',
} as const satisfies FieldTable<TourListResponseMsg>;

export const TOUR_GET_REQUEST_FIELDS = {
  tour_name: 'string',
} as const satisfies FieldTable<TourGetRequestMsg>;
export const TOUR_GET_RESPONSE_FIELDS = {
  ...TOUR_OUTCOME_FIELDS,
  tour: 'Tour',
} as const satisfies FieldTable<TourGetResponseMsg>;

export const TOUR_CREATE_REQUEST_FIELDS = {
  tour: 'Tour',
} as const satisfies FieldTable<TourCreateRequestMsg>;
export const TOUR_CREATE_RESPONSE_FIELDS = TOUR_OUTCOME_FIELDS satisfies FieldTable<TourCreateResponseMsg>;

export const TOUR_UPDATE_REQUEST_FIELDS = {
  tour: 'Tour',
} as const satisfies FieldTable<TourUpdateRequestMsg>;
export const TOUR_UPDATE_RESPONSE_FIELDS = TOUR_OUTCOME_FIELDS satisfies FieldTable<TourUpdateResponseMsg>;

export const TOUR_DELETE_REQUEST_FIELDS = {
  tour_name: 'string',
} as const satisfies FieldTable<TourDeleteRequestMsg>;
export const TOUR_DELETE_RESPONSE_FIELDS = TOUR_OUTCOME_FIELDS satisfies FieldTable<TourDeleteResponseMsg>;

export const CONVERSE_GOAL_FIELDS = { audio: 'uint8[]' } as const satisfies FieldTable<ConverseGoalMsg>;
export const CONVERSE_RESULT_FIELDS = TOUR_OUTCOME_FIELDS satisfies FieldTable<ConverseResultMsg>;
export const CONVERSE_FEEDBACK_FIELDS = {
  emotion: 'string',
  text: 'string',
  audio: 'uint8[]',
} as const satisfies FieldTable<ConverseFeedbackMsg>;

/**
 * Every interface file of ros/tour_guide_interfaces, keyed by its path without extension.
 * `outcomeConstants`: the response declares the OUTCOME_* constants, which must equal TourOutcome.
 * An action's `resultOutcomeConstants`: its result declares OUTCOME_* constants equal to ConverseOutcome.
 */
export const TOUR_GUIDE_INTERFACES = {
  'msg/TourStep': { fields: TOUR_STEP_FIELDS },
  'msg/Tour': { fields: TOUR_FIELDS },
  'msg/PlayAudio': { fields: PLAY_AUDIO_FIELDS },
  'srv/Chat': { request: CHAT_REQUEST_FIELDS, response: CHAT_RESPONSE_FIELDS, outcomeConstants: false },
  'srv/TourList': {
    request: TOUR_LIST_REQUEST_FIELDS,
    response: TOUR_LIST_RESPONSE_FIELDS,
    outcomeConstants: true,
  },
  'srv/TourGet': {
    request: TOUR_GET_REQUEST_FIELDS,
    response: TOUR_GET_RESPONSE_FIELDS,
    outcomeConstants: true,
  },
  'srv/TourCreate': {
    request: TOUR_CREATE_REQUEST_FIELDS,
    response: TOUR_CREATE_RESPONSE_FIELDS,
    outcomeConstants: true,
  },
  'srv/TourUpdate': {
    request: TOUR_UPDATE_REQUEST_FIELDS,
    response: TOUR_UPDATE_RESPONSE_FIELDS,
    outcomeConstants: true,
  },
  'srv/TourDelete': {
    request: TOUR_DELETE_REQUEST_FIELDS,
    response: TOUR_DELETE_RESPONSE_FIELDS,
    outcomeConstants: true,
  },
  'action/Converse': {
    goal: CONVERSE_GOAL_FIELDS,
    result: CONVERSE_RESULT_FIELDS,
    feedback: CONVERSE_FEEDBACK_FIELDS,
    resultOutcomeConstants: ConverseOutcome,
  },
} as const;
