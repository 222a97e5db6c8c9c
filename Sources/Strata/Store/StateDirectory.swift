import StrataPlatform

/// Where a service keeps its state (its configuration history): systemd's `$STATE_DIRECTORY` (the
/// first, when `StateDirectory=` names several), else `/var/lib/APP` for root, else
/// `$XDG_STATE_HOME/APP` or `$HOME/.local/state/APP`.
package enum StateDirectory {
  /// Whether this process runs as root.
  package static var isRoot: Bool { geteuid() == 0 }

  /// The state directory of `app`, as the process sees it (`nil`: none can be named: no home).
  package static func of(app: String, environment: [String: String], isRoot: Bool, home: String? = nil)
    -> String?
  {
    if let systemd = environment["STATE_DIRECTORY"]?.split(separator: ":").first, systemd.hasPrefix("/") {
      return String(systemd)
    }
    if isRoot { return "/var/lib/\(app)" }
    if home == nil, let xdg = environment["XDG_STATE_HOME"], xdg.hasPrefix("/") { return joinPath(xdg, app) }
    guard let home = home ?? environment["HOME"], home.hasPrefix("/") else { return nil }
    return joinPath(home, ".local/state/\(app)")
  }
}
