/** What rcl sees as the program name (argv[0]); it appears in rcl's own diagnostics. */
const PROGRAM_NAME = 'tour-bridge';

/**
 * The argv handed to rcl_init. ROS arguments are global to the context, so `-r` remappings,
 * `__ns:=`, `__node:=` and `--log-level` apply to the bridge's node as in any ROS 2 executable.
 * Accepts the arguments with their `--ros-args` flag (as the command line carries them) or without.
 * Never process.argv: rcl would see the bridge's own options and nothing else belongs there.
 */
export const rclInitArgv = (rosArgs: readonly string[]): string[] => {
  if (rosArgs.length === 0) return [PROGRAM_NAME];
  return rosArgs.includes('--ros-args')
    ? [PROGRAM_NAME, ...rosArgs]
    : [PROGRAM_NAME, '--ros-args', ...rosArgs];
};
