import Foundation

@testable import Strata

/// A config-shaped JSON text: `objects` tables of `keysPerObject` mixed members (strings with escapes
/// and non-ASCII text, integers, doubles, booleans, arrays, nested tables), deterministic for a seed.
func configShapedJSON(objects: Int = 1_000, keysPerObject: Int = 20, seed: UInt64 = 1) -> String {
  var rng = SplitMix64(seed: seed)
  var text = "{\n"
  for object in 0..<objects {
    text += "  \"service_\(object)\": {\n"
    for key in 0..<keysPerObject {
      let r = rng.next()
      let value: String
      switch key % 8 {
      case 0: value = "\"https://host-\(r % 1000).internal.example.com:\(r % 65536)/api/v1\""
      case 1: value = String(Int64(truncatingIfNeeded: r) >> Int64(r % 63))
      case 2: value = String(Double(r % 10_000_000) / 1000)
      case 3: value = r % 2 == 0 ? "true" : "false"
      case 4: value = "[\(r % 100), \"tag-\(r % 7)\", \(Double(r % 1000) / 8), false]"
      case 5: value = "{\"cpu\": \(Double(r % 400) / 100), \"memory\": \(r % 65536), \"unit\": \"MiB\"}"
      case 6: value = #""line \"\#(r % 10)\"\n\ttab \\ café \u00e9 \ud83d\ude00 😀 \/""#
      default: value = "\(r % 2 == 0 ? "-" : "")\(r % 1000).\(r % 97)e\(Int(r % 40) - 20)"
      }
      text += "    \"setting_name_\(key)\": \(value)\(key + 1 < keysPerObject ? "," : "")\n"
    }
    text += "  }\(object + 1 < objects ? "," : "")\n"
  }
  return text + "}\n"
}

/// Whether a parsed tree holds the same values as what `JSONSerialization` read from the same text.
func sameContent(_ value: SettingValue, _ object: Any) -> Bool {
  switch value.kind {
  case .string(let text): return (object as? String) == text
  case .bool(let flag): return (object as? Bool) == flag
  case .integer(let integer): return (object as? NSNumber)?.int64Value == Int64(integer)
  case .double(let double): return (object as? NSNumber)?.doubleValue == double
  case .array(let elements):
    guard let others = object as? [Any], others.count == elements.count else { return false }
    return zip(elements, others).allSatisfy { sameContent($0, $1) }
  case .table(let table):
    guard let others = object as? [String: Any], others.count == table.count else { return false }
    return table.allSatisfy { entry in others[entry.key].map { sameContent(entry.value, $0) } ?? false }
  case .date, .data, .unsignedInteger: return false
  }
}
