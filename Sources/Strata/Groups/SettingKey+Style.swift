extension SettingKey {
  /// How a group's property names become keys (``SettingsGroup/keyStyle``).
  public enum Style: Sendable {
    /// `maxConnections` stays `maxConnections`.
    case asDeclared
    /// `maxConnections` becomes `max_connections`.
    case snakeCase
    /// `maxConnections` becomes `max-connections`.
    case kebabCase

    /// The key for a property name.
    func key(for name: String) -> String {
      switch self {
      case .asDeclared: name
      case .snakeCase: EnvironmentNames.screamingSnake(name).lowercased()
      case .kebabCase:
        EnvironmentNames.screamingSnake(name).lowercased().split(separator: "_").joined(separator: "-")
      }
    }
  }
}
