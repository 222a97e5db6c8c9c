extension SettingsStore {
  /// A change to a `.restartRequired` setting that the running program has not applied.
  public struct PendingRestart: Sendable, Equatable, CustomStringConvertible {
    /// The setting's key.
    public var key: String
    /// The value the program runs with (redacted for secrets).
    public var runningValue: String
    /// The value the files hold now, applied at the next start (redacted for secrets).
    public var newValue: String
    /// Where the new value comes from.
    public var origin: Origin

    /// `server.port: running 8080, 9090 after a restart (/etc/demo/demo.ini:6:8)`.
    public var description: String {
      "\(key): running \(runningValue), \(newValue) after a restart (\(origin))"
    }
  }
}
