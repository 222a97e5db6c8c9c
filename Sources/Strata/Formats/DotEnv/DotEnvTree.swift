/// Builds a dotenv file's tree from its assignments: names nest; a key assigned again keeps its first
/// place in the table and takes the last value, with a warning naming both positions (as JSON and INI
/// do); a value and a table of the same name replace each other by the same rule.
struct DotEnvTree {
  private let path: String
  private let root: Table
  /// The warnings: duplicates and value/table replacements.
  private(set) var diagnostics = CappedDiagnostics()

  init(path: String) {
    self.path = path
    root = Table(origin: .file(path: path, line: 1, column: 1))
  }

  /// A table under construction: its names in order, and what each holds.
  private final class Table {
    let origin: Origin
    var order: [String] = []
    var slots: [String: Slot] = [:]

    init(origin: Origin) { self.origin = origin }

    /// The finished value. Depth is bounded by `ParseOptions.maxDepth`, checked per key by the parser.
    func build() -> SettingValue {
      let entries = order.map { name in
        switch slots[name]! {
        case .value(let value): SettingTable.Entry(key: name, value: value)
        case .table(let table): SettingTable.Entry(key: name, value: table.build())
        }
      }
      return SettingValue(.table(SettingTable(distinctEntries: entries)), origin: origin)
    }

    /// Puts `slot` under `name`: appended if new, else in the old one's place.
    func set(_ slot: Slot, for name: String) {
      if slots.updateValue(slot, forKey: name) == nil { order.append(name) }
    }
  }

  private enum Slot {
    case value(SettingValue)
    case table(Table)

    var origin: Origin {
      switch self {
      case .value(let value): value.origin
      case .table(let table): table.origin
      }
    }
  }

  /// Adds one assignment.
  mutating func add(_ entry: DotEnvEntry) {
    let keyOrigin = Origin.file(path: path, line: entry.keyLine, column: entry.keyColumn)
    var table = root
    for (depth, name) in entry.names.dropLast().enumerated() {
      switch table.slots[name] {
      case .table(let child)?:
        table = child
      case .value(let old)?:
        warn(
          "'\(SettingKey.join(entry.names.prefix(depth + 1)))' (set at \(old.origin)) becomes a table for "
            + "'\(entry.key)'; the last assignment wins", at: entry)
        fallthrough
      case nil:
        let child = Table(origin: keyOrigin)
        table.set(.table(child), for: name)
        table = child
      }
    }
    let name = entry.names[entry.names.count - 1]
    let value = SettingValue(
      .string(entry.value), origin: .file(path: path, line: entry.valueLine, column: entry.valueColumn))
    switch table.slots[name] {
    case .value(let old)?:
      warn(
        "duplicate key '\(entry.key)' (first set at \(old.origin)); "
          + "the last value wins", at: entry)
    case .table(let old)?:
      warn(
        "'\(SettingKey.join(entry.names))' was a table (set at \(old.origin)); the value set here replaces "
          + "it, the last assignment wins", at: entry)
    case nil: break
    }
    table.set(.value(value), for: name)
  }

  /// The tree, a table at the top.
  func build() -> SettingValue { root.build() }

  private mutating func warn(_ message: String, at entry: DotEnvEntry) {
    diagnostics.append(
      Diagnostic(
        .warning,
        StrataError(.duplicateKey, message, path: path, line: entry.keyLine, column: entry.keyColumn)))
  }
}
