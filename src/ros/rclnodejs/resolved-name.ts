/**
 * The name rcl gave an entity: its fully qualified name with remapping (`--ros-args -r`) applied, as
 * rclnodejs reads it back (rcl_client_get_service_name, rcl_subscription_get_topic_name, …). The
 * given name when it cannot be read.
 */
export const resolvedName = (read: () => unknown, given: string): string => {
  try {
    const name = read();
    return typeof name === 'string' && name !== '' ? name : given;
  } catch {
    return given;
  }
};
