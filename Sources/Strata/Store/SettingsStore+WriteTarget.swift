extension SettingsStore {
  /// Where a store's writes go.
  public enum WriteTarget: Sendable, Equatable {
    /// The runtime layer, in memory: the highest layer, lost at exit.
    case runtime
    /// A file (as the app sees the path; under the store's root, if any), replaced atomically on each
    /// write: temporary file in the same directory, fsync, rename, original mode kept (0600 for a new
    /// file). Its format comes from its extension (the store's ``ParseOptions/formats``); INI, dotenv and
    /// TOML writes change only the lines of the keys written.
    case file(String)
  }
}
