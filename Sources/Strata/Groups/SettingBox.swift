public import Synchronization

/// What the store and introspection need of a setting, whatever its type.
protocol AnySettingBox: AnyObject, Sendable {
  /// The full dotted key (`server.port`), empty until bound.
  var key: String { get }
  /// The property's name in its group.
  var propertyName: String { get }
  /// The traits.
  var traits: SettingTraits { get }
  /// The attributes.
  var attributes: SettingAttributes { get }
  /// The declared type's name (`Int`, `[String]`, `Duration`).
  var typeName: String { get }
  /// The raw values a `CaseIterable` enum setting accepts, or `nil`.
  var allowedValues: [String]? { get }
  /// Whether the setting is a `Bool` (or `Bool?`): a flag on a command line.
  var isFlag: Bool { get }
  /// Whether the setting is a list (an array or set, or an optional one): repeated on a command line,
  /// its option makes a list.
  var isList: Bool { get }
  /// The default, as a tree (nil when it cannot be encoded, or is nil).
  var defaultSettingValue: SettingValue? { get }
  /// A struct setting's fields, learnt from its default (`nil` for any other setting).
  var fieldShape: FieldShape? { get }
  /// Where the value came from, in words, naming the places of a struct's fields.
  func originDescription() -> String
  /// Resolves the value for a new snapshot, updates the cache, and tells streams and observers when the
  /// typed value changed. Returns what it found, or `nil` when the setting has seen this generation or
  /// a newer one (then it changes nothing). Called by the store's pipeline only, one generation at a
  /// time, so streams and observers hear values in generation order.
  func apply(_ snapshot: Snapshot) -> SettingApplication?
  /// The current value as text (redacted for secrets) and its origin.
  func currentText() -> (text: String, origin: Origin)
  /// The key given in the declaration (`@Setting(key: "max_connections")`), if any.
  var declaredKey: String? { get }
  /// The old keys given in the declaration (`@Setting(aliases: ["maxConn"])`), in the group's section.
  var declaredAliases: [String] { get }
  /// The old keys, in full (`server.maxConn`), once bound.
  var aliases: [String] { get }
  /// Whether the setting was declared without a default, so that some layer must set it.
  var isRequired: Bool { get }
  /// Whether the setting has no value now: it is required and no layer sets a usable one.
  var isMissing: Bool { get }
  /// Whether one of the setting's old keys is among `keys` (a renamed setting reads them too).
  func readsAlias(in keys: Set<String>) -> Bool
  /// Checks a value given as a tree as a write through the setting's record would (read-only,
  /// conversion to the declared type, validation) and returns it as the setting encodes it.
  func checkedWrite(_ value: SettingValue) throws(StrataError) -> SettingValue?
  /// The running value as a tree, and its origin (`nil` for a required setting without a value).
  func currentValue() -> (value: SettingValue?, origin: Origin)
  /// Binds the setting to a store, its full key and its old keys.
  func bind(store: SettingsStore, key: String, aliases: [String], propertyName: String)
  /// Ends every stream.
  func finish()
}

/// What applying a snapshot to a setting found.
struct SettingApplication {
  /// The problems found resolving the setting's value.
  var diagnostics: [Diagnostic]
  /// Whether the setting kept its running value whatever the layers now say: a rejected edit, or a
  /// restart-required setting fixed at its first value.
  var keptRunningValue = false
}

/// The state of one declared setting: its declaration, its binding to a store and key, the value cached
/// for the current generation, and its subscribers.
///
/// A `Setting` (a struct stored in the group) holds one box; the store's registry holds it strongly too
/// (no weak reference, no side table on the read path), and the group's deinit unregisters it.
@usableFromInline
final class SettingBox<Value: Sendable>: AnySettingBox, @unchecked Sendable {
  // @unchecked: the `let`s are immutable; everything mutable is in `state`, behind its lock.
  /// The default; `nil` for a required setting.
  @usableFromInline let defaultValue: Value?
  @usableFromInline let traits: SettingTraits
  /// The declaration's key, old keys, attributes and validation, out of line: most settings declare
  /// none of them (`nil` then).
  private let declared: Declared?
  /// Whether the value is fixed once the program has read it (a bit of `traits`, not a field of its
  /// own: every box would carry it, padded to a word).
  @usableFromInline var isRestartRequired: Bool { traits.contains(.restartRequired) }
  /// How the type converts (shared by every setting of the type declared without a coding; one word).
  let coding: SettingCoding<Value>
  /// The mutable state and its mutex, in one allocation besides the box's (see ``Locked``).
  @usableFromInline let state: Locked<State>
  /// The value for the current generation, for reads without the lock (plain-data types only); it
  /// mirrors `state` and is written only with the lock held, by ``publishCache(_:)``.
  @usableFromInline let cache = ReadCache<Value>()
  /// The key path the Observation registrar is told of on every read, once the hook is installed
  /// (retained until the box's deinit): a typed read passes it unretained instead of the key path the
  /// compiler would materialize, and retain, on every read. `nil` until the first typed read.
  @usableFromInline let observedKeyPath = Atomic<UnsafeRawPointer?>(nil)

  /// The fields are in an order that wastes no padding for common values (Swift lays out a struct's
  /// stored properties as declared): the words first, then the value (`Int?` is 9 bytes) with the flags
  /// in its tail padding, then the origin (33 bytes) last.
  ///
  /// The bound store is not here: the read cache holds it (see ``ReadCache/boundStore``), read with
  /// the lock held like the state; the old keys are in `rare` (few settings are renamed).
  @usableFromInline
  struct State: Sendable {
    var key = ""
    var propertyName = ""
    /// The value for `generation` (-1: nothing cached yet).
    @usableFromInline var generation = -1
    /// The newest snapshot generation applied; older ones arriving late are ignored.
    var appliedGeneration = -1
    /// Streams, observer and rejection: what most settings of a large configuration never have, out of
    /// line (`nil` until one is needed).
    var rare: Rare?
    /// `nil` only for a required setting that has never had a value.
    @usableFromInline var value: Value?
    /// For `.restartRequired` settings: the value is fixed once resolved, for the life of the process.
    @usableFromInline var isRunningValueFixed = false
    /// Whether the setting has had a value (resolved at registration, or read): from then on a bad
    /// edit keeps it instead of falling back.
    var hasRunningValue = false
    /// Whether the running value is kept because a live edit was rejected (not a start-up fallback).
    var isHoldingLastGood = false
    var origin: Origin = .codeDefault

    init(value: Value?) { self.value = value }

    /// The old keys, in full (`server.maxConn`), once bound.
    var aliases: [String] {
      get { rare?.aliases ?? [] }
      set {
        guard !newValue.isEmpty || rare != nil else { return }
        rareForWriting().aliases = newValue
      }
    }
    /// The encoded form of the last value delivered to streams and observers, for typed comparison.
    var delivered: SettingValue? {
      get { rare?.delivered }
      set {
        guard newValue != nil || rare != nil else { return }
        rareForWriting().delivered = newValue
      }
    }
    var continuations: [Int: AsyncStream<Value>.Continuation] {
      get { rare?.continuations ?? [:] }
      set { rareForWriting().continuations = newValue }
    }
    var observe: (@Sendable () -> Void)? {
      get { rare?.observe }
      set { rareForWriting().observe = newValue }
    }
    /// Why the effective value in the files is rejected, while it is (for `failed` and `recovered`).
    var rejection: StrataError? {
      get { rare?.rejection }
      set {
        guard newValue != nil || rare != nil else { return }
        rareForWriting().rejection = newValue
      }
    }

    /// The rare part, made on first use.
    mutating func rareForWriting() -> Rare {
      if let rare { return rare }
      let made = Rare()
      rare = made
      return made
    }
  }

  /// The part of a setting's state that most settings never use.
  final class Rare: @unchecked Sendable {
    // @unchecked: only read and written with the owning box's lock held (through `State`).
    var aliases: [String] = []
    var delivered: SettingValue?
    var continuations: [Int: AsyncStream<Value>.Continuation] = [:]
    var nextContinuation = 0
    var observe: (@Sendable () -> Void)?
    var rejection: StrataError?
  }

  /// What a declaration gives beyond its default, traits and coding.
  final class Declared: Sendable {
    let key: String?
    let aliases: [String]
    let attributes: SettingAttributes
    let validation: SettingValidation<Value>?

    init(
      key: String?, aliases: [String], attributes: SettingAttributes, validation: SettingValidation<Value>?
    ) {
      self.key = key
      self.aliases = aliases
      self.attributes = attributes
      self.validation = validation
    }
  }

  /// The key given in the declaration (`@Setting(key: "max_connections")`), if any.
  var declaredKey: String? { declared?.key }
  /// The old keys given in the declaration, in the group's section.
  var declaredAliases: [String] { declared?.aliases ?? [] }
  /// The attributes (help, validation summary and bounds, custom ones).
  var attributes: SettingAttributes { declared?.attributes ?? SettingAttributes() }
  /// The check the value must pass, if any.
  var validation: SettingValidation<Value>? { declared?.validation }

  /// A setting's value for a snapshot, and how it was found.
  struct Resolution {
    /// `nil` when no layer has a usable value and there is no default (a missing required setting).
    var value: Value?
    var origin: Origin
    var diagnostics: [Diagnostic]
    /// Why the effective value (the highest layer's) was rejected, if it was.
    var rejectedTop: StrataError?
    /// The candidates looked at, highest first, with why each rejected one was.
    var candidates: [(value: SettingValue, rejection: String?)] = []
  }

  init(
    defaultValue: Value?, key: String?, aliases: [String], traits: SettingTraits,
    attributes: SettingAttributes,
    validation: SettingValidation<Value>?, coding: SettingCoding<Value>
  ) {
    self.defaultValue = defaultValue
    self.traits = traits
    var attributes = attributes
    if let validation {
      attributes.validationSummary = validation.summary
      attributes.validationBounds = validation.bounds.map { [$0.minimum, $0.maximum] }
    }
    let declaresNothing = key == nil && aliases.isEmpty && attributes.isEmpty && validation == nil
    self.declared =
      declaresNothing
      ? nil : Declared(key: key, aliases: aliases, attributes: attributes, validation: validation)
    self.coding = coding
    self.state = Locked(State(value: defaultValue))
  }

  var key: String { currentKey() }
  var propertyName: String { state.withLock { $0.propertyName } }
  /// The old keys in full; a setting that declares none (almost every one) answers without the lock.
  var aliases: [String] { declaredAliases.isEmpty ? [] : state.withLock { $0.aliases } }
  var isRequired: Bool { defaultValue == nil }
  var isMissing: Bool { isRequired && readIfPresent() == nil }
  var store: SettingsStore? { state.withLock { _ in cache.boundStore } }
  var typeName: String { describeType(Value.self) }
  var allowedValues: [String]? { CodingSupport.caseNames(Value.self) }
  var isFlag: Bool { Value.self == Bool.self || Value.self == Bool?.self }
  var isList: Bool { Value.self is any ListSetting.Type }
  var defaultSettingValue: SettingValue? { defaultValue.flatMap { try? encode($0) } }
  var fieldShape: FieldShape? {
    // Only a `Codable` coding reads a table over its default; a custom coding's tree is its own.
    guard coding.decodeOverDefault != nil, !CodingSupport.isScalar(Value.self),
      let value = defaultValue as? any Encodable
    else { return nil }
    return SettingEncoder().fieldShape(of: value)
  }

  /// The value from a tree read at `key`. A table is read over the default's tree: each field the
  /// layers do not set keeps the default's value (see "Structured values" in Declarations.md).
  func decode(_ value: SettingValue, _ key: String) throws(StrataError) -> Value {
    if value.isTable, let decodeOverDefault = coding.decodeOverDefault, let defaultValue,
      let defaultTree = try? coding.encode(defaultValue), defaultTree.isTable
    {
      return try decodeOverDefault(value, defaultTree, key)
    }
    return try coding.decode(value, key)
  }

  /// The tree written for a value.
  func encode(_ value: Value) throws(StrataError) -> SettingValue? {
    try coding.encode(value)
  }

  /// The full key, under the lock (a function, so that common types have a specialized copy: generic
  /// code looks up the metadata of `State` and its lock at every call, a quarter of making 10,000
  /// settings).
  @_specialize(where Value == Int)
  @_specialize(where Value == String)
  @_specialize(where Value == Bool)
  @_specialize(where Value == Double)
  func currentKey() -> String { state.withLock { $0.key } }

  deinit {
    if let keyPath = observedKeyPath.load(ordering: .acquiring) {
      Unmanaged<AnyKeyPath>.fromOpaque(keyPath).release()
    }
  }

  /// Binds the box to a store and key (at group init, or when a nested group is re-bound).
  @_specialize(where Value == Int)
  @_specialize(where Value == String)
  @_specialize(where Value == Bool)
  @_specialize(where Value == Double)
  func bind(store: SettingsStore, key: String, aliases: [String], propertyName: String) {
    state.withLock { state in
      defer { publishCache(state) }
      cache.publish(generation: ReadCache<Value>.emptyGeneration, value: nil)
      cache.bind(to: store)
      state.key = key
      state.aliases = aliases
      state.propertyName = propertyName
      state.generation = -1
      state.appliedGeneration = -1
    }
  }

  /// The value for the current generation: from the cache when it is current (lock-free for plain
  /// data, see ``ReadCache``; else a lock held only to copy the value), else resolved outside the lock
  /// and cached.
  @inlinable
  func read() -> Value {
    if let value = readIfPresent() { return value }
    missingValue()
  }

  /// The value for the current generation, or `nil` for a required setting that has no value.
  @inlinable
  func readIfPresent() -> Value? {
    // The hot path, inlined and specialized in the caller. A plain-data value comes from the lock-free
    // cache, writing nothing; a miss there (stale, pinned, unbound, or a restart-required value not
    // fixed yet) takes the slow path. Other types copy the value under the lock, by the same rule. The
    // outer optional is the cache miss.
    if let hit = cache.load() { return hit }
    if ReadCache<Value>.isLockFree { return readResolving() }
    let hit = state.withLock { state -> Value?? in
      guard cache.isBound else { return .some(defaultValue) }
      if state.isRunningValueFixed { return .some(state.value) }
      if cache.isCurrent(state.generation) {
        if isRestartRequired && state.value != nil { state.isRunningValueFixed = true }
        return .some(state.value)
      }
      return nil
    }
    if let hit { return hit }
    return readResolving()
  }

  /// Tells the lock-free cache what the locked state holds now. Called with the lock held, after
  /// every change of the store, generation, value or fixed running value (a `defer` at the top of
  /// each locked section that changes them).
  func publishCache(_ state: State) {
    if state.isRunningValueFixed {
      cache.publish(generation: ReadCache<Value>.fixedGeneration, value: state.value)
    } else if isRestartRequired || !cache.isBound {
      // A restart-required value is fixed by its first read, a write: that read takes the lock.
      cache.publish(generation: ReadCache<Value>.emptyGeneration, value: nil)
    } else {
      cache.publish(generation: state.generation, value: state.value)
    }
  }

  /// Stops the program: a required setting that has never had a value was read.
  @usableFromInline
  func missingValue() -> Never {
    preconditionFailure(
      "\(missingError()); call `try store.requireAll()` at start-up to report every missing setting before serving"
    )
  }

  /// An assignment through the property: a write that cannot throw, so a failure is reported to the
  /// store's diagnostics instead.
  @usableFromInline
  func assign(_ newValue: Value) {
    do {
      try SettingRecord(box: self).set(newValue)
    } catch {
      store?.report(error, forKey: key)
    }
  }

  /// The slow path: resolve the value for the snapshot reads should see, and cache it. A setting whose
  /// key (and old keys) no reload since its cached generation changed keeps its value for the newest
  /// generation without resolving (a reload visits only the settings it changes).
  @usableFromInline
  func readResolving() -> Value? {
    guard
      let (store, key, cached) = state.withLock({ state in
        cache.boundStore.map { ($0, state.key, state.generation) }
      })
    else { return defaultValue }
    if let group = store.fallbackGroup { FallbackStore.warnOnFirstRead(group) }
    if store.pinCount.load(ordering: .relaxed) == 0 {
      let current = store.generationCounter.load(ordering: .acquiring)
      if store.changeLog.leavesAlone(CollectionOfOne(key) + aliases, after: cached, through: current) {
        if let value = catchUp(from: cached, to: current) { return value }
      }
    }
    let snapshot = store.readingSnapshot()
    let resolved = resolve(in: snapshot, key: key)
    return state.withLock { state in
      if state.isRunningValueFixed { return state.value }
      defer { publishCache(state) }
      // A rejected edit keeps the running value: `apply` says so with an event.
      let holds = keepsRunningValue(state, resolved)
      guard store.snapshot.generation == snapshot.generation else {
        return holds ? state.value : resolved.value
      }
      if state.generation < snapshot.generation {
        state.generation = snapshot.generation
        if !holds {
          state.value = resolved.value
          state.origin = resolved.origin
        }
      }
      state.hasRunningValue = true
      if isRestartRequired && state.value != nil { state.isRunningValueFixed = true }
      return state.value
    }
  }

  /// Moves the cached value from generation `cached` to `current` (which changed nothing it reads);
  /// `nil` when another thread moved it meanwhile, and the caller resolves.
  private func catchUp(from cached: Int, to current: Int) -> Value?? {
    state.withLock { state -> Value?? in
      guard state.generation == cached else { return nil }
      defer { publishCache(state) }
      state.generation = current
      state.hasRunningValue = true
      if isRestartRequired && state.value != nil { state.isRunningValueFixed = true }
      return .some(state.value)
    }
  }

  /// Whether a resolution's rejected top value leaves the running value in place: once the setting has
  /// a value, a live edit that does not convert or validate never changes it (a start-up fallback, made
  /// before there was a running value, goes on following the layers below until the edit is fixed).
  func keepsRunningValue(_ state: State, _ resolved: Resolution) -> Bool {
    resolved.rejectedTop != nil && state.hasRunningValue
      && (state.isHoldingLastGood || state.rejection == nil)
  }

  /// What applying a snapshot asks the store to tell.
  enum Notice {
    case pendingRestart(PendingRestart)
    /// A restart-required setting's files hold its running value again.
    case noLongerPending
    /// A live edit was rejected; the running value stays.
    case failed(StrataError)
    /// A rejection reported before is gone.
    case recovered(StrataError)
  }

  @_specialize(where Value == Int)
  @_specialize(where Value == String)
  @_specialize(where Value == Bool)
  @_specialize(where Value == Double)
  func apply(_ snapshot: Snapshot) -> SettingApplication? {
    let key = self.key
    let resolved = resolve(in: snapshot, key: key)
    let restartRequired = traits.contains(.restartRequired)
    let isSecret = traits.contains(.secret)
    let outcome = state.withLock {
      state -> (
        listeners: [AsyncStream<Value>.Continuation], observe: (@Sendable () -> Void)?, notices: [Notice],
        kept: Bool
      )? in
      guard state.appliedGeneration < snapshot.generation else { return nil }
      defer { publishCache(state) }
      state.appliedGeneration = snapshot.generation
      var notices: [Notice] = []
      // A rejected edit: the running value stays, and the store says so once per new rejection.
      if keepsRunningValue(state, resolved), let rejection = resolved.rejectedTop {
        if state.rejection?.description != rejection.description {
          var kept = rejection
          kept.message += "; the running value is kept"
          notices.append(.failed(kept))
        }
        state.rejection = rejection
        state.isHoldingLastGood = true
        if state.generation < snapshot.generation { state.generation = snapshot.generation }
        return ([], nil, notices, true)
      }
      if resolved.rejectedTop == nil, let cleared = state.rejection {
        notices.append(.recovered(cleared))
      }
      state.rejection = resolved.rejectedTop
      state.isHoldingLastGood = false
      // The encoded form compares typed values; only a setting someone listens to (or one fixed at its
      // first value) needs it: most settings of a large configuration have no stream or observer.
      let listens = !state.continuations.isEmpty || state.observe != nil || restartRequired
      let encoded: SettingValue? = listens ? resolved.value.flatMap { try? encode($0) } : nil
      if state.isRunningValueFixed {
        let running: SettingValue? = state.value.flatMap { try? encode($0) }
        guard !(running == encoded) else { return ([], nil, notices + [.noLongerPending], true) }
        let shown = { (value: SettingValue?) in isSecret ? redactedText : value.map(ValueText.plain) ?? "nil"
        }
        let pending = PendingRestart(
          key: key, runningValue: shown(running), newValue: shown(encoded), origin: resolved.origin)
        return ([], nil, notices + [.pendingRestart(pending)], true)
      }
      if state.generation < snapshot.generation {
        state.generation = snapshot.generation
        state.value = resolved.value
        state.origin = resolved.origin
        // A restart-required setting keeps the value it started with once the program has read it.
        state.isRunningValueFixed = restartRequired && state.delivered != nil && state.value != nil
      }
      state.hasRunningValue = true
      guard listens else {
        state.delivered = nil
        return ([], nil, notices, false)
      }
      let first = state.delivered == nil
      let changed = !first && !(state.delivered == encoded)
      state.delivered = encoded ?? Self.deliveredNothing
      guard changed else { return ([], nil, notices, false) }
      return (Array(state.continuations.values), state.observe, notices, false)
    }
    guard let (listeners, observe, notices, kept) = outcome else { return nil }
    observe?()
    if let value = resolved.value {
      for continuation in listeners { continuation.yield(value) }
    }
    for notice in notices {
      switch notice {
      case .pendingRestart(let pending): store?.recordPendingRestart(pending)
      case .noLongerPending: store?.clearPendingRestart(forKey: key)
      case .failed(let error): store?.emit(.failed(error))
      case .recovered(let error): store?.emit(.recovered(error))
      }
    }
    return SettingApplication(diagnostics: resolved.diagnostics, keptRunningValue: kept)
  }

  /// The values of lower layers that the running one hides, nearest first, each rejected one with why
  /// (never the running value itself).
  func shadowed(in snapshot: Snapshot) -> [(value: SettingValue, rejection: String?)] {
    let resolved = resolve(in: snapshot, key: key)
    let running = state.withLock { $0.origin }
    var found = false
    return resolved.candidates.filter { candidate in
      // The first candidate from where the running value came is the running value itself.
      if !found && candidate.rejection == nil && candidate.value.origin == running {
        found = true
        return false
      }
      return true
    }
  }

  func currentText() -> (text: String, origin: Origin) {
    let value = readIfPresent()
    let origin = state.withLock { $0.origin }
    guard let value else { return (missingText, origin) }
    if traits.contains(.secret) { return (redactedText, origin) }
    let text = (try? encode(value)).flatMap { $0 }.map(ValueText.plain) ?? "nil"
    return (text, origin)
  }

  /// The origin of the current value.
  var origin: Origin {
    _ = readIfPresent()
    return state.withLock { $0.origin }
  }

  func checkedWrite(_ value: SettingValue) throws(StrataError) -> SettingValue? {
    if traits.contains(.readOnly) { throw StrataError(.invalidValue, "\(key) is read-only") }
    let typed = try decode(value, key)
    if let validation, !validation.check(typed) {
      let shown = traits.contains(.secret) ? redactedText : "\(typed)"
      throw StrataError(.invalidValue, "invalid value \(shown) for \(key): \(validation.summary)")
    }
    return try encode(typed)
  }

  func currentValue() -> (value: SettingValue?, origin: Origin) {
    let value = readIfPresent().flatMap { try? encode($0) }
    return (value, state.withLock { $0.origin })
  }

  /// What `delivered` holds for a setting without a value (a required one that is missing).
  private static var deliveredNothing: SettingValue { SettingValue(.string(""), origin: .codeDefault) }

  /// The value a new listener starts from (later applies tell it of changes from there).
  private func deliveredBaseline(_ state: State) -> SettingValue {
    state.value.flatMap { try? encode($0) } ?? Self.deliveredNothing
  }

  /// A stream of every later change of the typed value.
  func changes() -> AsyncStream<Value> {
    let (stream, continuation) = AsyncStream<Value>.makeStream(bufferingPolicy: .bufferingNewest(64))
    subscribe(continuation)
    return stream
  }

  /// The current value, then every change.
  func values() -> AsyncStream<Value> {
    let (stream, continuation) = AsyncStream<Value>.makeStream(bufferingPolicy: .bufferingNewest(64))
    if let value = readIfPresent() { continuation.yield(value) }
    subscribe(continuation)
    return stream
  }

  private func subscribe(_ continuation: AsyncStream<Value>.Continuation) {
    let (id, rare) = state.withLock { state in
      if state.delivered == nil { state.delivered = deliveredBaseline(state) }
      let rare = state.rareForWriting()
      let id = rare.nextContinuation
      rare.nextContinuation += 1
      rare.continuations[id] = continuation
      return (id, rare)
    }
    // The box strongly, not weakly: a weak reference would give the box a side table, which makes
    // every retain and release of it (one pair per cached read) take the runtime's slow path. The cycle
    // this makes (box → continuation → this closure → box) ends when the stream terminates or
    // `finish()` empties `continuations` (the group's deinit, or the store's shutdown). `rare` is the
    // box's for good once made, and is touched only with the box's lock held.
    continuation.onTermination = { [self] _ in
      state.withLock { _ in _ = rare.continuations.removeValue(forKey: id) }
    }
  }

  /// Ends every stream (the group was released, or the store shut down).
  func finish() {
    let continuations = state.withLock { state in
      guard let rare = state.rare else { return [AsyncStream<Value>.Continuation]() }
      defer { rare.continuations = [:] }
      return Array(rare.continuations.values)
    }
    for continuation in continuations { continuation.finish() }
  }

  /// Installs the Observation hook once (from the first typed read, which knows the group) and keeps
  /// `keyPath`, the key the hook tells the registrar of, for ``observedKeyPath``.
  @usableFromInline
  func installObserver(_ hook: @escaping @Sendable () -> Void, keyPath: AnyKeyPath) {
    state.withLock { state in
      if state.delivered == nil { state.delivered = deliveredBaseline(state) }
      guard state.observe == nil else { return }
      state.observe = hook
      observedKeyPath.store(
        UnsafeRawPointer(Unmanaged.passRetained(keyPath).toOpaque()), ordering: .releasing)
    }
  }
}

extension SettingBox: CustomReflectable {
  /// What `dump(group)` shows of a setting: its key, value as text (redacted for secrets), origin and
  /// traits, never the raw state.
  @usableFromInline var customMirror: Mirror {
    let (text, origin) = currentText()
    return Mirror(
      self, children: ["key": key, "value": text, "origin": origin, "traits": traits], displayStyle: .class)
  }
}

/// An error with the position of the node it is about, unless it already has one.
func located(_ error: StrataError, _ origin: Origin) -> StrataError {
  var error = error
  guard error.path == nil else { return error }
  switch origin {
  case .file(let path, let line, let column):
    error.path = path
    error.line = line
    error.column = column
  case .environment, .commandLine, .remote: error.path = origin.description
  case .codeDefault, .runtime: break
  }
  return error
}

/// A type's name as a user writes it: `Int`, `[String]`, `String?`, `[String: Int]`.
func describeType(_ type: Any.Type) -> String {
  sugared(String(describing: type))
}

/// Rewrites `Array<X>`, `Optional<X>` and `Dictionary<K, V>` in a type name into their sugared forms.
func sugared(_ name: String) -> String {
  guard let open = name.firstIndex(of: "<"), name.hasSuffix(">") else { return name }
  let base = name[..<open]
  let inner = name[name.index(after: open)..<name.index(before: name.endIndex)]
  // Split the generic arguments at top-level commas.
  var arguments: [String] = []
  var depth = 0
  var current = ""
  for character in inner {
    if character == "<" { depth += 1 }
    if character == ">" { depth -= 1 }
    if character == "," && depth == 0 {
      arguments.append(current.filter { $0 != " " })
      current = ""
    } else {
      current.append(character)
    }
  }
  arguments.append(current.filter { $0 != " " })
  let parts = arguments.map(sugared)
  switch (base, parts.count) {
  case ("Array", 1): return "[\(parts[0])]"
  case ("Optional", 1): return parts[0] + "?"
  case ("Dictionary", 2): return "[\(parts[0]): \(parts[1])]"
  default: return base + "<" + parts.joined(separator: ", ") + ">"
  }
}
