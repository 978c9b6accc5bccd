/** The RMW named for operators. Only reported: nothing that runs rclnodejs here depends on which RMW runs. */
export const rmwLabel = (env: NodeJS.ProcessEnv): string => {
  const rmw = env['RMW_IMPLEMENTATION']?.trim();
  return rmw === undefined || rmw === '' ? 'the default RMW (RMW_IMPLEMENTATION unset)' : rmw;
};
