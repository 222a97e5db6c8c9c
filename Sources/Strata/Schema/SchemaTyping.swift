#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension SettingsSchema {
  /// A layer holding every declared default (secrets without a default are left out).
  package var defaultsLayer: StaticLayer {
    var root = SettingValue.emptyTable(origin: .codeDefault)
    for entry in entries {
      guard var value = entry.defaultValue else { continue }
      value.setOriginRecursively(.codeDefault)
      root.set(value, at: entry.key)
    }
    return StaticLayer(scope: .defaults, name: "defaults", root: root)
  }

  /// The snapshot with every declared value converted to its type (INI and environment strings become
  /// integers, booleans, lists…), values that do not convert dropped from their layer so that the next
  /// lower layer's value applies, old keys (aliases) moved to their setting's key, and warnings for
  /// unknown and old keys; then an error for each required setting left without a value.
  /// - Parameters:
  ///   - snapshot: the merged layers, as loaded.
  ///   - resolvePath: where the files are read (under a root), to point unknown keys at the key.
  ///   - placesToSet: where a key can be set, highest layer first (`--server.port`, `DEMO_SERVER_PORT`,
  ///     `/etc/demo/demo.ini`: each ``PlaceDescribingLayer``'s answer), for the errors about missing
  ///     required settings.
  package func applied(
    to snapshot: Snapshot, resolvePath: @escaping @Sendable (String) -> String = { $0 },
    placesToSet: (String) -> [String] = { _ in [] }
  ) -> Snapshot {
    var diagnostics = snapshot.diagnostics
    var documents = snapshot.sources.map(\.document)
    for entry in entries where !entry.aliases.isEmpty {
      let renamed = RenamedKeyCandidates(key: entry.key, aliases: entry.aliases, resolvePath: resolvePath)
      documents = renamed.renamed(documents, diagnostics: &diagnostics)
    }
    var rejectedStructs: Set<String> = []
    var sources = zip(snapshot.sources, documents).map { source, document in
      var document = document
      document.root = typed(document.root, prefix: "", diagnostics: &diagnostics, rejected: &rejectedStructs)
      return Snapshot.Source(scope: source.scope, document: document)
    }
    // The program reads a struct from the layers' merged table and rejects it whole for one bad field:
    // every layer's part goes, and the default applies.
    for index in sources.indices where sources[index].scope != .defaults {
      for key in rejectedStructs { sources[index].document.root.remove(at: key) }
    }
    let converted = Snapshot(generation: snapshot.generation, sources: sources, diagnostics: diagnostics)
    let missing = entries.filter { $0.isRequired && converted.value(forKey: $0.key) == nil }.map { entry in
      Diagnostic(.error, StrataError.missingRequired(key: entry.key, places: placesToSet(entry.key)))
    }
    return Snapshot(
      generation: snapshot.generation, sources: sources,
      diagnostics: diagnostics + unknownKeys(in: converted, resolvePath: resolvePath) + missing,
      secretKeys: snapshot.declaredSecretKeys)
  }

  /// - Parameter rejected: receives the keys of struct settings with a field that does not convert.
  private func typed(
    _ node: SettingValue, prefix: String, diagnostics: inout [Diagnostic], rejected: inout Set<String>
  ) -> SettingValue {
    guard case .table(let table) = node.kind else { return node }
    var result = SettingTable()
    for (name, child) in table {
      let key = SettingKey.appending(name, to: prefix)
      if let entry = entry(forKey: key) {
        do throws(StrataError) {
          result[name] = try checked(child, entry: entry, key: key)
        } catch {
          diagnostics.append(Diagnostic(.error, error))
          if entry.fields != nil { rejected.insert(key) }
        }
      } else {
        result[name] = typed(child, prefix: key, diagnostics: &diagnostics, rejected: &rejected)
      }
    }
    return SettingValue(.table(result), origin: node.origin)
  }

  /// A declared value converted to its type (a case name in another letter case read as the case), its
  /// allowed values and bounds checked: what a program declaring the setting would accept.
  /// - Throws: the error a program would report, at the value's origin (a secret's value never shown).
  func checked(_ child: SettingValue, entry: Entry, key: String) throws(StrataError) -> SettingValue {
    do throws(StrataError) {
      var converted = try convert(child, to: entry.type, key: key)
      // A struct's fields convert as the program reads them: a bad one rejects the whole table.
      if let fields = entry.fields, converted.isTable {
        converted = try fields.converted(converted, key: key, in: self)
      }
      // A case name in another letter case (`DEBUG`) is the case, as the program reads it.
      if let allowed = entry.allowedValues, case .string(let text) = converted.kind,
        !allowed.contains(text)
      {
        let matches = allowed.filter { $0.lowercased() == text.lowercased() }
        if matches.count == 1 { converted = SettingValue(.string(matches[0]), origin: converted.origin) }
      }
      if let allowed = entry.allowedValues, !allowed.contains(ValueText.plain(converted)) {
        let shown = entry.traits.contains(.secret) ? redactedText : child.description
        throw located(
          StrataError(
            .invalidValue,
            "expected one of \(allowed.joined(separator: ", ")) for \(key), found \(shown)"), child.origin
        )
      }
      if let bound = Self.bound(converted, entry: entry) {
        let shown = entry.traits.contains(.secret) ? redactedText : ValueText.plain(converted)
        let rule = entry.validationSummary ?? bound
        throw located(
          StrataError(.invalidValue, "invalid value \(shown) for \(key): \(rule)"), child.origin)
      }
      return converted
    } catch {
      var error = error
      if entry.traits.contains(.secret) && (error.code != .invalidValue || entry.fields != nil) {
        error.message = "expected \(entry.type) for \(key), found \(redactedText)"
      }
      throw located(error, child.origin)
    }
  }

  /// Which bound a number breaks (`must be at least 1`), or `nil`.
  private static func bound(_ value: SettingValue, entry: Entry) -> String? {
    guard let number = numeric(value) else { return nil }
    if let minimum = entry.minimum, let low = numeric(minimum), number < low {
      return "must be at least \(ValueText.plain(minimum))"
    }
    if let maximum = entry.maximum, let high = numeric(maximum), number > high {
      return "must be at most \(ValueText.plain(maximum))"
    }
    return nil
  }

  private static func numeric(_ value: SettingValue) -> Double? {
    switch value.kind {
    case .integer(let int): Double(int)
    case .unsignedInteger(let uint): Double(uint)
    case .double(let double): double
    default: nil
    }
  }

  /// Converts one value to a schema type with the decoder's rules; the origin is kept.
  func convert(_ value: SettingValue, to type: ValueType, key: String) throws(StrataError) -> SettingValue {
    let decoder = SettingDecoder()
    let kind: SettingValue.Kind
    switch type {
    case .optional(let wrapped): return try convert(value, to: wrapped, key: key)
    case .integer: kind = .integer(try decoder.decode(Int.self, from: value, key: key))
    case .number: kind = .double(try decoder.decode(Double.self, from: value, key: key))
    case .boolean: kind = .bool(try decoder.decode(Bool.self, from: value, key: key))
    case .string(let format):
      switch format {
      case "date-time": kind = .date(try decoder.decode(Date.self, from: value, key: key))
      case "byte": kind = .data(try decoder.decode(Data.self, from: value, key: key))
      case "duration":
        _ = try decoder.decode(Duration.self, from: value, key: key)
        kind = value.kind
      case "byte-size":
        _ = try decoder.decode(ByteSize.self, from: value, key: key)
        kind = value.kind
      case "uri":
        _ = try decoder.decode(URL.self, from: value, key: key)
        kind = value.kind
      default: kind = .string(try decoder.decode(String.self, from: value, key: key))
      }
    case .array(let element):
      var items: [SettingValue]
      if case .array(let existing) = value.kind {
        items = existing
      } else {
        items = try decoder.decode([String].self, from: value, key: key).map {
          SettingValue(.string($0), origin: value.origin)
        }
      }
      items = try items.map { item throws(StrataError) in try convert(item, to: element, key: key) }
      kind = .array(items)
    case .map, .object:
      guard value.isTable else {
        throw located(
          StrataError(.typeMismatch, "expected a table for \(key), found \(value.description)"), value.origin)
      }
      kind = value.kind
    }
    return SettingValue(kind, origin: value.origin)
  }
}

extension SettingsSchema.ValueType: CustomStringConvertible {
  /// The JSON Schema name: `integer`, `array of integer`, `string (duration)`.
  package var description: String {
    switch self {
    case .string(let format?): "string (\(format))"
    case .string: "string"
    case .integer: "integer"
    case .number: "number"
    case .boolean: "boolean"
    case .array(let element): "array of \(element)"
    case .map(let element): "table of \(element)"
    case .object: "table"
    case .optional(let wrapped): "\(wrapped) or nothing"
    }
  }
}

extension SettingValue {
  /// Sets the origin of this node and every node below it.
  mutating func setOriginRecursively(_ origin: Origin) {
    self.origin = origin
    switch kind {
    case .table(var table):
      for (key, var value) in table {
        value.setOriginRecursively(origin)
        table[key] = value
      }
      kind = .table(table)
    case .array(var items):
      for index in items.indices { items[index].setOriginRecursively(origin) }
      kind = .array(items)
    default: break
    }
  }
}

extension Snapshot {
  /// The same snapshot with the values at `keys` (and below them) replaced by `<redacted>`, effective and
  /// shadowed alike, origins kept.
  package func redacting(_ keys: Set<String>) -> Snapshot {
    guard !keys.isEmpty else { return self }
    let sources = sources.map { source in
      var document = source.document
      document.root = document.root.redacting(keys, prefix: "")
      return Snapshot.Source(scope: source.scope, document: document)
    }
    return Snapshot(
      generation: generation, sources: sources, diagnostics: diagnostics, secretKeys: declaredSecretKeys)
  }
}

extension SettingValue {
  fileprivate func redacting(_ keys: Set<String>, prefix: String) -> SettingValue {
    if keys.contains(prefix) { return SettingValue(.string(redactedText), origin: origin) }
    guard case .table(let table) = kind else { return self }
    var result = SettingTable()
    for (name, child) in table {
      result[name] = child.redacting(keys, prefix: SettingKey.appending(name, to: prefix))
    }
    return SettingValue(.table(result), origin: origin)
  }
}
