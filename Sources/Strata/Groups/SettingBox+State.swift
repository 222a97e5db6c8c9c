/// The layout of a setting's mutable state: what every setting has, in an order that wastes no
/// padding, and what few have, out of line.
extension SettingBox {
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
}
