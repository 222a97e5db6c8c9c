/// JSON Schema (draft 2020-12) for a ``SettingsSchema``, and back.
///
/// Each setting is a property at its path (one nested `properties` object per name of its key), with `type`, `default`, `description`, and Strata's
/// own keywords: `x-strata-type` (the Swift type), `x-strata-env` (the overriding variable),
/// `x-strata-secret`, `x-strata-restart-required`, `x-strata-deprecated`, `x-strata-read-only`,
/// `x-strata-validation`, `x-strata-required` (a setting declared without a default) and
/// `x-strata-aliases` (its old keys, in full). Secrets get `writeOnly` and no default.
///
/// A required setting is not listed in JSON Schema's own `required` arrays: one file of a layered
/// configuration may leave it to another file, the environment or the command line, and an editor would
/// flag every such file as invalid.
extension SettingsSchema {
  /// The JSON Schema as a tree (serialize it with `JSONFormat`).
  /// - Parameters:
  ///   - title: the schema's title.
  ///   - environmentPrefix: when given, each setting names its environment variable.
  package func jsonSchema(title: String, environmentPrefix: String? = nil) -> SettingValue {
    var properties = SettingValue.emptyTable(origin: .codeDefault)
    for entry in entries {
      let names = SettingKey.names(in: entry.key)
      properties.insertSchema(leaf(entry, environmentPrefix: environmentPrefix), at: names[...])
    }
    return schemaTable([
      ("$schema", schemaString("https://json-schema.org/draft/2020-12/schema")),
      ("title", schemaString(title)),
      ("type", schemaString("object")),
      ("properties", properties),
    ])
  }

  /// Reads a schema written by ``jsonSchema(title:environmentPrefix:)``.
  /// - Throws: `invalidValue` when the tree is not such a schema.
  package init(jsonSchema: SettingValue) throws(StrataError) {
    guard let properties = jsonSchema.value(at: "properties"), properties.isTable else {
      throw located(
        StrataError(.invalidValue, "not a Strata JSON Schema: no top-level \"properties\""), jsonSchema.origin
      )
    }
    var entries: [Entry] = []
    try Self.collect(properties, prefix: "", into: &entries)
    self.init(entries: entries)
  }

  private static func collect(_ properties: SettingValue, prefix: String, into entries: inout [Entry])
    throws(StrataError)
  {
    for (name, node) in properties.table ?? SettingTable() {
      let key = SettingKey.appending(name, to: prefix)
      let isSetting = node.value(at: "x-strata-type") != nil
      if !isSetting, let nested = node.value(at: "properties") {
        try collect(nested, prefix: key, into: &entries)
        continue
      }
      guard let type = ValueType(jsonSchema: node) else {
        throw located(
          StrataError(.invalidValue, "schema property '\(key)' has no type Strata understands"), node.origin)
      }
      var traits: SettingTraits = []
      for (keyword, trait) in [
        ("x-strata-secret", SettingTraits.secret), ("x-strata-restart-required", .restartRequired),
        ("x-strata-deprecated", .deprecated), ("x-strata-read-only", .readOnly),
      ] where node.value(at: keyword)?.kind == .bool(true) {
        traits.insert(trait)
      }
      var entry =
        Entry(
          key: key, type: type, typeName: node.value(at: "x-strata-type")?.stringValue ?? "",
          defaultValue: node.value(at: "default"), help: node.value(at: "description")?.stringValue,
          traits: traits,
          validationSummary: node.value(at: "x-strata-validation")?.stringValue,
          allowedValues: node.value(at: "enum").flatMap { node -> [String]? in
            guard case .array(let items) = node.kind else { return nil }
            return items.map(ValueText.plain)
          }, isRequired: node.value(at: "x-strata-required")?.kind == .bool(true),
          aliases: node.value(at: "x-strata-aliases").flatMap { node -> [String]? in
            guard case .array(let items) = node.kind else { return nil }
            return items.compactMap(\.stringValue)
          } ?? [], minimum: node.value(at: "minimum"), maximum: node.value(at: "maximum"))
      if type.isTable { entry.fields = FieldShape(jsonSchemaProperties: node.value(at: "properties")) }
      entries.append(entry)
    }
  }

  private func leaf(_ entry: Entry, environmentPrefix: String?) -> SettingValue {
    var fields = entry.type.jsonSchemaFields
    if let properties = entry.fields?.jsonSchemaProperties { fields.append(("properties", properties)) }
    if let help = entry.help { fields.append(("description", schemaString(help))) }
    if entry.traits.contains(.secret) {
      fields.append(("writeOnly", schemaBool(true)))
    } else if let value = entry.defaultValue {
      fields.append(("default", value))
    }
    fields.append(("x-strata-type", schemaString(entry.typeName)))
    if let environmentPrefix {
      fields.append(
        (
          "x-strata-env",
          schemaString(EnvironmentNames.variableName(forKey: entry.key, prefix: environmentPrefix))
        ))
    }
    for (trait, keyword) in [
      (SettingTraits.secret, "x-strata-secret"), (.restartRequired, "x-strata-restart-required"),
      (.deprecated, "x-strata-deprecated"), (.readOnly, "x-strata-read-only"),
    ] where entry.traits.contains(trait) {
      fields.append((keyword, schemaBool(true)))
    }
    if entry.traits.contains(.deprecated) { fields.append(("deprecated", schemaBool(true))) }
    if entry.isRequired { fields.append(("x-strata-required", schemaBool(true))) }
    if !entry.aliases.isEmpty {
      fields.append(
        ("x-strata-aliases", SettingValue(.array(entry.aliases.map(schemaString)), origin: .codeDefault)))
    }
    if let summary = entry.validationSummary { fields.append(("x-strata-validation", schemaString(summary))) }
    if let minimum = entry.minimum { fields.append(("minimum", minimum)) }
    if let maximum = entry.maximum { fields.append(("maximum", maximum)) }
    if let allowed = entry.allowedValues {
      // Typed as the setting is: an enum of Int raw values lists numbers.
      let items = allowed.map { text -> SettingValue in
        if entry.type == .integer, let number = Int(text) {
          return SettingValue(.integer(number), origin: .codeDefault)
        }
        return schemaString(text)
      }
      fields.append(("enum", SettingValue(.array(items), origin: .codeDefault)))
    }
    return schemaTable(fields)
  }
}

extension SettingsSchema.ValueType {
  /// `type` (and `format`, `items`, `additionalProperties`) keywords.
  var jsonSchemaFields: [(String, SettingValue)] {
    switch self {
    case .string(let format):
      var fields = [("type", schemaString("string"))]
      if let format { fields.append(("format", schemaString(format))) }
      if format == "duration" {
        fields.append(("pattern", schemaString("^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h|d))+$|^[0-9]+$")))
      }
      if format == "byte-size" {
        fields.append(
          ("pattern", schemaString("^[0-9]+(\\.[0-9]+)? *([bB]|[kKmMgGtTpPeE]([iI]?[bB]|[iI]))?$")))
      }
      return fields
    case .integer: return [("type", schemaString("integer"))]
    case .number: return [("type", schemaString("number"))]
    case .boolean: return [("type", schemaString("boolean"))]
    case .array(let element):
      return [("type", schemaString("array")), ("items", schemaTable(element.jsonSchemaFields))]
    case .map(let element):
      return [
        ("type", schemaString("object")), ("additionalProperties", schemaTable(element.jsonSchemaFields)),
      ]
    case .object: return [("type", schemaString("object"))]
    case .optional(let wrapped):
      var fields = wrapped.jsonSchemaFields
      if let index = fields.firstIndex(where: { $0.0 == "type" }),
        case .string(let name) = fields[index].1.kind
      {
        fields[index].1 = SettingValue(
          .array([schemaString(name), schemaString("null")]), origin: .codeDefault)
      }
      return fields
    }
  }

  /// The type a schema node describes, or `nil`.
  init?(jsonSchema node: SettingValue) {
    var typeName = node.value(at: "type")?.stringValue
    var optional = false
    if case .array(let names)? = node.value(at: "type")?.kind {
      let named = names.compactMap(\.stringValue)
      optional = named.contains("null")
      typeName = named.first { $0 != "null" }
    }
    let base: Self
    switch typeName {
    case "string": base = .string(format: node.value(at: "format")?.stringValue)
    case "integer": base = .integer
    case "number": base = .number
    case "boolean": base = .boolean
    case "array":
      guard let items = node.value(at: "items"), let element = Self(jsonSchema: items) else { return nil }
      base = .array(element)
    case "object":
      if let values = node.value(at: "additionalProperties"), let element = Self(jsonSchema: values) {
        base = .map(element)
      } else {
        base = .object
      }
    default: return nil
    }
    self = optional ? .optional(base) : base
  }
}

extension SettingValue {
  /// The string, if this node is one.
  package var stringValue: String? {
    if case .string(let s) = kind { return s }
    return nil
  }

  /// Inserts a schema leaf at a path of property names, creating `{"type": "object", "properties": …}`
  /// nodes on the way.
  fileprivate mutating func insertSchema(_ leaf: SettingValue, at components: ArraySlice<String>) {
    guard let first = components.first else { return }
    var properties = table ?? SettingTable()
    if components.count == 1 {
      properties[first] = leaf
    } else {
      var node =
        properties[first]
        ?? schemaTable([("type", schemaString("object")), ("properties", .emptyTable(origin: .codeDefault))])
      var inner = node.value(at: "properties") ?? .emptyTable(origin: .codeDefault)
      inner.insertSchema(leaf, at: components.dropFirst())
      node.set(inner, at: "properties")
      properties[first] = node
    }
    kind = .table(properties)
  }
}

private func schemaTable(_ fields: [(String, SettingValue)]) -> SettingValue {
  SettingValue(.table(SettingTable(fields)), origin: .codeDefault)
}
private func schemaString(_ text: String) -> SettingValue {
  SettingValue(.string(text), origin: .codeDefault)
}
private func schemaBool(_ value: Bool) -> SettingValue { SettingValue(.bool(value), origin: .codeDefault) }
