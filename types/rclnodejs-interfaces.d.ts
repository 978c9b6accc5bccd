/*
 * Stand-in for node_modules/rclnodejs/types/interfaces.d.ts.
 *
 * rclnodejs generates that file at postinstall from the ROS 2 interfaces of a sourced workspace
 * (node_modules/rclnodejs/rostsd_gen/index.cjs). Installs here run with ignore-scripts and usually
 * without ROS, so the file is missing and rclnodejs's own declarations fail to compile. This file
 * declares what rostsd_gen would, in the same shape, restricted to:
 *   - the interfaces tour-bridge uses (tour_guide_interfaces with its Converse action, std_srvs/srv/Empty,
 *     std_srvs/srv/SetBool, std_msgs/msg/Bool; std_msgs/msg/String for the reference Converse server's history);
 *   - the interfaces rclnodejs's own .d.ts files name (builtin_interfaces, unique_identifier_msgs,
 *     action_msgs, rcl_interfaces, lifecycle_msgs, std_msgs/msg/String).
 * The `descriptor` namespaces and the service `_Event` messages that rostsd_gen also writes are left
 * out: nothing here or in rclnodejs's declarations refers to them.
 *
 * On a machine where rclnodejs generated the real file, type-check with tsconfig.ros.json, which
 * leaves this file out (both together would declare everything twice).
 *
 * The helper types at the end are copied from rostsd_gen's output, `any` included, so that the adapter
 * is typed identically against this file and against the generated one.
 */
/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-empty-object-type -- generated shapes, kept as rostsd_gen writes them */
// Declarations below extend rclnodejs's own (e.g. ROSService); load them even when no source imports rclnodejs.
/// <reference types="rclnodejs" />

declare module 'rclnodejs' {
  namespace builtin_interfaces {
    namespace msg {
      export interface Duration {
        sec: number;
        nanosec: number;
      }
      export interface DurationConstructor {
        new (other?: Duration): Duration;
      }
      export interface Time {
        sec: number;
        nanosec: number;
      }
      export interface TimeConstructor {
        new (other?: Time): Time;
      }
    }
  }

  namespace unique_identifier_msgs {
    namespace msg {
      export interface UUID {
        uuid: number[] | Uint8Array;
      }
      export interface UUIDConstructor {
        new (other?: UUID): UUID;
      }
    }
  }

  namespace action_msgs {
    namespace msg {
      export interface GoalInfo {
        goal_id: unique_identifier_msgs.msg.UUID;
        stamp: builtin_interfaces.msg.Time;
      }
      export interface GoalInfoConstructor {
        new (other?: GoalInfo): GoalInfo;
      }
      export interface GoalStatus {
        goal_info: action_msgs.msg.GoalInfo;
        status: number;
      }
      export interface GoalStatusConstructor {
        readonly STATUS_UNKNOWN: number;
        readonly STATUS_ACCEPTED: number;
        readonly STATUS_EXECUTING: number;
        readonly STATUS_CANCELING: number;
        readonly STATUS_SUCCEEDED: number;
        readonly STATUS_CANCELED: number;
        readonly STATUS_ABORTED: number;
        new (other?: GoalStatus): GoalStatus;
      }
      export interface GoalStatusArray {
        status_list: action_msgs.msg.GoalStatus[];
      }
      export interface GoalStatusArrayConstructor {
        new (other?: GoalStatusArray): GoalStatusArray;
      }
    }
    namespace srv {
      export interface CancelGoal_Request {
        goal_info: action_msgs.msg.GoalInfo;
      }
      export interface CancelGoal_RequestConstructor {
        new (other?: CancelGoal_Request): CancelGoal_Request;
      }
      export interface CancelGoal_Response {
        return_code: number;
        goals_canceling: action_msgs.msg.GoalInfo[];
      }
      export interface CancelGoal_ResponseConstructor {
        readonly ERROR_NONE: number;
        readonly ERROR_REJECTED: number;
        readonly ERROR_UNKNOWN_GOAL_ID: number;
        readonly ERROR_GOAL_TERMINATED: number;
        new (other?: CancelGoal_Response): CancelGoal_Response;
      }
      export interface CancelGoalConstructor extends ROSService {
        readonly Request: CancelGoal_RequestConstructor;
        readonly Response: CancelGoal_ResponseConstructor;
      }
    }
  }

  namespace rcl_interfaces {
    namespace msg {
      export interface FloatingPointRange {
        from_value: number;
        to_value: number;
        step: number;
      }
      export interface FloatingPointRangeConstructor {
        new (other?: FloatingPointRange): FloatingPointRange;
      }
      export interface IntegerRange {
        from_value: bigint;
        to_value: bigint;
        step: bigint;
      }
      export interface IntegerRangeConstructor {
        new (other?: IntegerRange): IntegerRange;
      }
      export interface Parameter {
        name: string;
        value: rcl_interfaces.msg.ParameterValue;
      }
      export interface ParameterConstructor {
        new (other?: Parameter): Parameter;
      }
      export interface ParameterDescriptor {
        name: string;
        type: number;
        description: string;
        additional_constraints: string;
        read_only: boolean;
        dynamic_typing: boolean;
        floating_point_range: rcl_interfaces.msg.FloatingPointRange[];
        integer_range: rcl_interfaces.msg.IntegerRange[];
      }
      export interface ParameterDescriptorConstructor {
        new (other?: ParameterDescriptor): ParameterDescriptor;
      }
      export interface ParameterType {}
      export interface ParameterTypeConstructor {
        readonly PARAMETER_NOT_SET: number;
        readonly PARAMETER_BOOL: number;
        readonly PARAMETER_INTEGER: number;
        readonly PARAMETER_DOUBLE: number;
        readonly PARAMETER_STRING: number;
        readonly PARAMETER_BYTE_ARRAY: number;
        readonly PARAMETER_BOOL_ARRAY: number;
        readonly PARAMETER_INTEGER_ARRAY: number;
        readonly PARAMETER_DOUBLE_ARRAY: number;
        readonly PARAMETER_STRING_ARRAY: number;
        new (other?: ParameterType): ParameterType;
      }
      export interface ParameterValue {
        type: number;
        bool_value: boolean;
        integer_value: bigint;
        double_value: number;
        string_value: string;
        byte_array_value: number[] | Uint8Array;
        bool_array_value: boolean[];
        integer_array_value: bigint[];
        double_array_value: number[] | Float64Array;
        string_array_value: string[];
      }
      export interface ParameterValueConstructor {
        new (other?: ParameterValue): ParameterValue;
      }
      export interface SetParametersResult {
        successful: boolean;
        reason: string;
      }
      export interface SetParametersResultConstructor {
        new (other?: SetParametersResult): SetParametersResult;
      }
    }
  }

  namespace lifecycle_msgs {
    namespace msg {
      export interface Transition {
        id: number;
        label: string;
      }
      export interface TransitionConstructor {
        readonly TRANSITION_CREATE: number;
        readonly TRANSITION_CONFIGURE: number;
        readonly TRANSITION_CLEANUP: number;
        readonly TRANSITION_ACTIVATE: number;
        readonly TRANSITION_DEACTIVATE: number;
        readonly TRANSITION_UNCONFIGURED_SHUTDOWN: number;
        readonly TRANSITION_INACTIVE_SHUTDOWN: number;
        readonly TRANSITION_ACTIVE_SHUTDOWN: number;
        readonly TRANSITION_DESTROY: number;
        readonly TRANSITION_ON_CONFIGURE_SUCCESS: number;
        readonly TRANSITION_ON_CONFIGURE_FAILURE: number;
        readonly TRANSITION_ON_CONFIGURE_ERROR: number;
        readonly TRANSITION_ON_CLEANUP_SUCCESS: number;
        readonly TRANSITION_ON_CLEANUP_FAILURE: number;
        readonly TRANSITION_ON_CLEANUP_ERROR: number;
        readonly TRANSITION_ON_ACTIVATE_SUCCESS: number;
        readonly TRANSITION_ON_ACTIVATE_FAILURE: number;
        readonly TRANSITION_ON_ACTIVATE_ERROR: number;
        readonly TRANSITION_ON_DEACTIVATE_SUCCESS: number;
        readonly TRANSITION_ON_DEACTIVATE_FAILURE: number;
        readonly TRANSITION_ON_DEACTIVATE_ERROR: number;
        readonly TRANSITION_ON_SHUTDOWN_SUCCESS: number;
        readonly TRANSITION_ON_SHUTDOWN_FAILURE: number;
        readonly TRANSITION_ON_SHUTDOWN_ERROR: number;
        readonly TRANSITION_ON_ERROR_SUCCESS: number;
        readonly TRANSITION_ON_ERROR_FAILURE: number;
        readonly TRANSITION_ON_ERROR_ERROR: number;
        readonly TRANSITION_CALLBACK_SUCCESS: number;
        readonly TRANSITION_CALLBACK_FAILURE: number;
        readonly TRANSITION_CALLBACK_ERROR: number;
        new (other?: Transition): Transition;
      }
    }
  }

  namespace std_msgs {
    namespace msg {
      export interface Bool {
        data: boolean;
      }
      export interface BoolConstructor {
        new (other?: Bool): Bool;
      }
      export interface String {
        data: string;
      }
      export interface StringConstructor {
        new (other?: String): String;
      }
    }
  }

  namespace std_srvs {
    namespace srv {
      export interface Empty_Request {}
      export interface Empty_RequestConstructor {
        new (other?: Empty_Request): Empty_Request;
      }
      export interface Empty_Response {}
      export interface Empty_ResponseConstructor {
        new (other?: Empty_Response): Empty_Response;
      }
      export interface EmptyConstructor extends ROSService {
        readonly Request: Empty_RequestConstructor;
        readonly Response: Empty_ResponseConstructor;
      }
      export interface SetBool_Request {
        data: boolean;
      }
      export interface SetBool_RequestConstructor {
        new (other?: SetBool_Request): SetBool_Request;
      }
      export interface SetBool_Response {
        success: boolean;
        message: string;
      }
      export interface SetBool_ResponseConstructor {
        new (other?: SetBool_Response): SetBool_Response;
      }
      export interface SetBoolConstructor extends ROSService {
        readonly Request: SetBool_RequestConstructor;
        readonly Response: SetBool_ResponseConstructor;
      }
    }
  }

  namespace tour_guide_interfaces {
    namespace action {
      export interface ConverseConstructor {
        readonly Goal: Converse_GoalConstructor;
        readonly Result: Converse_ResultConstructor;
        readonly Feedback: Converse_FeedbackConstructor;
      }
      export interface Converse_Feedback {
        emotion: string;
        text: string;
        audio: number[] | Uint8Array;
      }
      export interface Converse_FeedbackConstructor {
        new (other?: Converse_Feedback): Converse_Feedback;
      }
      export interface Converse_FeedbackMessage {
        goal_id: unique_identifier_msgs.msg.UUID;
        feedback: tour_guide_interfaces.action.Converse_Feedback;
      }
      export interface Converse_FeedbackMessageConstructor {
        new (other?: Converse_FeedbackMessage): Converse_FeedbackMessage;
      }
      export interface Converse_GetResultConstructor extends ROSService {
        readonly Request: Converse_GetResult_RequestConstructor;
        readonly Response: Converse_GetResult_ResponseConstructor;
      }
      export interface Converse_GetResult_Request {
        goal_id: unique_identifier_msgs.msg.UUID;
      }
      export interface Converse_GetResult_RequestConstructor {
        new (other?: Converse_GetResult_Request): Converse_GetResult_Request;
      }
      export interface Converse_GetResult_Response {
        status: number;
        result: tour_guide_interfaces.action.Converse_Result;
      }
      export interface Converse_GetResult_ResponseConstructor {
        new (other?: Converse_GetResult_Response): Converse_GetResult_Response;
      }
      export interface Converse_Goal {
        utterance_id: string;
        streamed: boolean;
        audio: number[] | Uint8Array;
      }
      export interface Converse_GoalConstructor {
        new (other?: Converse_Goal): Converse_Goal;
      }
      export interface Converse_Result {
        success: boolean;
        outcome: number;
        message: string;
      }
      export interface Converse_ResultConstructor {
        readonly OUTCOME_OK: number;
        readonly OUTCOME_INVALID: number;
        readonly OUTCOME_ERROR: number;
        new (other?: Converse_Result): Converse_Result;
      }
      export interface Converse_SendGoalConstructor extends ROSService {
        readonly Request: Converse_SendGoal_RequestConstructor;
        readonly Response: Converse_SendGoal_ResponseConstructor;
      }
      export interface Converse_SendGoal_Request {
        goal_id: unique_identifier_msgs.msg.UUID;
        goal: tour_guide_interfaces.action.Converse_Goal;
      }
      export interface Converse_SendGoal_RequestConstructor {
        new (other?: Converse_SendGoal_Request): Converse_SendGoal_Request;
      }
      export interface Converse_SendGoal_Response {
        accepted: boolean;
        stamp: builtin_interfaces.msg.Time;
      }
      export interface Converse_SendGoal_ResponseConstructor {
        new (other?: Converse_SendGoal_Response): Converse_SendGoal_Response;
      }
    }
    namespace msg {
      export interface Heard {
        utterance_id: string;
        played_ms: number;
        heard_text: string;
      }
      export interface HeardConstructor {
        new (other?: Heard): Heard;
      }
      export interface PlayAudio {
        emotion: string;
        text: string;
        audio: number[] | Uint8Array;
      }
      export interface PlayAudioConstructor {
        new (other?: PlayAudio): PlayAudio;
      }
      export interface Tour {
        tour_name: string;
        map_name: string;
        steps: tour_guide_interfaces.msg.TourStep[];
      }
      export interface TourConstructor {
        new (other?: Tour): Tour;
      }
      export interface TourStep {
        description: string;
        destination: string[];
        dialogue: string[];
      }
      export interface TourStepConstructor {
        new (other?: TourStep): TourStep;
      }
      export interface Transcript {
        utterance_id: string;
        text: string;
        final: boolean;
      }
      export interface TranscriptConstructor {
        new (other?: Transcript): Transcript;
      }
      export interface UtteranceAudio {
        utterance_id: string;
        sequence: number;
        event: number;
        audio: number[] | Uint8Array;
      }
      export interface UtteranceAudioConstructor {
        readonly EVENT_PART: number;
        readonly EVENT_END: number;
        readonly EVENT_ABANDONED: number;
        new (other?: UtteranceAudio): UtteranceAudio;
      }
    }
    namespace srv {
      export interface Chat_Request {
        audio: number[] | Uint8Array;
      }
      export interface Chat_RequestConstructor {
        new (other?: Chat_Request): Chat_Request;
      }
      export interface Chat_Response {
        emotion: string;
        text: string;
        audio: number[] | Uint8Array;
      }
      export interface Chat_ResponseConstructor {
        new (other?: Chat_Response): Chat_Response;
      }
      export interface ChatConstructor extends ROSService {
        readonly Request: Chat_RequestConstructor;
        readonly Response: Chat_ResponseConstructor;
      }
      export interface TourCreate_Request {
        tour: tour_guide_interfaces.msg.Tour;
      }
      export interface TourCreate_RequestConstructor {
        new (other?: TourCreate_Request): TourCreate_Request;
      }
      export interface TourCreate_Response {
        success: boolean;
        outcome: number;
        message: string;
      }
      export interface TourCreate_ResponseConstructor {
        readonly OUTCOME_OK: number;
        readonly OUTCOME_NOT_FOUND: number;
        readonly OUTCOME_ALREADY_EXISTS: number;
        readonly OUTCOME_INVALID: number;
        readonly OUTCOME_ERROR: number;
        new (other?: TourCreate_Response): TourCreate_Response;
      }
      export interface TourCreateConstructor extends ROSService {
        readonly Request: TourCreate_RequestConstructor;
        readonly Response: TourCreate_ResponseConstructor;
      }
      export interface TourDelete_Request {
        tour_name: string;
      }
      export interface TourDelete_RequestConstructor {
        new (other?: TourDelete_Request): TourDelete_Request;
      }
      export interface TourDelete_Response {
        success: boolean;
        outcome: number;
        message: string;
      }
      export interface TourDelete_ResponseConstructor {
        readonly OUTCOME_OK: number;
        readonly OUTCOME_NOT_FOUND: number;
        readonly OUTCOME_ALREADY_EXISTS: number;
        readonly OUTCOME_INVALID: number;
        readonly OUTCOME_ERROR: number;
        new (other?: TourDelete_Response): TourDelete_Response;
      }
      export interface TourDeleteConstructor extends ROSService {
        readonly Request: TourDelete_RequestConstructor;
        readonly Response: TourDelete_ResponseConstructor;
      }
      export interface TourGet_Request {
        tour_name: string;
      }
      export interface TourGet_RequestConstructor {
        new (other?: TourGet_Request): TourGet_Request;
      }
      export interface TourGet_Response {
        success: boolean;
        outcome: number;
        message: string;
        tour: tour_guide_interfaces.msg.Tour;
      }
      export interface TourGet_ResponseConstructor {
        readonly OUTCOME_OK: number;
        readonly OUTCOME_NOT_FOUND: number;
        readonly OUTCOME_ALREADY_EXISTS: number;
        readonly OUTCOME_INVALID: number;
        readonly OUTCOME_ERROR: number;
        new (other?: TourGet_Response): TourGet_Response;
      }
      export interface TourGetConstructor extends ROSService {
        readonly Request: TourGet_RequestConstructor;
        readonly Response: TourGet_ResponseConstructor;
      }
      export interface TourList_Request {}
      export interface TourList_RequestConstructor {
        new (other?: TourList_Request): TourList_Request;
      }
      export interface TourList_Response {
        success: boolean;
        outcome: number;
        message: string;
        tour_names: string[];
      }
      export interface TourList_ResponseConstructor {
        readonly OUTCOME_OK: number;
        readonly OUTCOME_NOT_FOUND: number;
        readonly OUTCOME_ALREADY_EXISTS: number;
        readonly OUTCOME_INVALID: number;
        readonly OUTCOME_ERROR: number;
        new (other?: TourList_Response): TourList_Response;
      }
      export interface TourListConstructor extends ROSService {
        readonly Request: TourList_RequestConstructor;
        readonly Response: TourList_ResponseConstructor;
      }
      export interface TourUpdate_Request {
        tour: tour_guide_interfaces.msg.Tour;
      }
      export interface TourUpdate_RequestConstructor {
        new (other?: TourUpdate_Request): TourUpdate_Request;
      }
      export interface TourUpdate_Response {
        success: boolean;
        outcome: number;
        message: string;
      }
      export interface TourUpdate_ResponseConstructor {
        readonly OUTCOME_OK: number;
        readonly OUTCOME_NOT_FOUND: number;
        readonly OUTCOME_ALREADY_EXISTS: number;
        readonly OUTCOME_INVALID: number;
        readonly OUTCOME_ERROR: number;
        new (other?: TourUpdate_Response): TourUpdate_Response;
      }
      export interface TourUpdateConstructor extends ROSService {
        readonly Request: TourUpdate_RequestConstructor;
        readonly Response: TourUpdate_ResponseConstructor;
      }
    }
  }

  type MessagesMap = {
    string: string;
    'builtin_interfaces/msg/Duration': builtin_interfaces.msg.Duration;
    'builtin_interfaces/msg/Time': builtin_interfaces.msg.Time;
    'unique_identifier_msgs/msg/UUID': unique_identifier_msgs.msg.UUID;
    'action_msgs/msg/GoalInfo': action_msgs.msg.GoalInfo;
    'action_msgs/msg/GoalStatus': action_msgs.msg.GoalStatus;
    'action_msgs/msg/GoalStatusArray': action_msgs.msg.GoalStatusArray;
    'action_msgs/srv/CancelGoal_Request': action_msgs.srv.CancelGoal_Request;
    'action_msgs/srv/CancelGoal_Response': action_msgs.srv.CancelGoal_Response;
    'rcl_interfaces/msg/FloatingPointRange': rcl_interfaces.msg.FloatingPointRange;
    'rcl_interfaces/msg/IntegerRange': rcl_interfaces.msg.IntegerRange;
    'rcl_interfaces/msg/Parameter': rcl_interfaces.msg.Parameter;
    'rcl_interfaces/msg/ParameterDescriptor': rcl_interfaces.msg.ParameterDescriptor;
    'rcl_interfaces/msg/ParameterType': rcl_interfaces.msg.ParameterType;
    'rcl_interfaces/msg/ParameterValue': rcl_interfaces.msg.ParameterValue;
    'rcl_interfaces/msg/SetParametersResult': rcl_interfaces.msg.SetParametersResult;
    'lifecycle_msgs/msg/Transition': lifecycle_msgs.msg.Transition;
    'std_msgs/msg/Bool': std_msgs.msg.Bool;
    'std_msgs/msg/String': std_msgs.msg.String;
    'std_srvs/srv/Empty_Request': std_srvs.srv.Empty_Request;
    'std_srvs/srv/Empty_Response': std_srvs.srv.Empty_Response;
    'std_srvs/srv/SetBool_Request': std_srvs.srv.SetBool_Request;
    'std_srvs/srv/SetBool_Response': std_srvs.srv.SetBool_Response;
    'tour_guide_interfaces/action/Converse_Feedback': tour_guide_interfaces.action.Converse_Feedback;
    'tour_guide_interfaces/action/Converse_FeedbackMessage': tour_guide_interfaces.action.Converse_FeedbackMessage;
    'tour_guide_interfaces/action/Converse_GetResult_Request': tour_guide_interfaces.action.Converse_GetResult_Request;
    'tour_guide_interfaces/action/Converse_GetResult_Response': tour_guide_interfaces.action.Converse_GetResult_Response;
    'tour_guide_interfaces/action/Converse_Goal': tour_guide_interfaces.action.Converse_Goal;
    'tour_guide_interfaces/action/Converse_Result': tour_guide_interfaces.action.Converse_Result;
    'tour_guide_interfaces/action/Converse_SendGoal_Request': tour_guide_interfaces.action.Converse_SendGoal_Request;
    'tour_guide_interfaces/action/Converse_SendGoal_Response': tour_guide_interfaces.action.Converse_SendGoal_Response;
    'tour_guide_interfaces/msg/Heard': tour_guide_interfaces.msg.Heard;
    'tour_guide_interfaces/msg/PlayAudio': tour_guide_interfaces.msg.PlayAudio;
    'tour_guide_interfaces/msg/Tour': tour_guide_interfaces.msg.Tour;
    'tour_guide_interfaces/msg/TourStep': tour_guide_interfaces.msg.TourStep;
    'tour_guide_interfaces/msg/Transcript': tour_guide_interfaces.msg.Transcript;
    'tour_guide_interfaces/msg/UtteranceAudio': tour_guide_interfaces.msg.UtteranceAudio;
    'tour_guide_interfaces/srv/Chat_Request': tour_guide_interfaces.srv.Chat_Request;
    'tour_guide_interfaces/srv/Chat_Response': tour_guide_interfaces.srv.Chat_Response;
    'tour_guide_interfaces/srv/TourCreate_Request': tour_guide_interfaces.srv.TourCreate_Request;
    'tour_guide_interfaces/srv/TourCreate_Response': tour_guide_interfaces.srv.TourCreate_Response;
    'tour_guide_interfaces/srv/TourDelete_Request': tour_guide_interfaces.srv.TourDelete_Request;
    'tour_guide_interfaces/srv/TourDelete_Response': tour_guide_interfaces.srv.TourDelete_Response;
    'tour_guide_interfaces/srv/TourGet_Request': tour_guide_interfaces.srv.TourGet_Request;
    'tour_guide_interfaces/srv/TourGet_Response': tour_guide_interfaces.srv.TourGet_Response;
    'tour_guide_interfaces/srv/TourList_Request': tour_guide_interfaces.srv.TourList_Request;
    'tour_guide_interfaces/srv/TourList_Response': tour_guide_interfaces.srv.TourList_Response;
    'tour_guide_interfaces/srv/TourUpdate_Request': tour_guide_interfaces.srv.TourUpdate_Request;
    'tour_guide_interfaces/srv/TourUpdate_Response': tour_guide_interfaces.srv.TourUpdate_Response;
  };
  type MessageTypeClassName = keyof MessagesMap;
  type Message = MessagesMap[MessageTypeClassName];
  type MessageType<T> = T extends MessageTypeClassName
    ? MessagesMap[T]
    : T extends new (...args: any[]) => infer R
      ? R
      : object;

  type MessageTypeClassConstructorMap = {
    string: never;
    'builtin_interfaces/msg/Duration': builtin_interfaces.msg.DurationConstructor;
    'builtin_interfaces/msg/Time': builtin_interfaces.msg.TimeConstructor;
    'unique_identifier_msgs/msg/UUID': unique_identifier_msgs.msg.UUIDConstructor;
    'action_msgs/msg/GoalInfo': action_msgs.msg.GoalInfoConstructor;
    'action_msgs/msg/GoalStatus': action_msgs.msg.GoalStatusConstructor;
    'action_msgs/msg/GoalStatusArray': action_msgs.msg.GoalStatusArrayConstructor;
    'action_msgs/srv/CancelGoal_Request': action_msgs.srv.CancelGoal_RequestConstructor;
    'action_msgs/srv/CancelGoal_Response': action_msgs.srv.CancelGoal_ResponseConstructor;
    'rcl_interfaces/msg/FloatingPointRange': rcl_interfaces.msg.FloatingPointRangeConstructor;
    'rcl_interfaces/msg/IntegerRange': rcl_interfaces.msg.IntegerRangeConstructor;
    'rcl_interfaces/msg/Parameter': rcl_interfaces.msg.ParameterConstructor;
    'rcl_interfaces/msg/ParameterDescriptor': rcl_interfaces.msg.ParameterDescriptorConstructor;
    'rcl_interfaces/msg/ParameterType': rcl_interfaces.msg.ParameterTypeConstructor;
    'rcl_interfaces/msg/ParameterValue': rcl_interfaces.msg.ParameterValueConstructor;
    'rcl_interfaces/msg/SetParametersResult': rcl_interfaces.msg.SetParametersResultConstructor;
    'lifecycle_msgs/msg/Transition': lifecycle_msgs.msg.TransitionConstructor;
    'std_msgs/msg/Bool': std_msgs.msg.BoolConstructor;
    'std_msgs/msg/String': std_msgs.msg.StringConstructor;
    'std_srvs/srv/Empty_Request': std_srvs.srv.Empty_RequestConstructor;
    'std_srvs/srv/Empty_Response': std_srvs.srv.Empty_ResponseConstructor;
    'std_srvs/srv/SetBool_Request': std_srvs.srv.SetBool_RequestConstructor;
    'std_srvs/srv/SetBool_Response': std_srvs.srv.SetBool_ResponseConstructor;
    'tour_guide_interfaces/action/Converse_Feedback': tour_guide_interfaces.action.Converse_FeedbackConstructor;
    'tour_guide_interfaces/action/Converse_FeedbackMessage': tour_guide_interfaces.action.Converse_FeedbackMessageConstructor;
    'tour_guide_interfaces/action/Converse_GetResult_Request': tour_guide_interfaces.action.Converse_GetResult_RequestConstructor;
    'tour_guide_interfaces/action/Converse_GetResult_Response': tour_guide_interfaces.action.Converse_GetResult_ResponseConstructor;
    'tour_guide_interfaces/action/Converse_Goal': tour_guide_interfaces.action.Converse_GoalConstructor;
    'tour_guide_interfaces/action/Converse_Result': tour_guide_interfaces.action.Converse_ResultConstructor;
    'tour_guide_interfaces/action/Converse_SendGoal_Request': tour_guide_interfaces.action.Converse_SendGoal_RequestConstructor;
    'tour_guide_interfaces/action/Converse_SendGoal_Response': tour_guide_interfaces.action.Converse_SendGoal_ResponseConstructor;
    'tour_guide_interfaces/msg/Heard': tour_guide_interfaces.msg.HeardConstructor;
    'tour_guide_interfaces/msg/PlayAudio': tour_guide_interfaces.msg.PlayAudioConstructor;
    'tour_guide_interfaces/msg/Tour': tour_guide_interfaces.msg.TourConstructor;
    'tour_guide_interfaces/msg/TourStep': tour_guide_interfaces.msg.TourStepConstructor;
    'tour_guide_interfaces/msg/Transcript': tour_guide_interfaces.msg.TranscriptConstructor;
    'tour_guide_interfaces/msg/UtteranceAudio': tour_guide_interfaces.msg.UtteranceAudioConstructor;
    'tour_guide_interfaces/srv/Chat_Request': tour_guide_interfaces.srv.Chat_RequestConstructor;
    'tour_guide_interfaces/srv/Chat_Response': tour_guide_interfaces.srv.Chat_ResponseConstructor;
    'tour_guide_interfaces/srv/TourCreate_Request': tour_guide_interfaces.srv.TourCreate_RequestConstructor;
    'tour_guide_interfaces/srv/TourCreate_Response': tour_guide_interfaces.srv.TourCreate_ResponseConstructor;
    'tour_guide_interfaces/srv/TourDelete_Request': tour_guide_interfaces.srv.TourDelete_RequestConstructor;
    'tour_guide_interfaces/srv/TourDelete_Response': tour_guide_interfaces.srv.TourDelete_ResponseConstructor;
    'tour_guide_interfaces/srv/TourGet_Request': tour_guide_interfaces.srv.TourGet_RequestConstructor;
    'tour_guide_interfaces/srv/TourGet_Response': tour_guide_interfaces.srv.TourGet_ResponseConstructor;
    'tour_guide_interfaces/srv/TourList_Request': tour_guide_interfaces.srv.TourList_RequestConstructor;
    'tour_guide_interfaces/srv/TourList_Response': tour_guide_interfaces.srv.TourList_ResponseConstructor;
    'tour_guide_interfaces/srv/TourUpdate_Request': tour_guide_interfaces.srv.TourUpdate_RequestConstructor;
    'tour_guide_interfaces/srv/TourUpdate_Response': tour_guide_interfaces.srv.TourUpdate_ResponseConstructor;
  };
  type MessageConstructorType<T> = T extends MessageTypeClassName
    ? MessageTypeClassConstructorMap[T]
    : object;

  type ServicesMap = {
    'action_msgs/srv/CancelGoal': action_msgs.srv.CancelGoalConstructor;
    'std_srvs/srv/Empty': std_srvs.srv.EmptyConstructor;
    'std_srvs/srv/SetBool': std_srvs.srv.SetBoolConstructor;
    'tour_guide_interfaces/srv/Chat': tour_guide_interfaces.srv.ChatConstructor;
    'tour_guide_interfaces/srv/TourCreate': tour_guide_interfaces.srv.TourCreateConstructor;
    'tour_guide_interfaces/srv/TourDelete': tour_guide_interfaces.srv.TourDeleteConstructor;
    'tour_guide_interfaces/srv/TourGet': tour_guide_interfaces.srv.TourGetConstructor;
    'tour_guide_interfaces/srv/TourList': tour_guide_interfaces.srv.TourListConstructor;
    'tour_guide_interfaces/srv/TourUpdate': tour_guide_interfaces.srv.TourUpdateConstructor;
  };
  type ServiceTypeClassName = keyof ServicesMap;
  type Service = ServicesMap[ServiceTypeClassName];
  type ServiceType<T> = T extends ServiceTypeClassName
    ? ServicesMap[T]
    : T extends { Request: any; Response: any }
      ? T
      : object;

  // No actions are used; the empty map keeps rclnodejs's action declarations compiling.
  type ActionsMap = {
    'tour_guide_interfaces/action/Converse': tour_guide_interfaces.action.ConverseConstructor;
  };
  type ActionTypeClassName = keyof ActionsMap;
  type Action = ActionsMap[ActionTypeClassName];
  type ActionType<T> = T extends ActionTypeClassName
    ? ActionsMap[T]
    : T extends { Goal: any; Feedback: any; Result: any }
      ? T
      : object;

  type TypeClassName = MessageTypeClassName | ServiceTypeClassName | ActionTypeClassName;
  type InterfaceType<T> = T extends TypeClassName
    ? (MessageTypeClassConstructorMap & ServicesMap & ActionsMap)[T]
    : object;
}
