import type { PlayAudioMsg, SetBoolResponseMsg } from './ros-messages.js';

/**
 * What only a simulated robot can do: play the robot's part for demos and tests. The simulation
 * (robot/sim/sim-backend.ts) provides it and the `/sim/*` routes (transport/routes/sim-routes.ts) drive it;
 * it lives with the port because neither of those two may import the other.
 */
export interface SimControl {
  /** Publishes a message on the simulated `/play_audio` topic. */
  publishPlayAudio(message: PlayAudioMsg): void;
  /** Calls our `/microphone/set_enabled` service as a ROS client would. */
  setMicrophone(enabled: boolean): Promise<SetBoolResponseMsg>;
}
