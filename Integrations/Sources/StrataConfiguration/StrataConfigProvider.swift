public import Configuration
public import Strata

/// A store as a swift-configuration `ConfigProvider`, so that any library that reads a `ConfigReader`
/// (Hummingbird's `ApplicationConfiguration(reader:)` among them) reads the store's layered files,
/// drop-ins, environment and command line.
///
/// <!-- snippet: Integrations/Tests/StrataIntegrationsTests/DocSnippets/IntegrationSnippets.swift#StrataConfigProvider -->
/// ```swift
/// let store = SettingsStore(app: "myserver")
/// let reader = ConfigReader(provider: StrataConfigProvider(store: store))
/// let app = Application(
///   router: router, configuration: ApplicationConfiguration(reader: reader.scoped(to: "http")))
/// ```
///
/// Keys: a swift-configuration key's components are the names of a Strata key (`["http", "port"]` is
/// `http.port`; a component holding a dot is quoted, `["a.b"]` is `"a.b"`), and that Strata key is the
/// result's `encodedKey`.
///
/// Values: a key that a setting declares reads the setting's running value (validated; a bad live edit
/// keeps the last good one; a `.restartRequired` one keeps its start-up value); any other key reads the
/// layers' merged value. Values convert as Strata converts them (`"8080"` is an `int`, `yes` a `bool`,
/// `"a, b"` a string array, base64 text `bytes`); a value that does not convert throws a `StrataError`
/// naming the key and where the value came from. Values of `.secret` settings, and of secret sources,
/// are marked `isSecret`.
///
/// Snapshots hold the same values as ``value(forKey:type:)`` at one moment (immutable; taking one reads
/// every declared setting once). Watching needs the store's run loop (`store.run()`, or `SettingsStoreService`): each
/// reload that changes the answer yields it.
public struct StrataConfigProvider: ConfigProvider {
  /// The store read.
  public let store: SettingsStore
  /// The name shown in access reports.
  public let providerName: String

  /// Creates a provider over a store.
  /// - Parameters:
  ///   - store: the store read.
  ///   - name: the name shown in swift-configuration's access reports.
  public init(store: SettingsStore, name: String = "Strata") {
    self.store = store
    self.providerName = name
  }

  /// The Strata key of a swift-configuration key.
  public static func settingKey(of key: AbsoluteConfigKey) -> String {
    SettingKey.join(key.components)
  }

  /// Where the value at `key` comes from (a file position, a variable, a default), or `nil` when no layer
  /// sets it and no setting declares it.
  public func origin(forKey key: AbsoluteConfigKey) -> Origin? {
    try? store.value(forKey: Self.settingKey(of: key), as: AnyValue.self)?.origin
  }

  /// The value at `key` as `type`: a declared setting's running value, else the layers' merged one; `nil`
  /// for a table (a key with keys below it).
  public func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
    let settingKey = Self.settingKey(of: key)
    let snapshot = store.snapshot
    guard snapshot.root.value(at: settingKey)?.table == nil else {
      return LookupResult(encodedKey: settingKey, value: nil)
    }
    // The store reads a declared setting's running value, and any other key from the merged layers.
    let content = try ConfigConversion.content(as: type, from: StoreReader(store: store, key: settingKey))
    return LookupResult(
      encodedKey: settingKey,
      value: content.map { ConfigValue($0, isSecret: ConfigConversion.isSecret(settingKey, in: snapshot)) })
  }

  /// The same as ``value(forKey:type:)``: the store's values are in memory.
  public func fetchValue(forKey key: AbsoluteConfigKey, type: ConfigType) async throws -> LookupResult {
    try value(forKey: key, type: type)
  }

  /// The value now, then each different one after a reload, until the handler returns.
  public nonisolated(nonsending) func watchValue<Return: ~Copyable>(
    forKey key: AbsoluteConfigKey, type: ConfigType,
    updatesHandler:
      nonisolated(nonsending) (ConfigUpdatesAsyncSequence<Result<LookupResult, any Error>, Never>)
      async throws ->
      Return
  ) async throws -> Return {
    let provider = self
    return try await watch(
      { Result { try provider.value(forKey: key, type: type) } },
      isSame: { old, new in
        switch (old, new) {
        case (.success(let a), .success(let b)): a == b
        case (.failure(let a), .failure(let b)): "\(a)" == "\(b)"
        default: false
        }
      }, updatesHandler: updatesHandler)
  }

  /// The values now: declared settings' running values, the layers' merged values for other keys.
  public func snapshot() -> any ConfigSnapshot {
    StrataConfigSnapshot(store: store, providerName: providerName)
  }

  /// The snapshot now, then one for each new generation, until the handler returns.
  public nonisolated(nonsending) func watchSnapshot<Return: ~Copyable>(
    updatesHandler:
      nonisolated(nonsending) (ConfigUpdatesAsyncSequence<any ConfigSnapshot, Never>) async throws -> Return
  ) async throws -> Return {
    let (store, name) = (self.store, providerName)
    return try await watch(
      { StrataConfigSnapshot(store: store, providerName: name) },
      isSame: { $0.snapshot.generation == $1.snapshot.generation },
      updatesHandler: {
        try await updatesHandler(ConfigUpdatesAsyncSequence($0.map { $0 as any ConfigSnapshot }))
      })
  }

  /// Yields `current()` now and after each reload when it differs from the last one yielded, while
  /// `updatesHandler` runs. The handler's own iteration reads the store's events: nothing runs
  /// beside it, and nothing outlives it.
  private nonisolated(nonsending) func watch<Element: Sendable, Return: ~Copyable>(
    _ current: @escaping @Sendable () -> Element, isSame: @escaping @Sendable (Element, Element) -> Bool,
    updatesHandler:
      nonisolated(nonsending) (ConfigUpdatesAsyncSequence<Element, Never>) async throws -> Return
  ) async throws -> Return {
    // Subscribe before the first read, so that a reload between the two is not missed.
    let events = store.events
    let updates = ReloadedValues(events: events, first: current(), current: current, isSame: isSame)
    return try await updatesHandler(ConfigUpdatesAsyncSequence(updates))
  }
}

/// `first`, then `current()` after each `reloaded` event of `events` when it differs from the last
/// element: computed as the consumer iterates, in its task. A consumer slower than the reloads sees
/// the latest value, not each one in between.
private struct ReloadedValues<Element: Sendable>: AsyncSequence, Sendable {
  let events: AsyncStream<StoreEvent>
  let first: Element
  let current: @Sendable () -> Element
  let isSame: @Sendable (Element, Element) -> Bool

  func makeAsyncIterator() -> Iterator {
    Iterator(events: events.makeAsyncIterator(), pending: first, last: first, values: self)
  }

  struct Iterator: AsyncIteratorProtocol {
    var events: AsyncStream<StoreEvent>.Iterator
    /// The first element, until it is taken.
    var pending: Element?
    var last: Element
    let values: ReloadedValues

    mutating func next() async -> Element? {
      if let first = pending.take() { return first }
      while let event = await events.next() {
        guard case .reloaded = event else { continue }
        let next = values.current()
        if !values.isSame(last, next) {
          last = next
          return next
        }
      }
      return nil
    }
  }
}

/// Any value at all: reading it only asks whether there is one, and where it came from.
private struct AnyValue: Decodable, Sendable {
  init(from decoder: any Decoder) throws {}
}
