import { RosCallFailedError, RosServiceUnavailableError, RosTimeoutError } from '../../ros/port/ros-port.js';
import { problemReply, type HttpReply } from './reply.js';

/** The documented 502/503/504 answers for failures of the ROS side; undefined for anything else (a bug). */
export const rosErrorReply = (error: unknown): HttpReply | undefined => {
  if (error instanceof RosServiceUnavailableError) {
    return problemReply('ros-unavailable', error.message, { headers: { 'retry-after': '1' } });
  }
  if (error instanceof RosTimeoutError) return problemReply('ros-timeout', error.message);
  if (error instanceof RosCallFailedError) return problemReply('ros-call-failed', error.message);
  return undefined;
};
