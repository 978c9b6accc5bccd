import { firstLine } from './error-text.js';

/** The rclnodejs module object. A type-only reference: nothing here loads rclnodejs until asked. */
export type Rclnodejs = typeof import('rclnodejs');

/** rclnodejs cannot be loaded on this machine: no ROS 2 sourced, or no native binding for it. */
export class RclnodejsUnavailableError extends Error {
  override readonly name = 'RclnodejsUnavailableError';
  constructor(reason: string, options?: { cause?: unknown }) {
    super(`rclnodejs cannot load: ${reason}`, options);
  }
}

/**
 * Why rclnodejs cannot work in this environment, when that is known without importing it.
 *
 * Importing rclnodejs loads its native binding at module evaluation. When no prebuilt binary matches
 * (ROS_DISTRO, Ubuntu release, CPU) and none was built, it runs `npm run rebuild` synchronously
 * (lib/native_loader.js, buildFromSource: execSync with stdio inherited, 5 min time-out) inside its own
 * package directory: the event loop stops, the build output lands on our stdout between the JSON log
 * lines, and without ROS the build fails anyway. rclnodejs also needs AMENT_PREFIX_PATH to find the
 * interface definitions (rosidl_gen/index.cjs). Checking it first turns "no ROS sourced" into a
 * one-line error instead of a failed compilation.
 */
export const rosEnvironmentProblem = (env: NodeJS.ProcessEnv): string | undefined => {
  const prefixPath = env['AMENT_PREFIX_PATH'];
  if (prefixPath === undefined || prefixPath.trim() === '') {
    return 'AMENT_PREFIX_PATH is not set, so no ROS 2 environment is sourced';
  }
  return undefined;
};

/**
 * Imports rclnodejs. Only ever dynamically: a static import anywhere would load the native binding
 * at start-up and break `--backend sim` on machines without ROS 2.
 */
export const loadRclnodejs = async (env: NodeJS.ProcessEnv = process.env): Promise<Rclnodejs> => {
  const problem = rosEnvironmentProblem(env);
  if (problem !== undefined) throw new RclnodejsUnavailableError(problem);
  try {
    // rclnodejs's ESM entry (dist/index.js) has a default export only; its types describe that
    // default's members as the module's, so the namespace type is the default's type.
    const loaded = await import('rclnodejs');
    return loaded.default;
  } catch (error) {
    // e.g. "Native operation failed: Compilation - Failed to build rclnodejs from source: Command failed: npm run rebuild"
    throw new RclnodejsUnavailableError(firstLine(error), { cause: error });
  }
};
