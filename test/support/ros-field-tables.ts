/**
 * Field tables: the .msg/.srv field list of every interface in src/ros/port/ros-messages.ts, as data. The
 * type `FieldTable<T>` ties each table to its TS interface (a field added, removed or retyped on one side
 * without the other fails `tsc`); test/repo/ros-interfaces-drift.test.ts compares the tables with the
 * files under ros/tour_guide_interfaces (field order included, since it is the wire layout).
 */
import {
  ConverseOutcome,
  UtteranceEvent,
  type ChatRequestMsg,
  type ChatResponseMsg,
  type ConverseFeedbackMsg,
  type ConverseGoalMsg,
  type ConverseResultMsg,
  type HeardMsg,
  type PlayAudioMsg,
  type TourCreateRequestMsg,
  type TourCreateResponseMsg,
  type TourDeleteRequestMsg,
  type TourDeleteResponseMsg,
  type TourGetRequestMsg,
  type TourGetResponseMsg,
  type TourListRequestMsg,
  type TourListResponseMsg,
  type TourMsg,
  type TourOutcomeFields,
  type TourStepMsg,
  type TourUpdateRequestMsg,
  type TourUpdateResponseMsg,
  type TranscriptMsg,
  type UtteranceAudioMsg,
} from '../../src/ros/port/ros-messages.js';

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
type FieldTable<T> = string extends keyof T
  ? Readonly<Record<string, never>>
  : { readonly [K in keyof T]-?: RosFieldType<T[K]> };

const TOUR_OUTCOME_FIELDS = {
  success: 'bool',
  outcome: 'uint8',
  message: 'string',
} as const satisfies FieldTable<TourOutcomeFields>;

const TOUR_STEP_FIELDS = {
  description: 'string',
  destination: 'string[<=1]',
  dialogue: 'string[<=1]',
} as const satisfies FieldTable<TourStepMsg>;

const TOUR_FIELDS = {
  tour_name: 'string',
  map_name: 'string',
  steps: 'TourStep[]',
} as const satisfies FieldTable<TourMsg>;

const PLAY_AUDIO_FIELDS = {
  emotion: 'string',
  text: 'string',
  audio: 'uint8[]',
} as const satisfies FieldTable<PlayAudioMsg>;

const UTTERANCE_AUDIO_FIELDS = {
  utterance_id: 'string',
  sequence: 'uint32',
  event: 'uint8',
  audio: 'uint8[]',
} as const satisfies FieldTable<UtteranceAudioMsg>;

const TRANSCRIPT_FIELDS = {
  utterance_id: 'string',
  text: 'string',
  final: 'bool',
} as const satisfies FieldTable<TranscriptMsg>;

const HEARD_FIELDS = {
  utterance_id: 'string',
  played_ms: 'uint32',
  heard_text: 'string',
} as const satisfies FieldTable<HeardMsg>;

const CHAT_REQUEST_FIELDS = { audio: 'uint8[]' } as const satisfies FieldTable<ChatRequestMsg>;
const CHAT_RESPONSE_FIELDS = {
  emotion: 'string',
  text: 'string',
  audio: 'uint8[]',
} as const satisfies FieldTable<ChatResponseMsg>;

const TOUR_LIST_REQUEST_FIELDS = {} as const satisfies FieldTable<TourListRequestMsg>;
const TOUR_LIST_RESPONSE_FIELDS = {
  ...TOUR_OUTCOME_FIELDS,
  tour_names: 'string[]',
} as const satisfies FieldTable<TourListResponseMsg>;

const TOUR_GET_REQUEST_FIELDS = {
  tour_name: 'string',
} as const satisfies FieldTable<TourGetRequestMsg>;
const TOUR_GET_RESPONSE_FIELDS = {
  ...TOUR_OUTCOME_FIELDS,
  tour: 'Tour',
} as const satisfies FieldTable<TourGetResponseMsg>;

const TOUR_CREATE_REQUEST_FIELDS = {
  tour: 'Tour',
} as const satisfies FieldTable<TourCreateRequestMsg>;
const TOUR_CREATE_RESPONSE_FIELDS = TOUR_OUTCOME_FIELDS satisfies FieldTable<TourCreateResponseMsg>;

const TOUR_UPDATE_REQUEST_FIELDS = {
  tour: 'Tour',
} as const satisfies FieldTable<TourUpdateRequestMsg>;
const TOUR_UPDATE_RESPONSE_FIELDS = TOUR_OUTCOME_FIELDS satisfies FieldTable<TourUpdateResponseMsg>;

const TOUR_DELETE_REQUEST_FIELDS = {
  tour_name: 'string',
} as const satisfies FieldTable<TourDeleteRequestMsg>;
const TOUR_DELETE_RESPONSE_FIELDS = TOUR_OUTCOME_FIELDS satisfies FieldTable<TourDeleteResponseMsg>;

const CONVERSE_GOAL_FIELDS = {
  utterance_id: 'string',
  streamed: 'bool',
  audio: 'uint8[]',
} as const satisfies FieldTable<ConverseGoalMsg>;
const CONVERSE_RESULT_FIELDS = TOUR_OUTCOME_FIELDS satisfies FieldTable<ConverseResultMsg>;
const CONVERSE_FEEDBACK_FIELDS = {
  emotion: 'string',
  text: 'string',
  audio: 'uint8[]',
} as const satisfies FieldTable<ConverseFeedbackMsg>;

/**
 * Every interface file of ros/tour_guide_interfaces, keyed by its path without extension.
 * A message's `constants`: the ones it declares, `<type> <prefix><NAME>=<value>` for each entry of a TS
 * table (none when absent).
 * `outcomeConstants`: the response declares the OUTCOME_* constants, which must equal TourOutcome.
 * An action's `resultOutcomeConstants`: its result declares OUTCOME_* constants equal to ConverseOutcome.
 */
export const TOUR_GUIDE_INTERFACES = {
  'msg/TourStep': { fields: TOUR_STEP_FIELDS },
  'msg/Tour': { fields: TOUR_FIELDS },
  'msg/PlayAudio': { fields: PLAY_AUDIO_FIELDS },
  'msg/UtteranceAudio': {
    fields: UTTERANCE_AUDIO_FIELDS,
    constants: { type: 'uint8', prefix: 'EVENT_', values: UtteranceEvent },
  },
  'msg/Transcript': { fields: TRANSCRIPT_FIELDS },
  'msg/Heard': { fields: HEARD_FIELDS },
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
