/// The merged configuration at one moment: every key's effective value, where it came from, and the
/// lower values it hides.
///
/// A snapshot is immutable and shared; the store swaps in a new one (with the next generation number)
/// when a source changes, so a reader always sees one whole generation.
public final class Snapshot: Sendable, CustomReflectable {
  /// One leaf key of the merged configuration.
  public struct Entry: Sendable {
    /// The key, such as `server.port` (a name holding a dot is quoted: see ``SettingKey``).
    public var key: String
    /// The effective value (its origin says where it came from).
    public var value: SettingValue
    /// The scope of the layer that supplied it.
    var scope: Scope
    /// The values of lower layers that this one hides, nearest first.
    var shadowed: [Shadowed]
    /// Whether the value is a secret: it came from a secret source (a Secret volume), or its key (or a
    /// table above it) is declared secret (a `.secret` setting's). Its descriptions never
    /// show the value, nor the values it shadows.
    public var isSecret = false

    /// Where the effective value came from (`value.origin`).
    package var origin: Origin { value.origin }
  }

  /// A document of the merged stack, with the scope of the layer it came from.
  package struct Source: Sendable {
    /// The scope of its layer.
    package var scope: Scope
    /// The document.
    package var document: Document

    /// Creates a source.
    init(scope: Scope, document: Document) {
      self.scope = scope
      self.document = document
    }
  }

  /// A lower value hidden by the effective one (the public face is ``Snapshot/HiddenValue``).
  struct Shadowed: Sendable {
    /// The hidden value.
    var value: SettingValue
    /// The scope it came from.
    var scope: Scope
    var isSecret = false
  }

  /// Increases by one with every reload that changed something.
  public let generation: Int
  /// The merged tree (tables merged key by key, later layers winning per leaf, arrays replacing).
  public let root: SettingValue
  /// Every leaf key in order of first appearance.
  package var keys: [String] { index.keys }
  /// Problems found while loading (files that were skipped, warnings).
  public let diagnostics: [Diagnostic]
  /// The documents that were merged, lowest first, with their scopes.
  package let sources: [Snapshot.Source]
  /// Keys declared secret (a store's `.secret` settings): redacted like values from secret sources.
  package let declaredSecretKeys: Set<String>
  /// The flat index of leaf entries, built on first use: a tree that is loaded and only walked (a dump
  /// of one file, a parse benchmark) never pays for it; a store builds it at every reload.
  private let lazyIndex = Locked<FlatIndex?>(nil)

  struct FlatIndex: Sendable {
    var keys: [String] = []
    var entriesByKey: [String: Entry] = [:]
  }

  private var index: FlatIndex {
    if let built = lazyIndex.withLock({ $0 }) { return built }
    let built = Self.flatten(sources: sources, root: root, declaredSecretKeys: declaredSecretKeys)
    return lazyIndex.withLock { current in
      if let current { return current }
      current = built
      return built
    }
  }
  var entriesByKey: [String: Entry] { index.entriesByKey }

  /// Merges documents, lowest first.
  /// - Parameters:
  ///   - generation: the generation number.
  ///   - sources: the documents, lowest first, with their scopes.
  ///   - diagnostics: problems found loading them.
  ///   - secretKeys: keys whose values are secrets wherever they come from (a store passes the keys of
  ///     its `.secret` settings); a table key covers everything below it.
  init(
    generation: Int, sources: [Snapshot.Source], diagnostics: [Diagnostic] = [],
    secretKeys: Set<String> = []
  ) {
    self.generation = generation
    self.sources = sources
    self.diagnostics = diagnostics
    self.declaredSecretKeys = secretKeys
    var roots: [Layered] = []
    for (position, source) in sources.enumerated() {
      roots.append(Layered(value: source.document.root, source: position))
    }
    root = Self.mergeTrees(roots, rootOrigin: .codeDefault)
  }

  /// An empty snapshot (generation 0).
  package static let empty = Snapshot(generation: 0, sources: [])

  /// The entry for a leaf key, or `nil`.
  ///
  /// Found in the trees when the flat index has not been built (a store looks up only its settings'
  /// keys, so a reload never pays for indexing every key), else in the index.
  public func entry(forKey key: String) -> Entry? {
    if let built = lazyIndex.withLock({ $0 }) { return built.entriesByKey[key] }
    return lookUpEntry(key: key, names: SettingKey.names(in: key))
  }

  /// The entry for a leaf key found by walking the merged tree and each source's tree: the same entry
  /// the flat index holds (the leaves at the key in every source, highest last, give the scope and the
  /// shadowed values).
  func lookUpEntry(key: String, names: [String]) -> Entry? {
    guard let value = root.value(atComponents: names), !value.isTable else { return nil }
    let declared = Self.isDeclaredSecret(key, in: declaredSecretKeys)
    if sources.count == 1 {
      return Entry(
        key: key, value: value, scope: sources[0].scope, shadowed: [],
        isSecret: declared || sources[0].document.isSecret)
    }
    var stack: [Shadowed] = []
    for source in sources {
      guard let leaf = source.document.root.value(atComponents: names), !leaf.isTable else { continue }
      stack.append(Shadowed(value: leaf, scope: source.scope, isSecret: declared || source.document.isSecret))
    }
    let top = stack.popLast()
    return Entry(
      key: key, value: value, scope: top?.scope ?? .defaults, shadowed: stack.reversed(),
      isSecret: declared || (top?.isSecret ?? false))
  }

  /// Whether `key`, or a table above it, is among `declared` (a secret table's leaves are secret).
  static func isDeclaredSecret(_ key: String, in declared: Set<String>) -> Bool {
    guard !declared.isEmpty else { return false }
    if declared.contains(key) { return true }
    // A few secrets (the usual case) are cheaper to compare than the key's parents are to build.
    if declared.count <= 8 { return declared.contains { !$0.isEmpty && SettingKey.isKey(key, within: $0) } }
    var current: String? = key
    while let name = current {
      if declared.contains(name) { return true }
      current = SettingKey.parent(of: name)
    }
    return false
  }

  /// The node at a key (a leaf or a table; see ``SettingKey``), or `nil`.
  package func value(forKey key: String) -> SettingValue? { root.value(at: key) }

  /// Every leaf entry, in key order of first appearance.
  public var entries: [Entry] { keys.compactMap { entriesByKey[$0] } }

  /// The keys to redact: those whose effective value came from a secret source, and the keys declared
  /// secret (`.secret` settings').
  package var secretKeys: Set<String> { Set(entries.filter(\.isSecret).map(\.key)).union(declaredSecretKeys) }

  /// Whether the value at `key` (a leaf or a table) is a secret: it came from a secret source, or the
  /// key or a table above it is declared secret (a `.secret` setting's).
  public func isSecret(forKey key: String) -> Bool {
    entry(forKey: key)?.isSecret == true || Self.isDeclaredSecret(key, in: declaredSecretKeys)
  }

  /// Whether any diagnostic is an error.
  package var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

  /// What `dump(snapshot)` and debuggers show: the generation, each key with its value as text (secrets
  /// redacted) and origin, and the diagnostics.
  public var customMirror: Mirror {
    Mirror(
      self,
      children: [
        "generation": generation,
        "entries": entries.map(\.description),
        "diagnostics": diagnostics.map(\.description),
      ], displayStyle: .class)
  }
}

extension Snapshot {
  /// One source's node at some path, and which source it came from.
  struct Layered {
    var value: SettingValue
    var source: Int
  }

  /// Merges the nodes found at one path, lowest first: the highest node wins unless it and the nodes
  /// right below it are tables, which merge key by key (later ones winning per key, the first position
  /// of a key kept, the lowest table's origin kept). A lone table is taken as it is, without copying.
  /// - Parameter rootOrigin: for the root, its origin (the root of a snapshot is `default`, and an
  ///   empty table when there is nothing to merge).
  static func mergeTrees(_ nodes: [Layered], rootOrigin: Origin? = nil) -> SettingValue {
    guard let top = nodes.last else { return .emptyTable(origin: rootOrigin ?? .codeDefault) }
    guard top.value.isTable else { return top.value }
    var start = nodes.count - 1
    while start > 0 && nodes[start - 1].value.isTable { start -= 1 }
    if start == nodes.count - 1 {
      guard let rootOrigin else { return top.value }
      return SettingValue(top.value.kind, origin: rootOrigin)
    }
    var order: [String] = []
    var children: [String: [Layered]] = [:]
    for node in nodes[start...] {
      guard let table = node.value.table else { continue }
      for (key, value) in table {
        if children[key] == nil { order.append(key) }
        children[key, default: []].append(Layered(value: value, source: node.source))
      }
    }
    var entries: [SettingTable.Entry] = []
    entries.reserveCapacity(order.count)
    for key in order {
      entries.append(SettingTable.Entry(key: key, value: mergeTrees(children[key]!)))
    }
    return SettingValue(
      .table(SettingTable(distinctEntries: entries)), origin: rootOrigin ?? nodes[start].value.origin)
  }

  /// The leaf entries of a merged tree, each with the lower values it hides (the leaves at the same key
  /// in lower sources), in order of first appearance.
  static func flatten(sources: [Snapshot.Source], root: SettingValue, declaredSecretKeys: Set<String> = [])
    -> FlatIndex
  {
    var history: [String: [Shadowed]] = [:]
    if sources.count > 1 {
      for source in sources {
        let (scope, document) = (source.scope, source.document)
        document.root.forEachLeaf { key, value in
          history[key, default: []].append(Shadowed(value: value, scope: scope, isSecret: document.isSecret))
        }
      }
    }
    var index = FlatIndex()
    index.entriesByKey.reserveCapacity(history.count)
    let single = sources.count == 1 ? sources[0] : nil
    root.forEachLeaf { key, value in
      index.keys.append(key)
      let declared = isDeclaredSecret(key, in: declaredSecretKeys)
      if let single {
        index.entriesByKey[key] = Entry(
          key: key, value: value, scope: single.scope, shadowed: [],
          isSecret: declared || single.document.isSecret)
        return
      }
      var stack = history[key] ?? []
      if declared {
        for position in stack.indices { stack[position].isSecret = true }
      }
      let top = stack.popLast()
      index.entriesByKey[key] = Entry(
        key: key, value: value, scope: top?.scope ?? .defaults, shadowed: stack.reversed(),
        isSecret: declared || (top?.isSecret ?? false))
    }
    return index
  }

}

extension Snapshot.Entry {
  /// Equal in value, origin, scope, secrecy and every shadowed value.
  func isIdentical(to other: Snapshot.Entry) -> Bool {
    scope == other.scope && isSecret == other.isSecret && value.isIdentical(to: other.value)
      && shadowed.count == other.shadowed.count
      && zip(shadowed, other.shadowed).allSatisfy {
        $0.scope == $1.scope && $0.isSecret == $1.isSecret && $0.value.isIdentical(to: $1.value)
      }
  }
}

extension SettingValue {
  /// Merges `other` over this tree: tables merge key by key, anything else replaces.
  mutating func merge(_ other: SettingValue) {
    guard var mine = table, let theirs = other.table else {
      self = other
      return
    }
    for (key, value) in theirs {
      if var existing = mine[key], existing.isTable, value.isTable {
        existing.merge(value)
        mine[key] = existing
      } else {
        mine[key] = value
      }
    }
    kind = .table(mine)
  }

  /// Calls `body` with the key (see ``SettingKey``) and value of every leaf (anything not a table), in
  /// order.
  func forEachLeaf(prefix: String = "", _ body: (String, SettingValue) -> Void) {
    guard let table else {
      body(prefix, self)
      return
    }
    for (name, value) in table {
      value.forEachLeaf(prefix: SettingKey.appending(name, to: prefix), body)
    }
  }
}
