import Strata

@testable import StrataEtcd

/// The specification the incremental ``EtcdTree`` is checked against: the whole-prefix build the etcd
/// source made before it applied changes per key (every key sorted and inserted again at each
/// change), kept as it was, so that the randomized test compares the incremental tree with it.
struct EtcdFullBuildReference {
  /// A key's last parse.
  private struct Parsed {
    var revision: Int
    var outcome: Result<(value: SettingValue, warnings: [Diagnostic]), StrataError>
  }

  /// The prefix, as bytes.
  let prefix: [UInt8]
  /// How values are read.
  let format: EtcdValueFormat
  private var parsed: [String: Parsed] = [:]
  private var lastGood: [String: SettingValue] = [:]

  init(prefix: [UInt8], format: EtcdValueFormat) {
    self.prefix = prefix
    self.format = format
  }

  /// The tree of `entries` (a whole range read, in key order) and what was wrong with them.
  mutating func build(_ entries: [EtcdConnection.Entry], options: ParseOptions) -> (
    root: SettingValue, diagnostics: [Diagnostic]
  ) {
    var root = SettingTable()
    var diagnostics: [Diagnostic] = []
    var seen: Set<String> = []
    for entry in entries.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
      guard let key = String(validating: entry.key, as: UTF8.self) else {
        diagnostics.append(
          Diagnostic(
            .warning,
            StrataError(.invalidUTF8, "a key below the prefix is not valid UTF-8; it is skipped", path: label)
          ))
        continue
      }
      let rest = key.utf8.dropFirst(prefix.count)
      guard !rest.isEmpty else { continue }  // the prefix itself names no setting
      let names = rest.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map {
        String(decoding: $0, as: UTF8.self)
      }
      // `app//port` or `app/port/` would silently become `app.port`, and then hide or be hidden by
      // the real `app/port`: a key with an empty name is left out, and said so.
      guard !names.contains("") else {
        diagnostics.append(
          Diagnostic(
            .warning,
            StrataError(
              .unknownKey,
              "'\(key)' has an empty name between slashes (or a slash at its start or end); it is skipped",
              path: "etcd:" + key)))
        continue
      }
      seen.insert(key)
      guard let value = value(of: key, entry: entry, options: options, diagnostics: &diagnostics) else {
        continue
      }
      if !Self.insert(value, at: names[...], into: &root) {
        diagnostics.append(
          Diagnostic(
            .warning,
            StrataError(
              .typeMismatch,
              "'\(SettingKey.join(names))' is both a value and a table of keys below it; the table is used",
              path: "etcd:" + key)))
      }
    }
    parsed = parsed.filter { seen.contains($0.key) }
    lastGood = lastGood.filter { seen.contains($0.key) }
    return (
      SettingValue(.table(root), origin: .remote(source: "etcd", key: label, revision: nil)), diagnostics
    )
  }

  /// The prefix as text, for messages.
  var label: String { String(decoding: prefix, as: UTF8.self) }

  /// The value of one key: parsed (or its last parse, when its revision is unchanged), else its last
  /// good value; `nil` when it has none. A parse error is added to `diagnostics`.
  private mutating func value(
    of key: String, entry: EtcdConnection.Entry, options: ParseOptions, diagnostics: inout [Diagnostic]
  ) -> SettingValue? {
    if parsed[key]?.revision != entry.modRevision {
      let outcome: Result<(value: SettingValue, warnings: [Diagnostic]), StrataError>
      do throws(StrataError) {
        let (value, warnings) = try format.parse(entry.value, path: "etcd:" + key, options: options)
        let origin = Origin.remote(source: "etcd", key: key, revision: entry.modRevision)
        outcome = .success((Self.relabel(value, origin), warnings))
      } catch {
        outcome = .failure(error)
      }
      parsed[key] = Parsed(revision: entry.modRevision, outcome: outcome)
    }
    switch parsed[key]!.outcome {
    case .success(let good):
      lastGood[key] = good.value
      diagnostics += good.warnings
      return good.value
    case .failure(let error):
      let kept = lastGood[key]
      var reported = error
      reported.message +=
        " (the value at revision \(entry.modRevision); "
        + (kept == nil ? "it is left out)" : "the last good value is kept)")
      diagnostics.append(Diagnostic(.error, reported))
      return kept
    }
  }

  /// `value` with every node's origin set to `origin`.
  private static func relabel(_ value: SettingValue, _ origin: Origin) -> SettingValue {
    switch value.kind {
    case .table(let table):
      SettingValue(.table(SettingTable(table.map { ($0.key, relabel($0.value, origin)) })), origin: origin)
    case .array(let elements):
      SettingValue(.array(elements.map { relabel($0, origin) }), origin: origin)
    default:
      SettingValue(value.kind, origin: origin)
    }
  }

  /// Puts `value` at the path `names` below `table`, merging tables; `false` when a value and a table
  /// met at one path (the table is kept).
  private static func insert(
    _ value: SettingValue, at names: ArraySlice<String>, into table: inout SettingTable
  )
    -> Bool
  {
    guard let name = names.first else { return true }
    let rest = names.dropFirst()
    let existing = table[name]
    if rest.isEmpty {
      guard let existing else {
        table[name] = value
        return true
      }
      guard var merged = existing.table, let incoming = value.table else {
        if existing.table != nil { return false }
        table[name] = value
        return value.table == nil || existing.table != nil
      }
      var clean = true
      for (key, child) in incoming { clean = insert(child, at: [key], into: &merged) && clean }
      table[name] = SettingValue(.table(merged), origin: existing.origin)
      return clean
    }
    var child: SettingTable
    var clean = true
    if let existing {
      if let existingTable = existing.table {
        child = existingTable
      } else {
        child = SettingTable()
        clean = false
      }
    } else {
      child = SettingTable()
    }
    clean = insert(value, at: rest, into: &child) && clean
    table[name] = SettingValue(
      .table(child), origin: existing?.table != nil ? existing!.origin : value.origin)
    return clean
  }
}
