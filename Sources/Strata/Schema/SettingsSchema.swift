/// What an app's settings are: every declared key with its type, default, help and traits.
///
/// A store builds one from its registered groups (``SettingsStore/schema``); it exports to JSON Schema
/// for editors (``jsonSchema(title:environmentPrefix:)``), and `config-dump --schema FILE` reads that
/// back to type INI and environment strings, fill in defaults, and report unknown keys.
package struct SettingsSchema: Sendable {
  /// The type of a setting's value, as JSON Schema sees it.
  package indirect enum ValueType: Sendable, Equatable {
    /// Text; `format` is a JSON Schema format (`date-time`, `uri`) or Strata's `duration`, `byte`.
    case string(format: String?)
    /// A whole number.
    case integer
    /// A number.
    case number
    /// `true` or `false`.
    case boolean
    /// A list of values of one type.
    case array(ValueType)
    /// A table with string keys and values of one type.
    case map(ValueType)
    /// A structured value (a `Codable` struct), stored as a nested table.
    case object
    /// A value that may be absent.
    case optional(ValueType)
  }

  /// One declared setting.
  package struct Entry: Sendable {
    /// The full dotted key.
    package var key: String
    /// The value's type.
    package var type: ValueType
    /// The Swift type's name (`Int`, `[String]`, `LogLevel`).
    package var typeName: String
    /// The default (`nil` for a nil optional, or for a secret read from a schema file).
    package var defaultValue: SettingValue?
    /// The one-line help.
    package var help: String?
    /// The traits.
    package var traits: SettingTraits
    /// What validation accepts, in words.
    package var validationSummary: String?
    /// The smallest and largest value accepted (a numeric `.range` validation), or `nil`.
    package var minimum: SettingValue?
    /// The largest value accepted, or `nil`.
    package var maximum: SettingValue?
    /// The only values accepted, as text (the raw values of a `CaseIterable` enum), or `nil` for any.
    package var allowedValues: [String]?
    /// Whether some layer must set the setting (it was declared without a default).
    package var isRequired: Bool
    /// The setting's old keys, in full, still read when the key is absent (with a warning).
    package var aliases: [String]
    /// A struct's fields, learnt from its default (`nil`: any name below the key is the setting's).
    var fields: FieldShape?

    /// Creates an entry.
    package init(
      key: String, type: ValueType, typeName: String, defaultValue: SettingValue? = nil, help: String? = nil,
      traits: SettingTraits = [], validationSummary: String? = nil, allowedValues: [String]? = nil,
      isRequired: Bool = false, aliases: [String] = [], minimum: SettingValue? = nil,
      maximum: SettingValue? = nil
    ) {
      self.minimum = minimum
      self.maximum = maximum
      self.allowedValues = allowedValues
      self.isRequired = isRequired
      self.aliases = aliases
      self.key = key
      self.type = type
      self.typeName = typeName
      self.defaultValue = defaultValue
      self.help = help
      self.traits = traits
      self.validationSummary = validationSummary
    }
  }

  /// The entries, in declaration order.
  package var entries: [Entry]

  /// Creates a schema from entries.
  package init(entries: [Entry]) {
    self.entries = entries
  }

  /// The entry for a key, or `nil`.
  package func entry(forKey key: String) -> Entry? { entries.first { $0.key == key } }

  /// The keys a variable or an option may name: each setting's, and the fields of its struct (at most
  /// ``DeclaredKeys/maxFieldDepth`` names below it), as a store knows them.
  package var settableKeys: [String] {
    entries.flatMap { entry in
      [entry.key]
        + (entry.fields?.settableFields(below: entry.key, maxDepth: DeclaredKeys.maxFieldDepth).map(\.key)
          ?? [])
    }
  }

  /// The keys of the secret settings.
  package var secretKeys: Set<String> { Set(entries.filter { $0.traits.contains(.secret) }.map(\.key)) }

  /// Whether a leaf key of a file belongs to a declared setting: it is one (or one of its old keys), or
  /// lies inside one whose value is a table (a `Codable` struct or a dictionary).
  package func declares(_ key: String) -> Bool {
    entries.contains { entry in
      ([entry.key] + entry.aliases).contains { declared in
        guard declared != key else { return true }
        guard entry.type.isTable, SettingKey.isKey(key, within: declared) else { return false }
        guard let fields = entry.fields else { return true }
        return fields.accepts(SettingKey.names(in: key).dropFirst(SettingKey.names(in: declared).count))
      }
    }
  }

  /// A warning for every leaf key of `snapshot`'s files that no setting declares, at the key's
  /// position, with a "did you mean" when a declared key is close.
  /// - Parameters:
  ///   - snapshot: the merged layers.
  ///   - resolvePath: where the files are read (under a root), to find where each key is written.
  package func unknownKeys(
    in snapshot: Snapshot, resolvePath: @escaping @Sendable (String) -> String = { $0 }
  ) -> [Diagnostic] {
    // A typo inside a struct's table is compared with its fields too (`http.tls.readTimeout`).
    let declared = entries.flatMap { [$0.key] + ($0.fields?.keys(below: $0.key) ?? []) }
    var diagnostics: [Diagnostic] = []
    var positions = KeyPosition(resolvePath: resolvePath)
    for document in snapshot.sources.map(\.document) {
      document.root.forEachLeaf { key, value in
        guard !declares(key) else { return }
        if case .environment = value.origin { return }  // the environment layer reports its own
        if case .codeDefault = value.origin { return }
        var message = "unknown key '\(key)'"
        if case .commandLine(let option) = value.origin {
          message = UnknownOptions.message(option: option, key: key, candidates: declared)
        } else if let hint = missingEqualsHint(forKey: key, value: value) {
          message += ": " + hint
        } else if let match = Suggestions.closest(to: key, in: declared) {
          message += " (did you mean '\(match)'?)"
        }
        let origin = positions.origin(ofKey: SettingKey.names(in: key), valueOrigin: value.origin)
        diagnostics.append(Diagnostic(.warning, located(StrataError(.unknownKey, message), origin)))
      }
    }
    return diagnostics
  }
}

extension SettingsSchema.Entry: CustomReflectable {
  /// What `print(schema)`, `dump(schema)` and debuggers show: every field, the default as text, and
  /// `<redacted>` for a secret's default.
  package var customMirror: Mirror {
    let shownDefault =
      traits.contains(.secret)
      ? (defaultValue == nil ? "nil" : redactedText) : defaultValue.map(ValueText.plain) ?? "nil"
    return Mirror(
      self,
      children: [
        "key": key, "type": type, "typeName": typeName, "defaultValue": shownDefault, "help": help as Any,
        "traits": traits, "validationSummary": validationSummary as Any, "isRequired": isRequired,
        "aliases": aliases,
      ], displayStyle: .struct)
  }
}

extension SettingsSchema.ValueType {
  /// Whether values of this type are tables (their inner keys belong to the setting).
  var isTable: Bool {
    switch self {
    case .object, .map: true
    case .optional(let wrapped): wrapped.isTable
    default: false
    }
  }

  /// The type of a Swift type name as ``describeType(_:)`` writes it; `defaultValue` decides for names
  /// it does not know (enums by their raw value, structs as objects).
  init(typeName: String, defaultValue: SettingValue?) {
    if typeName.hasSuffix("?") {
      self = .optional(Self(typeName: String(typeName.dropLast()), defaultValue: defaultValue))
      return
    }
    if typeName.hasPrefix("[") && typeName.hasSuffix("]") {
      let inner = String(typeName.dropFirst().dropLast())
      if let colon = inner.topLevelColon {
        let valueName = inner[inner.index(after: colon)...].trimmingPrefix(" ")
        self = .map(Self(typeName: String(valueName), defaultValue: nil))
      } else {
        var element: SettingValue?
        if case .array(let items)? = defaultValue?.kind { element = items.first }
        self = .array(Self(typeName: inner, defaultValue: element))
      }
      return
    }
    switch typeName {
    case "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64":
      self = .integer
    case "Double", "Float", "Float32", "Float64", "CGFloat": self = .number
    case "Bool": self = .boolean
    case "String", "Substring": self = .string(format: nil)
    case "URL": self = .string(format: "uri")
    case "Date": self = .string(format: "date-time")
    case "Data": self = .string(format: "byte")
    case "Duration": self = .string(format: "duration")
    case "ByteSize": self = .string(format: "byte-size")
    default:
      switch defaultValue?.kind {
      case .integer?, .unsignedInteger?: self = .integer
      case .double?: self = .number
      case .bool?: self = .boolean
      case .string?: self = .string(format: nil)
      case .array(let items)?: self = .array(Self(typeName: "", defaultValue: items.first))
      default: self = .object
      }
    }
  }
}

extension String {
  /// The index of the first `:` outside `[…]`, for dictionary type names like `String: [Int]`.
  fileprivate var topLevelColon: String.Index? {
    var depth = 0
    for index in indices {
      switch self[index] {
      case "[", "<": depth += 1
      case "]", ">": depth -= 1
      case ":" where depth == 0: return index
      default: break
      }
    }
    return nil
  }
}
