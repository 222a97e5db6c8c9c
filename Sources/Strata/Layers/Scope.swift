/// Where a layer sits in the stack. Later scopes override earlier ones, key by key.
public enum Scope: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
  /// Defaults declared in code.
  case defaults
  /// Defaults shipped by the package (`/usr/lib/APP/`).
  case vendor
  /// The administrator's files (`/etc/APP/APP.*` and `/etc/APP/APP.conf.d/`).
  case system
  /// The user's files (`$XDG_CONFIG_HOME/APP/`, by default `~/.config/APP/`).
  case user
  /// `APP_*` environment variables.
  case environment
  /// `--key value` options given to the program (``CommandLineLayer``).
  case commandLine
  /// Values set by the running program.
  case runtime

  /// Orders scopes from lowest to highest.
  public static func < (lhs: Scope, rhs: Scope) -> Bool { lhs.rawValue < rhs.rawValue }

  /// The scope's name, such as `system`.
  public var description: String {
    switch self {
    case .defaults: "defaults"
    case .vendor: "vendor"
    case .system: "system"
    case .user: "user"
    case .environment: "environment"
    case .commandLine: "command line"
    case .runtime: "runtime"
    }
  }
}
