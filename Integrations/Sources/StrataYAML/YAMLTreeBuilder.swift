import Strata
import Yams

/// Turns the node tree Yams composed into Strata's tree: the core schema's scalars, mappings with
/// string keys (merge keys `<<` applied), sequences; every node with its line and byte column.
///
/// Yams gives an alias the very node its anchor names, so that a small document can stand for a huge
/// tree (a billion laughs): every node this walk makes counts towards `ParseOptions.maxValues`, and the
/// walk stops there.
struct YAMLTreeBuilder {
  let path: String
  var text: YAMLText
  let maxValues: Int
  let maxDepth: Int
  /// Nodes made so far, aliases counted at every use.
  private var made = 0
  /// Warnings: `null` elements of sequences, which are dropped.
  private(set) var diagnostics: [Diagnostic] = []

  /// Whether the file has an alias: the limit's message says which kind of document reached it.
  let hasAliases: Bool

  init(path: String, text: YAMLText, options: ParseOptions, hasAliases: Bool) {
    self.hasAliases = hasAliases
    self.path = path
    self.text = text
    self.maxValues = options.maxValues
    self.maxDepth = options.maxDepth
  }

  /// The tree of a document: a table at the top (an empty document is an empty table).
  mutating func root(_ node: Node?) throws(StrataError) -> SettingValue {
    guard let node else {
      return SettingValue(.table(SettingTable()), origin: .file(path: path, line: 1, column: 1))
    }
    if case .mapping = node {
      return try value(node, depth: 1) ?? SettingValue(.table(SettingTable()), origin: origin(node.mark))
    }
    if case .scalar(let scalar) = node, try resolve(scalar) == .null {
      return SettingValue(.table(SettingTable()), origin: origin(node.mark))
    }
    throw error(
      .typeMismatch,
      "the top of a configuration file must be a mapping ('key: value' lines), not a \(kindName(node))",
      at: node.mark)
  }

  private mutating func origin(_ mark: Mark?) -> Origin { text.origin(of: mark, path: path) }

  private mutating func error(_ code: StrataError.Code, _ message: String, at mark: Mark?) -> StrataError {
    let (line, column) = text.position(of: mark)
    return StrataError(code, message, path: path, line: line, column: column)
  }

  private func kindName(_ node: Node) -> String {
    switch node {
    case .scalar: "scalar"
    case .sequence: "sequence"
    case .mapping: "mapping"
    case .alias: "alias"
    }
  }

  /// A node's value; `nil` for `null`.
  private mutating func value(_ node: Node, depth: Int) throws(StrataError) -> SettingValue? {
    made += 1
    if made > maxValues {
      let message =
        hasAliases
        ? "the document expands to more than \(maxValues) values (ParseOptions.maxValues): its aliases "
          + "repeat the nodes they name (a billion-laughs document?)"
        : "the document has more than \(maxValues) values (ParseOptions.maxValues)"
      throw error(.tooManyValues, message, at: node.mark)
    }
    if depth > maxDepth {
      throw error(
        .nestingTooDeep, "nesting deeper than \(maxDepth) levels (ParseOptions.maxDepth)", at: node.mark)
    }
    switch node {
    case .scalar(let scalar):
      return try scalarValue(scalar)
    case .sequence(let sequence):
      try checkCollectionTag(sequence.tag, expected: .seq, at: sequence.mark)
      var elements: [SettingValue] = []
      elements.reserveCapacity(sequence.count)
      for element in sequence {
        if let value = try value(element, depth: depth + 1) {
          elements.append(value)
        } else {
          let (line, column) = text.position(of: element.mark)
          diagnostics.append(
            Diagnostic(
              .warning,
              StrataError(
                .invalidValue, "null has no meaning in a configuration; the sequence element is dropped",
                path: path, line: line, column: column)))
        }
      }
      return SettingValue(.array(elements), origin: origin(sequence.mark))
    case .mapping(let mapping):
      try checkCollectionTag(mapping.tag, expected: .map, at: mapping.mark)
      return try table(mapping, depth: depth)
    case .alias(let alias):
      // Yams resolves aliases while composing; a node of this kind only comes from code.
      throw error(.syntax, "an unresolved alias *\(alias.anchor.rawValue)", at: alias.mark)
    }
  }

  /// A mapping's table: keys in file order, a key set to `null` left out, `<<` merged in place.
  private mutating func table(_ mapping: Node.Mapping, depth: Int) throws(StrataError) -> SettingValue {
    enum Part {
      case entry(String, SettingValue)
      case merge(SettingValue, Mark?)
    }
    var parts: [Part] = []
    var written: [String: Mark?] = [:]
    for (keyNode, valueNode) in mapping {
      guard case .scalar(let key) = keyNode else {
        throw error(
          .typeMismatch, "a \(kindName(keyNode)) as a key; a key must be a string", at: keyNode.mark)
      }
      let keyTag = key.tag.rawValue
      if keyTag == Tag.Name.merge.rawValue || (keyTag.isEmpty && key.style == .plain && key.string == "<<") {
        guard let merged = try value(valueNode, depth: depth + 1) else { continue }
        parts.append(.merge(merged, valueNode.mark))
        continue
      }
      let name = try keyName(key)
      if let first = written[name] {
        let (line, column) = text.position(of: first)
        throw error(
          .duplicateKey, "duplicate key '\(name)' (first at \(path):\(line):\(column))", at: key.mark)
      }
      written[name] = key.mark
      if let value = try value(valueNode, depth: depth + 1) { parts.append(.entry(name, value)) }
    }
    var entries: [(String, SettingValue)] = []
    var present = Set(written.keys)
    for part in parts {
      switch part {
      case .entry(let name, let value):
        entries.append((name, value))
      case .merge(let merged, let mark):
        // A list of mappings merges the earlier ones first; a key given in the mapping itself wins.
        let tables: [SettingValue] = merged.table != nil ? [merged] : merged.arrayElements ?? []
        guard !tables.isEmpty || merged.arrayElements != nil, tables.allSatisfy({ $0.table != nil }) else {
          throw error(.typeMismatch, "a merge key '<<' takes a mapping or a list of mappings", at: mark)
        }
        for table in tables {
          for (name, value) in table.table! where present.insert(name).inserted {
            entries.append((name, value))
          }
        }
      }
    }
    return SettingValue(.table(SettingTable(entries)), origin: origin(mapping.mark))
  }

  /// A key's name: the text of a string scalar. Keys that the core schema reads as another type (`1`,
  /// `true`, `~`, `1.5`) are refused, so that `1: a` and `"1": b` cannot both stand for one name.
  ///
  /// Yams has resolved the tags of keys already (it compares keys by value and tag), with
  /// ``YAMLFormat``'s core-schema resolver.
  private mutating func keyName(_ key: Node.Scalar) throws(StrataError) -> String {
    let tag = key.tag.rawValue
    let isString: Bool
    switch tag {
    case "": isString = key.style != .plain || YAMLCoreSchema.resolvePlain(key.string) == .string
    case Tag.Name.str.rawValue, Tag.Name.nonSpecific.rawValue: isString = true
    case Tag.Name.null.rawValue, Tag.Name.bool.rawValue, Tag.Name.int.rawValue, Tag.Name.float.rawValue:
      isString = false
    default:
      throw error(
        .typeMismatch,
        "the tag \(Self.shortTag(tag)) is not supported: Strata reads YAML's core schema (!!str, !!int, "
          + "!!float, !!bool, !!null, !!seq, !!map)", at: key.mark)
    }
    guard isString else {
      throw error(
        .typeMismatch,
        "the key '\(key.string)' is not a string (YAML reads it as \(typeName(key))); quote it: \"\(key.string)\"",
        at: key.mark)
    }
    return key.string
  }

  private mutating func typeName(_ key: Node.Scalar) -> String {
    switch (try? resolve(key)) ?? .string {
    case .null: "null"
    case .bool: "a boolean"
    case .integer, .unsignedInteger, .integerOutOfRange: "an integer"
    case .double: "a number"
    case .string: "a string with the tag \(key.tag.rawValue)"
    }
  }

  /// A scalar's meaning under its tag: none (plain: the core schema; quoted or block: a string), a
  /// core tag, or the non-specific `!` (a string).
  private mutating func resolve(_ scalar: Node.Scalar) throws(StrataError) -> YAMLCoreSchema.Scalar {
    let tag = scalar.tag.rawValue
    switch tag {
    case "":
      return scalar.style == .plain ? YAMLCoreSchema.resolvePlain(scalar.string) : .string
    case Tag.Name.str.rawValue, Tag.Name.nonSpecific.rawValue:
      return .string
    case Tag.Name.int.rawValue:
      if let integer = YAMLCoreSchema.integer(scalar.string) { return integer }
    case Tag.Name.float.rawValue:
      if let double = YAMLCoreSchema.double(scalar.string) { return .double(double) }
      if let integer = YAMLCoreSchema.integer(scalar.string) {
        switch integer {
        case .integer(let value): return .double(Double(value))
        case .unsignedInteger(let value): return .double(Double(value))
        default: break
        }
      }
    case Tag.Name.bool.rawValue:
      if case .bool(let value) = YAMLCoreSchema.resolvePlain(scalar.string) { return .bool(value) }
    case Tag.Name.null.rawValue:
      if YAMLCoreSchema.resolvePlain(scalar.string) == .null { return .null }
    default:
      throw error(
        .typeMismatch,
        "the tag \(Self.shortTag(tag)) is not supported: Strata reads YAML's core schema (!!str, !!int, "
          + "!!float, !!bool, !!null, !!seq, !!map)", at: scalar.mark)
    }
    throw error(.invalidValue, "'\(scalar.string)' is not a valid \(Self.shortTag(tag))", at: scalar.mark)
  }

  private mutating func scalarValue(_ scalar: Node.Scalar) throws(StrataError) -> SettingValue? {
    let kind: SettingValue.Kind
    switch try resolve(scalar) {
    case .null: return nil
    case .bool(let value): kind = .bool(value)
    case .integer(let value): kind = .integer(value)
    case .unsignedInteger(let value): kind = .unsignedInteger(value)
    case .double(let value): kind = .double(value)
    case .string: kind = .string(scalar.string)
    case .integerOutOfRange:
      throw error(
        .invalidNumber, "the integer \(scalar.string) does not fit in 64 bits; quote it to keep it as text",
        at: scalar.mark)
    }
    return SettingValue(kind, origin: origin(scalar.mark))
  }

  private mutating func checkCollectionTag(_ tag: Tag, expected: Tag.Name, at mark: Mark?) throws(StrataError)
  {
    let name = tag.rawValue
    guard name.isEmpty || name == Tag.Name.nonSpecific.rawValue || name == expected.rawValue else {
      throw error(
        .typeMismatch,
        "the tag \(Self.shortTag(name)) is not supported here: Strata reads YAML's core schema (!!str, !!int, "
          + "!!float, !!bool, !!null, !!seq, !!map)", at: mark)
    }
  }

  /// `!!int` for `tag:yaml.org,2002:int`; other tags as written.
  static func shortTag(_ tag: String) -> String {
    let prefix = "tag:yaml.org,2002:"
    return tag.hasPrefix(prefix) ? "!!" + tag.dropFirst(prefix.count) : tag
  }
}

extension SettingValue {
  fileprivate var arrayElements: [SettingValue]? {
    if case .array(let elements) = kind { return elements }
    return nil
  }
}
