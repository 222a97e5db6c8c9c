import Strata
import Yams

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Strata's tree as block-style YAML, through Yams' emitter.
enum YAMLSerializer {
  static func serialize(_ value: SettingValue) throws(StrataError) -> [UInt8] {
    guard value.table != nil else {
      throw StrataError(
        .typeMismatch, "the top of a YAML configuration must be a table, not \(value.typeName)")
    }
    do {
      let node = try node(value, depth: 1)
      let text = try Yams.serialize(node: node, width: -1, allowUnicode: true)
      return Array(text.utf8)
    } catch let error as StrataError {
      throw error
    } catch {
      throw StrataError(.writeFailed, "YAML could not be written: \(error)")
    }
  }

  private static func node(_ value: SettingValue, depth: Int) throws(StrataError) -> Node {
    guard depth <= 512 else { throw StrataError(.nestingTooDeep, "nesting deeper than 512 levels") }
    switch value.kind {
    case .string(let text): return string(text)
    case .integer(let integer): return Node(String(integer), Tag(.int), .plain)
    case .unsignedInteger(let integer): return Node(String(integer), Tag(.int), .plain)
    case .double(let double):
      let text =
        double.isNaN ? ".nan" : double.isInfinite ? (double < 0 ? "-.inf" : ".inf") : "\(double)"
      return Node(text, Tag(.float), .plain)
    case .bool(let bool): return Node(bool ? "true" : "false", Tag(.bool), .plain)
    case .date(let date): return string(date.formatted(.iso8601))
    case .data(let data): return string(data.base64EncodedString())
    case .array(let elements):
      var nodes: [Node] = []
      nodes.reserveCapacity(elements.count)
      for element in elements { nodes.append(try node(element, depth: depth + 1)) }
      return Node(nodes)
    case .table(let table):
      var pairs: [(Node, Node)] = []
      pairs.reserveCapacity(table.count)
      for (key, element) in table { pairs.append((string(key), try node(element, depth: depth + 1))) }
      return Node(pairs)
    }
  }

  /// A string, quoted when written plain it would read as another type or as YAML 1.1's booleans.
  private static func string(_ text: String) -> Node {
    let yaml11Words: Set<String> = [
      "yes", "Yes", "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF", "y", "Y", "n", "N", "<<",
      "=",
    ]
    let quoted = YAMLCoreSchema.resolvePlain(text) != .string || yaml11Words.contains(text)
    return Node(text, Tag(.str), quoted ? .doubleQuoted : .any)
  }
}
