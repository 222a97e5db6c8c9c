public import Synchronization

/// A setting's cached value for one generation, readable without a lock and without writing any memory
/// that other readers share: a sequence lock over atomic words.
///
/// Only plain-data values small enough for three words (see ``isLockFree``: `Int`, `Bool`, `Double`,
/// `Duration`, enums with raw values, their optionals) are kept here; for the others (`String`, arrays,
/// `Codable` structs, which cannot be returned without retaining a shared buffer anyway) ``load()``
/// always misses and the box reads its locked state, under the same rule, ``isCurrent(_:)``.
///
/// The one rule for a cached value, lock-free or locked: it is valid when it is a restart-required
/// setting's fixed running value (``fixedGeneration``), or when its generation is the bound store's
/// current one (acquire) and no consistent-snapshot pin is active; otherwise the box's slow path
/// resolves the value.
///
/// Writers (``publish(generation:value:)``, ``bind(to:)``) run with the box's lock held, so there is
/// never more than one at a time. A reader loads the sequence (acquire), the words (relaxed), fences
/// (acquire) and loads the sequence again: an odd or changed sequence is a miss. Every shared word is
/// an atomic, so there is no data race in the language's sense (and nothing for ThreadSanitizer).
@usableFromInline
struct ReadCache<Value>: ~Copyable {
  /// Even when no write is under way, odd during one; it grows by two with every write, so a reader
  /// that sees it unchanged saw no write at all (never reused, unlike generations, which restart when a
  /// box is bound to another store).
  @usableFromInline let sequence = Atomic<UInt>(0)
  /// The generation of the value in the words: ``emptyGeneration`` for none, ``fixedGeneration`` for
  /// a restart-required setting's running value.
  @usableFromInline let generation = Atomic<Int>(emptyGeneration)
  /// The bytes of the cached `Value?`.
  @usableFromInline let word0 = Atomic<UInt>(0)
  @usableFromInline let word1 = Atomic<UInt>(0)
  @usableFromInline let word2 = Atomic<UInt>(0)
  /// The bound store (`nil` while unbound), retained by the cache: the box keeps no other reference to
  /// it. It changes only in `bind`, which runs only while a group is being initialized, before any
  /// other thread can read its settings, with the box's lock held; so a reader never sees a store that
  /// has been freed, and one that takes it as a reference (``boundStore``) holds the lock.
  @usableFromInline let store = Atomic<UnsafeRawPointer?>(nil)

  /// The generation of an empty cache: a store's generations are never negative.
  @usableFromInline static var emptyGeneration: Int { -1 }
  /// The generation of a restart-required setting's running value once fixed: valid at every
  /// generation, pinned or not.
  @usableFromInline static var fixedGeneration: Int { .max }

  init() {}

  deinit {
    if let store = store.load(ordering: .acquiring) { Unmanaged<SettingsStore>.fromOpaque(store).release() }
  }

  /// Whether the cache is bound to a store.
  @inlinable var isBound: Bool { store.load(ordering: .acquiring) != nil }

  /// The bound store, as a reference. Called with the box's lock held.
  var boundStore: SettingsStore? {
    store.load(ordering: .acquiring).map { Unmanaged<SettingsStore>.fromOpaque($0).takeUnretainedValue() }
  }

  /// Whether values of this type are cached here (plain data of at most three words with their
  /// optional's tag), rather than only in the box's locked state. Constant once specialized.
  @inlinable static var isLockFree: Bool {
    _isPOD(Value.self) && MemoryLayout<Value?>.size <= 3 * MemoryLayout<UInt>.size
      && MemoryLayout<Value?>.alignment <= MemoryLayout<UInt>.alignment
  }

  /// The cached value if it is valid now (the outer optional is the miss; the inner one is a required
  /// setting without a value). Writes nothing.
  @inlinable
  func load() -> Value?? {
    guard Self.isLockFree, let store = store.load(ordering: .acquiring), let entry = entry(),
      Self.isCurrent(entry.generation, in: store)
    else { return nil }
    return .some(entry.value)
  }

  /// The cached generation and value as one consistent pair, whatever the store's generation, or `nil`
  /// when a write is under way or happened meanwhile (or the type is not cached here).
  @inlinable
  func entry() -> (generation: Int, value: Value?)? {
    guard Self.isLockFree else { return nil }
    let before = sequence.load(ordering: .acquiring)
    guard before & 1 == 0 else { return nil }
    let generation = self.generation.load(ordering: .relaxed)
    let size = MemoryLayout<Value?>.size
    let words = (
      word0.load(ordering: .relaxed),
      size > MemoryLayout<UInt>.size ? word1.load(ordering: .relaxed) : 0,
      size > 2 * MemoryLayout<UInt>.size ? word2.load(ordering: .relaxed) : 0
    )
    atomicMemoryFence(ordering: .acquiring)
    guard sequence.load(ordering: .relaxed) == before else { return nil }
    return (generation, withUnsafeBytes(of: words) { $0.load(as: Value?.self) })
  }

  /// Whether a value cached for `generation` is valid now in the store `store` points to (the rule
  /// stated on the type). Reads the store's atomics through an unretained reference: no reference
  /// count changes.
  @inlinable
  static func isCurrent(_ generation: Int, in store: UnsafeRawPointer) -> Bool {
    if generation == fixedGeneration { return true }
    return Unmanaged<SettingsStore>.fromOpaque(store)._withUnsafeGuaranteedRef { store in
      store.pinCount.load(ordering: .relaxed) == 0
        && generation == store.generationCounter.load(ordering: .acquiring)
    }
  }

  /// Whether a value cached for `generation` is valid now in the bound store (`false` while unbound).
  @inlinable
  func isCurrent(_ generation: Int) -> Bool {
    guard let store = store.load(ordering: .acquiring) else { return false }
    return Self.isCurrent(generation, in: store)
  }

  /// Caches `value` for `generation` (``emptyGeneration`` empties the cache). Called with the box's
  /// lock held.
  func publish(generation: Int, value: Value?) {
    guard Self.isLockFree else { return }
    var words: (UInt, UInt, UInt) = (0, 0, 0)
    withUnsafeMutableBytes(of: &words) { $0.storeBytes(of: value, as: Value?.self) }
    let current = sequence.load(ordering: .relaxed)
    sequence.store(current &+ 1, ordering: .relaxed)
    atomicMemoryFence(ordering: .releasing)
    self.generation.store(generation, ordering: .relaxed)
    word0.store(words.0, ordering: .relaxed)
    word1.store(words.1, ordering: .relaxed)
    word2.store(words.2, ordering: .relaxed)
    sequence.store(current &+ 2, ordering: .releasing)
  }

  /// Points the cache at a newly bound store (`nil`: unbound), retaining it, and releases the store
  /// it was bound to. Called with the box's lock held, by `bind`, which also publishes the state for
  /// the new store.
  func bind(to store: SettingsStore?) {
    let old = self.store.exchange(
      store.map { UnsafeRawPointer(Unmanaged.passRetained($0).toOpaque()) }, ordering: .acquiringAndReleasing)
    if let old { Unmanaged<SettingsStore>.fromOpaque(old).release() }
  }
}
