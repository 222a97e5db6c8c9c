import FoundationEssentials

/// The conversion targets: environment variables into a tree, and tree nodes into Swift types.
enum ConversionTargets {
  /// The environment layer and the conversions of its string values.
  ///
  /// The input is lines: an app name (which gives the prefix), a key, a value, then `NAME=VALUE`
  /// variables and `@key` declared keys. The key's generated variable, set to the value, must come back
  /// at the key; the other variables go through the layer's matching and its warnings.
  static func environment(_ bytes: [UInt8]) {
    let lines = String(decoding: bytes, as: UTF8.self).split(
      separator: "\n", omittingEmptySubsequences: false
    )
    .map(String.init)
    let app = lines.first ?? ""
    let key = lines.count > 1 ? lines[1] : "server.port"
    let value = lines.count > 2 ? lines[2] : ""
    let prefix = EnvironmentNames.prefix(forApp: app)

    let name = EnvironmentNames.variableName(forKey: key, prefix: prefix)
    let single = EnvironmentLayer(prefix: prefix, variables: [name: value], declaredKeys: [key])
      .load(LoadContext())
    let found = single.documents.first?.root.value(at: key)
    if SettingKey.names(in: key).isEmpty {
      // The empty key is the root: no variable may replace the whole tree with a value.
      check(
        found.map { $0.isTable } ?? true,
        "variable \(name) for the empty key replaced the root with \(found.map(TreeComparison.describe) ?? "nothing")"
      )
    } else {
      check(
        found?.kind == .string(value),
        "variable \(name) for key '\(key)' gave \(found.map(TreeComparison.describe) ?? "nothing")")
    }
    if let node = found { checkScalars(node) }
    // The same variable finds the key when a file below holds it (walking from the name); the empty key
    // is the root, which no file can hold as a value.
    if !SettingKey.names(in: key).isEmpty {
      var lower = SettingValue.emptyTable(origin: .runtime)
      lower.set(SettingValue(.string("lower"), origin: .runtime), at: key)
      let walked = EnvironmentLayer(prefix: prefix, variables: [name: value])
        .load(LoadContext(lowerDocuments: [Document(path: "lower", root: lower)]))
      let foundByWalk = walked.documents.first?.root.value(at: key)
      check(
        foundByWalk?.kind == .string(value),
        "variable \(name) for key '\(key)' in a file below gave \(foundByWalk.map(TreeComparison.describe) ?? "nothing")"
      )
    }

    var variables: [String: String] = [:]
    var declared: [String] = []
    for line in lines.dropFirst(3) {
      if line.hasPrefix("@") {
        declared.append(String(line.dropFirst()))
      } else if let equals = line.firstIndex(of: "=") {
        variables[String(line[..<equals])] = String(line[line.index(after: equals)...])
      } else {
        variables[line] = value
      }
      _ = EnvironmentNames.fallbackKey(forVariable: line, prefix: prefix)
    }
    let contents = EnvironmentLayer(prefix: prefix, variables: variables, declaredKeys: declared)
      .load(LoadContext(declaredKeys: [key]))
    for diagnostic in contents.diagnostics { _ = diagnostic.description }
    for node in contents.documents.first?.root.nodes(limit: 8) ?? [] { checkScalars(node) }
  }

  /// The decoder over trees from JSON (or from a property list, for dates and data), or over the whole
  /// input as one string when it parses as neither.
  static func decoder(_ bytes: [UInt8]) {
    let root: SettingValue
    let origin = Origin.file(path: "/fuzz/input", line: 1, column: 1)
    if bytes.first == UInt8(ascii: "<") || bytes.starts(with: "bplist".utf8) {
      let document = try? PropertyListFormat().parse(
        bytes, path: "/fuzz/input.plist", options: ParseOptions())
      root = document?.root ?? SettingValue(.string(String(decoding: bytes, as: UTF8.self)), origin: origin)
    } else {
      let parsed = try? JSONParser.parseValue(
        bytes, path: "/fuzz/input.json", maxDepth: ParseOptions().maxDepth)
      root = parsed?.value ?? SettingValue(.string(String(decoding: bytes, as: UTF8.self)), origin: origin)
    }
    for node in root.nodes(limit: 16) { checkScalars(node) }
  }

  // MARK: - Checks

  /// Decodes a node as every representative type and checks that the results agree with each other
  /// and survive an encode and decode.
  static func checkScalars(_ node: SettingValue) {
    let int = decode(Int.self, node)
    let byte = decode(UInt8.self, node)
    switch (int, byte) {
    case (.success(let wide), .success(let narrow)):
      check(wide == Int(narrow), "Int \(wide) but UInt8 \(narrow) for \(describe(node))")
    case (.success(let wide), .failure(let error)):
      check(!(0...255).contains(wide), "Int \(wide) but UInt8 failed (\(error)) for \(describe(node))")
      check(error.code == .invalidValue, "UInt8 out of range is not invalidValue: \(error)")
    case (.failure(let error), .success(let narrow)):
      check(false, "UInt8 \(narrow) but Int failed (\(error)) for \(describe(node))")
    case (.failure(let wideError), .failure(let narrowError)):
      check(
        wideError.code != .typeMismatch || narrowError.code == .typeMismatch,
        "Int: \(wideError), but UInt8: \(narrowError)")
    }
    _ = decode(Int64.self, node)
    _ = decode(UInt64.self, node)

    if case .success(let flag) = decode(Bool.self, node), case .success(let number) = int {
      check(number == (flag ? 1 : 0), "Bool \(flag) but Int \(number) for \(describe(node))")
    }

    let double = decode(Double.self, node)
    if case .success(let d) = double, case .string = node.kind {
      check(d.isFinite, "text decoded as the Double \(d): \(describe(node))")
    }
    if case .success(let number) = int, number.magnitude < 1 << 53 {
      check(
        (try? double.get()) == Double(number),
        "Int \(number) but Double \(double) for \(describe(node))")
    }
    let float = decode(Float.self, node)
    if case .success = float {
      check((try? double.get()) != nil, "Float but not Double for \(describe(node))")
    }
    if case .success(let d) = double, d.magnitude <= Double(Float.greatestFiniteMagnitude) {
      check(
        (try? float.get()).map { $0 == Float(d) || $0.isNaN } == true,
        "Double \(d) but Float \(float) for \(describe(node))")
    }

    let duration = decode(Duration.self, node)
    if case .success(let d) = duration {
      let text = DurationText.format(d)
      check(DurationText.parse(text) == d, "Duration \(d) formats as '\(text)', which does not read back")
    }
    if case .string = node.kind, case .success(let seconds) = int {
      check(
        (try? duration.get()) == .seconds(seconds),
        "integer text \(describe(node)) is Int \(seconds) but Duration \(duration)")
    }

    if case .string(let text) = node.kind {
      check((try? decode(String.self, node).get()) == text, "a string did not decode as itself")
      // Text in brackets is a JSON array, read by the JSON parser rather than split on its commas.
      let trimmed = DurationText.trimmed(text)
      let isJSONArray = trimmed.hasPrefix("[") && trimmed.hasSuffix("]")
      if !isJSONArray, case .success(let list) = decode([String].self, node) {
        // Commas are characters: one followed by a combining mark is part of a grapheme, not a separator.
        let expected = trimmed.isEmpty ? 0 : text.count(where: { $0 == "," }) + 1
        check(list.count == expected, "\(describe(node)) split into \(list.count) items")
      }
    }

    roundTrip(Int.self, node)
    roundTrip(Int8.self, node)
    roundTrip(Bool.self, node)
    roundTrip(Double.self, node) { $0 == $1 || ($0.isNaN && $1.isNaN) }
    roundTrip(Float.self, node) { $0 == $1 || ($0.isNaN && $1.isNaN) }
    roundTrip(Duration.self, node)
    roundTrip(Date.self, node)
    roundTrip(Data.self, node)
    roundTrip(URL.self, node) { $0 == $1 || $0.isFileURL }
    roundTrip([String].self, node)
    roundTrip([Int].self, node)
    roundTrip(Set<String>.self, node)
    roundTrip([String: Int].self, node)
    roundTrip([String: [String]].self, node)
    roundTrip(Level.self, node)
    roundTrip(Priority.self, node)
    roundTrip(Endpoint.self, node)
    roundTrip([Endpoint].self, node)
    _ = decode(Int?.self, node)
    _ = decode(Limits?.self, node)
  }

  /// Decodes a node, keeping the error.
  static func decode<T: Decodable>(_ type: T.Type, _ node: SettingValue) -> Result<T, StrataError> {
    let result = Result { () throws(StrataError) in
      try SettingDecoder().decode(T.self, from: node, key: "fuzz")
    }
    if case .failure(let error) = result { _ = error.description }
    return result
  }

  /// When the node decodes as `T`, encoding the value and decoding the result gives the same value.
  static func roundTrip<T: Codable & Equatable>(
    _ type: T.Type, _ node: SettingValue, same: (T, T) -> Bool = { $0 == $1 }
  ) {
    guard case .success(let value) = decode(T.self, node) else { return }
    let encoded = FormatTargets.expectSuccess("encoding \(value)") { () throws(StrataError) in
      try SettingEncoder().encode(value)
    }
    guard let encoded else { return check(false, "encoding \(value) gave nothing") }
    let again = FormatTargets.expectSuccess("decoding \(TreeComparison.describe(encoded)) as \(T.self)") {
      () throws(StrataError) in try SettingDecoder().decode(T.self, from: encoded, key: "fuzz")
    }
    check(same(value, again), "\(T.self) \(value) encoded and decoded is \(again)")
  }

  private static func describe(_ node: SettingValue) -> String { TreeComparison.describe(node) }
}

// MARK: - Representative setting types

/// A string-backed enum, as settings declare log levels.
enum Level: String, Codable, Equatable {
  case debug, info, warning, error
}

/// An integer-backed enum.
enum Priority: Int, Codable, Equatable {
  case low = 1
  case high = 2
}

/// A nested struct with optionals, arrays, a dictionary and an enum.
struct Endpoint: Codable, Equatable {
  var host: String
  var port: UInt16?
  var tags: [String]?
  var timeout: Duration?
  var level: Level?
  var limits: Limits?
}

/// The nested part of ``Endpoint``.
struct Limits: Codable, Equatable {
  var maxBody: Int8?
  var enabled: Bool
  var flags: [String: Bool]?
  var window: [Duration]?
}
