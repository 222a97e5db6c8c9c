/// Everything about one setting, reached as `group.$name`.
///
/// <!-- snippet: Tests/DocSnippets/GroupSymbolSnippets.swift#SettingRecord -->
/// ```swift
/// print(server.$port.value)  // 8443
/// print(server.$port.origin)  // /etc/demo/demo.ini:6:8
/// print(server.$port.key)  // "server.port"
/// print(server.$port.environmentName ?? "")  // "DEMO_SERVER_PORT"
/// for await port in server.$port.changes { print("now \(port)") }
/// ```
public struct SettingRecord<Value: Sendable>: Sendable {
  let box: SettingBox<Value>

  /// The effective value (what reading the property returns). Reading a required setting that has no
  /// value stops the program; see ``require()``.
  public var value: Value { box.read() }

  /// The effective value, or an error naming where it can be set when the setting is required and no
  /// layer sets a usable value.
  /// - Throws: `missingRequired`.
  public func require() throws(StrataError) -> Value {
    if let value = box.readByProgram() { return value }
    throw box.missingError()
  }
  /// The default declared in code; `nil` for a required setting (declared without one).
  public var defaultValue: Value? { box.defaultValue }
  /// Whether the setting was declared without a default, so that some layer must set it.
  public var isRequired: Bool { box.isRequired }
  /// The old keys the setting still reads, in full (`server.maxConn`).
  public var aliases: [String] { box.aliases }
  /// The full dotted key, such as `server.port`.
  public var key: String { box.key }
  /// Where the effective value came from: `/etc/demo/demo.ini:6:8`, `env:DEMO_SERVER_PORT`, `default`.
  public var origin: Origin { box.origin }
  /// For a struct whose fields the layers set, the origin of each field they set, by full key
  /// (`http.tls.enabled`); the other fields are the default's. Empty for any other value.
  public var fieldOrigins: [String: Origin] { box.fieldOrigins() }
  /// Where the value came from, in words: ``origin``, or for a struct whose fields came from several
  /// places, each place with its fields (`fields from /etc/app/app.ini (enabled), default (others)`).
  var originDescription: String { box.originDescription() }
  /// The traits declared on the setting.
  public var traits: SettingTraits { box.traits }
  /// The one-line description the declaration gives (`help:`), shown in schemas and listings.
  public var help: String? { box.attributes.help }
  /// Whether the setting is a secret (redacted in every text that leaves the library).
  var isSecret: Bool { box.traits.contains(.secret) }

  /// The values in the layers that the running value hides, highest first (redacted for secrets); a
  /// value that was rejected (it does not convert or validate) has the reason in `rejection`. The
  /// running value itself is never listed.
  public var shadowed: [Snapshot.HiddenValue] {
    guard let store = box.store else { return [] }
    return box.shadowed(in: store.snapshot).map { hidden in
      Snapshot.HiddenValue(
        value: isSecret ? redactedText : ValueText.plain(hidden.value), origin: hidden.value.origin,
        rejection: hidden.rejection)
    }
  }

  /// The environment variable that overrides this setting, or `nil` when the store has no environment
  /// layer.
  public var environmentName: String? {
    guard let prefix = box.store?.environmentPrefix else { return nil }
    return EnvironmentNames.variableName(forKey: key, prefix: prefix)
  }

  /// Every later change of the typed value. Emits only when the value changes; ends when the group is
  /// released or the store shuts down.
  public var changes: AsyncStream<Value> { box.changes() }

  /// The current value, then every change.
  public var values: AsyncStream<Value> { box.values() }

  /// Drops the cached value, so the next read decodes it again.
  func purgeCache() {
    box.withState { state in state.generation = -1 }
  }

  /// Saves a value to the store's ``SettingsStore/WriteTarget`` (the user's file by default) and
  /// publishes it; returns once it is published and announced.
  ///
  /// The one way to write a setting the code declares: `try server.$port.save(9000)`. The property
  /// itself is read-only, so that no assignment writes a file unseen, and the name says that a file is
  /// written (or the runtime layer, for a store whose write target is `.runtime`). This form blocks its
  /// thread while another process writes in the same directory (up to 10 s) and while the file is
  /// synced; async code gets the `async` form, which does not. For a key known only at run time, use
  /// ``SettingsStore/saveValue(_:forKey:)-512me``.
  ///
  /// A value the write target holds already writes nothing (compared by type: `"8080"` in an INI file
  /// is 8080); a value only a higher layer (the command line) supplies is written, so that it stays
  /// without that layer. A `.restartRequired` setting's new value is saved and, like an edit of its
  /// file, applies at the next start: the running value stays and ``SettingsStore/pendingRestarts``
  /// lists the change.
  /// - Parameter newValue: the value to write.
  /// - Throws: ``StrataError`` when the setting is read-only, the value fails validation, or cannot be
  ///   written; then nothing changed, on disk or in memory.
  public func save(_ newValue: Value) throws(StrataError) {
    guard let store = box.store else { return }
    let (encoded, isUnchanged) = try checkedWrite(newValue)
    try store.write(encoded, forKey: key, isUnchanged: isUnchanged)
  }

  /// Writes a value as the synchronous form does, without blocking a thread of the cooperative pool:
  /// the file is written on a thread of its own, and the call suspends while it waits for the
  /// directory's lock (another process writing), the disk or the store's reload loop. Returns once the
  /// value is published and announced; async code calls this form (`try await server.$port.save(9000)`).
  /// - Parameter newValue: the value to write.
  /// - Throws: ``StrataError`` when the setting is read-only, the value fails validation, or cannot be
  ///   written; then nothing changed, on disk or in memory.
  public func save(_ newValue: Value) async throws(StrataError) {
    guard let store = box.store else { return }
    let (encoded, isUnchanged) = try checkedWrite(newValue)
    try await store.write(encoded, forKey: key, isUnchanged: isUnchanged)
  }

  /// `newValue` encoded, once the setting accepts it (not read-only, valid), with what counts as the
  /// write target holding it already: the same value by type (`"8080"` in an INI file is 8080). The
  /// target's own value, not the running one: a value only the command line supplies is written.
  private func checkedWrite(
    _ newValue: Value
  ) throws(StrataError) -> (SettingValue?, @Sendable (SettingValue?) -> Bool) {
    if box.traits.contains(.readOnly) {
      throw StrataError(.invalidValue, "\(key) is read-only")
    }
    if let validation = box.validation, !validation.check(newValue) {
      let shown = isSecret ? redactedText : "\(newValue)"
      throw StrataError(.invalidValue, "invalid value \(shown) for \(key): \(validation.summary)")
    }
    let encoded = try box.encode(newValue)
    let box = self.box
    let key = self.key
    return (
      encoded,
      { own in
        guard let own, let encoded else { return own == nil && encoded == nil }
        return own == encoded || (try? box.decode(own, key)).flatMap { try? box.encode($0) } == encoded
      }
    )
  }

  /// Removes the saved value from the store's ``SettingsStore/WriteTarget`` (its line in the user's file,
  /// by default), so the lower layers' value (or the default) applies. Blocks its thread as the
  /// synchronous `save(_:)` does.
  public func removeSaved() throws(StrataError) {
    guard let store = box.store else { return }
    if box.traits.contains(.readOnly) { throw StrataError(.invalidValue, "\(key) is read-only") }
    try store.write(nil, forKey: key)
  }

  /// Removes the setting from the writable layer as the synchronous form does, without blocking a
  /// thread of the cooperative pool, as the `async` form of `save(_:)` does.
  public func removeSaved() async throws(StrataError) {
    guard let store = box.store else { return }
    if box.traits.contains(.readOnly) { throw StrataError(.invalidValue, "\(key) is read-only") }
    try await store.write(nil, forKey: key)
  }
}
