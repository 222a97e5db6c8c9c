#if DEBUG
  import StrataPlatform
#endif

/// The store a group binds to when it is made without `store:` and no ``SettingsStore/current`` is
/// set: a private in-memory store that holds only the defaults. A nested group (`let limits =
/// LimitSettings()`) is made that way and moves into its parent's store at once; a top-level group
/// left there reads its defaults whatever the files say, so the store says so: a warning in its
/// ``SettingsStore/diagnostics``, and in debug builds a line on standard error at the first read of
/// each group class.
enum FallbackStore {
  /// Classes already warned about on standard error, once each per process.
  private static let warned = Locked<Set<String>>([])

  /// A new fallback store for a group of class `typeName`.
  static func make(for typeName: String) -> SettingsStore {
    SettingsStore(
      layers: [StaticLayer(scope: .defaults, name: "in-memory", root: .emptyTable(origin: .runtime))],
      options: ParseOptions(), writeTarget: .runtime, fallbackFor: typeName)
  }

  /// `ServerSettings was made without a store …; pass the store: ServerSettings(store: store), …`.
  static func message(for typeName: String) -> String {
    "\(typeName) was made without a store and no SettingsStore.current, so it reads a private in-memory "
      + "store that holds only its defaults, whatever the files say; pass the store: "
      + "\(typeName)(store: store), or make it with \(typeName)(store: nil) inside "
      + "SettingsStore.$current.withValue(store) { … } (for "
      + "defaults on purpose, in tests or previews: \(typeName)(store: .inMemory()))"
  }

  /// Marks `typeName` as warned about; `true` the first time (the caller then prints).
  static func firstWarning(for typeName: String) -> Bool {
    warned.withLock { $0.insert(typeName).inserted }
  }

  /// Whether standard error has been told about `typeName`.
  static func hasWarned(about typeName: String) -> Bool {
    warned.withLock { $0.contains(typeName) }
  }

  /// The first read of a setting through a fallback store (debug builds): one line on standard error
  /// per group class.
  /// What a debug build says, once, at the first read of a setting no store holds.
  static let unboundMessage =
    "a setting was read from a group made by its init() alone, which binds it to no store: it reads "
    + "its default whatever the files say; make the group with init(store:) (or init(store: nil) inside "
    + "SettingsStore.$current.withValue(store) { … })"

  /// Says ``unboundMessage`` on standard error once per process (debug builds only).
  static func warnOnUnboundRead() {
    #if DEBUG
      guard firstWarning(for: "") else { return }
      Syscall.writeAll(STDERR_FILENO, "Strata: warning: \(unboundMessage)\n")
    #endif
  }

  static func warnOnFirstRead(_ typeName: String) {
    #if DEBUG
      guard firstWarning(for: typeName) else { return }
      Syscall.writeAll(STDERR_FILENO, "Strata: warning: \(message(for: typeName))\n")
    #endif
  }
}

extension SettingsStore {
  /// The warning of a fallback store, as a diagnostic.
  var fallbackDiagnostics: [Diagnostic] {
    fallbackGroup.map { [Diagnostic(.warning, StrataError(.misuse, FallbackStore.message(for: $0)))] } ?? []
  }
}
