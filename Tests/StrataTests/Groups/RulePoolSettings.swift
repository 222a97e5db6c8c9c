@testable import Strata

/// A group with one rule across two settings, for the tests of rules (`GroupRuleTests`,
/// `ControlRuleTests`).
struct RulePoolSettings: SettingsGroup {
  static var section: String { "pool" }
  @Setting var minConnections = 1
  @Setting var maxConnections = 10
  @Setting var name = "pool"
  static var rules: [SettingValidation<Self>] {
    [SettingValidation("minConnections <= maxConnections") { $0.minConnections <= $0.maxConnections }]
  }
}
