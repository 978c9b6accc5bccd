/** Stands in for rclnodejs's QoS class in tests of code that builds QoS profiles (rclnodejs cannot load here). */
export class FakeQoS {
  static readonly HistoryPolicy = { RMW_QOS_POLICY_HISTORY_KEEP_LAST: 1, RMW_QOS_POLICY_HISTORY_KEEP_ALL: 2 };
  static readonly ReliabilityPolicy = { RMW_QOS_POLICY_RELIABILITY_RELIABLE: 1 };
  static readonly DurabilityPolicy = {
    RMW_QOS_POLICY_DURABILITY_TRANSIENT_LOCAL: 1,
    RMW_QOS_POLICY_DURABILITY_VOLATILE: 2,
  };
  static readonly profileServicesDefault = 'qos_profile_services_default';
  constructor(
    readonly history: number,
    readonly depth: number,
    readonly reliability: number,
    readonly durability: number,
  ) {}
}
