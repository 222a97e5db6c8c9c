/// The fields a `Codable` struct's table may hold, at any depth, with their types: learnt by encoding
/// the declared default (a `nil` optional field included), so that a typo inside the table
/// (`http.tls.readTimeotu`) is an unknown key and `config-dump --schema` checks each field as the
/// program reads it. Exported in the JSON Schema as the setting's `properties`.
indirect enum FieldShape: Sendable, Equatable {
  /// A value of a type; `allowed` lists an enum's cases.
  case value(SettingsSchema.ValueType, allowed: [String]?)
  /// A dictionary, an array, or a struct with no default to learn from: any name below is accepted.
  case open
  /// A struct's fields, in declaration order.
  case fields([Field])

  /// One field of a struct.
  struct Field: Sendable, Equatable {
    var name: String
    var shape: FieldShape
  }

  /// The shape of an encoded box whose types were recorded.
  init(_ box: EncodingBox) {
    switch box.content {
    case .table(let table) where !box.sortsKeys:
      self = .fields(table.keys.map { Field(name: $0, shape: FieldShape(table.boxes[$0]!)) })
    case .empty:
      self = .fields([])
    case .table, .array:
      self = .open
    case .leaf(let kind):
      self = Self.value(box, SettingValue(kind, origin: .codeDefault))
    case .null:
      // A nil enum is typed by its first case, as the store types a nil optional enum setting.
      self = Self.value(box, box.allowedValues?.first.map { SettingValue(.string($0), origin: .codeDefault) })
    }
  }

  private static func value(_ box: EncodingBox, _ hint: SettingValue?) -> FieldShape {
    let type = SettingsSchema.ValueType(typeName: box.typeName ?? "", defaultValue: hint)
    return type.isTable ? .open : .value(type, allowed: box.allowedValues)
  }

  /// Whether the names below the setting's key (`["client", "required"]`) name a field, or lie inside
  /// a dictionary or array field.
  func accepts(_ names: ArraySlice<String>) -> Bool {
    guard let first = names.first else { return true }
    switch self {
    case .open: return true
    case .value: return false
    case .fields(let fields):
      return fields.first { $0.name == first }?.shape.accepts(names.dropFirst()) ?? false
    }
  }

  /// The full key of every field, at any depth, below `key`: the names a typo is compared with.
  func keys(below key: String) -> [String] {
    guard case .fields(let fields) = self else { return [] }
    return fields.flatMap { field in
      let fieldKey = SettingKey.appending(field.name, to: key)
      return [fieldKey] + field.shape.keys(below: fieldKey)
    }
  }

  /// The fields a single value can set, at most `maxDepth` names below `key` (a nested struct's own
  /// fields, not the struct itself): what an environment variable or an option may name. `isFlag`: a
  /// `Bool` field, a flag on a command line.
  func settableFields(below key: String, maxDepth: Int) -> [(key: String, isFlag: Bool)] {
    guard maxDepth > 0, case .fields(let fields) = self else { return [] }
    return fields.flatMap { field -> [(key: String, isFlag: Bool)] in
      let fieldKey = SettingKey.appending(field.name, to: key)
      switch field.shape {
      case .fields: return field.shape.settableFields(below: fieldKey, maxDepth: maxDepth - 1)
      case .open: return [(fieldKey, false)]
      case .value(let type, _): return [(fieldKey, type == .boolean || type == .optional(.boolean))]
      }
    }
  }

  /// A table converted field by field with the decoder's rules, as the program reads it; names that
  /// are not fields are kept (they are reported as unknown keys).
  /// - Throws: the first field that does not convert, at its position.
  func converted(_ node: SettingValue, key: String, in schema: SettingsSchema) throws(StrataError)
    -> SettingValue
  {
    switch self {
    case .open:
      return node
    case .value(let type, let allowed):
      let converted = try schema.convert(node, to: type, key: key)
      if let allowed, !allowed.contains(ValueText.plain(converted)),
        !allowed.contains(where: { $0.lowercased() == ValueText.plain(converted).lowercased() })
      {
        throw located(
          StrataError(
            .invalidValue,
            "expected one of \(allowed.joined(separator: ", ")) for \(key), found \(node.description)"),
          node.origin)
      }
      return converted
    case .fields(let fields):
      guard case .table(let table) = node.kind else {
        throw located(
          StrataError(.typeMismatch, "expected a table for \(key), found \(node.description)"), node.origin)
      }
      var result = SettingTable()
      for (name, child) in table {
        let fieldKey = SettingKey.appending(name, to: key)
        result[name] =
          try fields.first { $0.name == name }?.shape.converted(child, key: fieldKey, in: schema) ?? child
      }
      return SettingValue(.table(result), origin: node.origin)
    }
  }
}

extension FieldShape {
  /// The JSON Schema `properties` of a struct's fields (each field's schema, nested structs with their
  /// own `properties`).
  var jsonSchemaProperties: SettingValue? {
    guard case .fields(let fields) = self else { return nil }
    return SettingValue(
      .table(SettingTable(fields.map { ($0.name, $0.shape.jsonSchema) })), origin: .codeDefault)
  }

  private var jsonSchema: SettingValue {
    var members: [(String, SettingValue)]
    switch self {
    case .open:
      members = []
    case .value(let type, let allowed):
      members = type.jsonSchemaFields
      if let allowed {
        members.append(
          (
            "enum",
            SettingValue(
              .array(allowed.map { .init(.string($0), origin: .codeDefault) }), origin: .codeDefault)
          ))
      }
    case .fields:
      members = [("type", SettingValue(.string("object"), origin: .codeDefault))]
      if let properties = jsonSchemaProperties { members.append(("properties", properties)) }
    }
    return SettingValue(.table(SettingTable(members)), origin: .codeDefault)
  }

  /// The shape a JSON Schema's `properties` describe, as ``jsonSchemaProperties`` writes them.
  init?(jsonSchemaProperties properties: SettingValue?) {
    guard case .table(let table)? = properties?.kind else { return nil }
    self = .fields(table.map { Field(name: $0.key, shape: FieldShape(jsonSchema: $0.value)) })
  }

  private init(jsonSchema node: SettingValue) {
    if let nested = FieldShape(jsonSchemaProperties: node.value(at: "properties")) {
      self = nested
    } else if let type = SettingsSchema.ValueType(jsonSchema: node), !type.isTable {
      let allowed: [String]? =
        if case .array(let items)? = node.value(at: "enum")?.kind { items.map(ValueText.plain) } else { nil }
      self = .value(type, allowed: allowed)
    } else {
      self = .open
    }
  }
}
