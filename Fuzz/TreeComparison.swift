import FoundationEssentials

/// Content equality of trees for round-trip checks, with the differences a format documents allowed.
struct TreeComparison {
  /// Compare dates by whole seconds, rounded toward the past (XML property lists drop the fraction).
  var wholeSecondDates = false
  /// Compare tables as sets of keys (INI writes a table's scalars before its subtables).
  var ignoresTableOrder = false
  /// How far apart, relative to their size, two dates may be (TOML writes them to the microsecond).
  var dateTolerance = 0.0

  /// Whether two trees hold the same content; NaN equals NaN, since a format can carry it through.
  func same(_ a: SettingValue, _ b: SettingValue) -> Bool {
    switch (a.kind, b.kind) {
    case (.double(let x), .double(let y)):
      return x == y || (x.isNaN && y.isNaN)
    case (.date(let x), .date(let y)):
      if dateTolerance > 0 {
        let (a, b) = (x.timeIntervalSince1970, y.timeIntervalSince1970)
        return abs(a - b) <= dateTolerance * max(1, abs(a) / 1e9)
      }
      guard wholeSecondDates else { return x == y }
      return x.timeIntervalSince1970.rounded(.down) == y.timeIntervalSince1970.rounded(.down)
    case (.array(let x), .array(let y)):
      return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
    case (.table(let x), .table(let y)):
      guard x.count == y.count else { return false }
      if ignoresTableOrder {
        return x.allSatisfy { entry in y[entry.key].map { same(entry.value, $0) } ?? false }
      }
      return zip(x, y).allSatisfy { $0.key == $1.key && same($0.value, $1.value) }
    default:
      return a.kind == b.kind
    }
  }

  /// A short rendering for failure messages.
  static func describe(_ value: SettingValue) -> String {
    let text = value.description
    return text.count > 300 ? String(text.prefix(300)) + "…" : text
  }
}

extension SettingValue {
  /// Every node below and including this one, depth first, stopping after `limit` nodes.
  func nodes(limit: Int) -> [SettingValue] {
    var result: [SettingValue] = []
    var stack = [self]
    while let node = stack.popLast(), result.count < limit {
      result.append(node)
      switch node.kind {
      case .array(let items): stack.append(contentsOf: items.reversed())
      case .table(let table): stack.append(contentsOf: table.map(\.value).reversed())
      default: break
      }
    }
    return result
  }

  /// Whether the tree holds what an XML property list cannot: a string (or key) with a control
  /// character other than tab, LF and CR, or a date outside 0000-01-01T00:00:00Z..<10000-01-01.
  var hasWhatXMLCannotHold: Bool {
    func unsafe(_ s: String) -> Bool {
      s.utf8.contains { ($0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D) || $0 == 0x7F }
    }
    switch kind {
    case .string(let s): return unsafe(s)
    case .date(let d): return !(-62_167_219_200..<253_402_300_800).contains(d.timeIntervalSince1970)
    case .array(let items): return items.contains { $0.hasWhatXMLCannotHold }
    case .table(let table): return table.contains { unsafe($0.key) || $0.value.hasWhatXMLCannotHold }
    default: return false
    }
  }
}
