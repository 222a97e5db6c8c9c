/// What a store knows is wrong, and what its settings are.
extension SettingsStore {
  /// Every problem known now: files that failed to load, values that did not convert, and, once
  /// settings are registered, keys no setting declares, environment names that collide, and secrets
  /// in files others can read (before that, command-line options that set no key of another layer).
  /// Mistakes in making groups come first: a group released before ``requireAll()``, or this store
  /// being the private one of a group made without a store.
  public var diagnostics: [Diagnostic] {
    let snapshot = self.snapshot
    let settingDiagnostics =
      state.withLock { $0.settingDiagnostics.sorted { $0.key < $1.key }.flatMap(\.value) }
      + brokenRuleDiagnostics + rollbackDiagnostics
    let schema = self.schema
    // Mistakes in how the program made its groups come first: they explain the problems after them.
    let usage = fallbackDiagnostics + releasedGroupDiagnostics
    guard !schema.entries.isEmpty else {
      return usage + snapshot.diagnostics + settingDiagnostics + UnknownOptions.diagnostics(in: snapshot)
    }
    return usage + snapshot.diagnostics + settingDiagnostics
      + schema.unknownKeys(in: snapshot, resolvePath: stack.options.resolvePath)
      + environmentCollisions(schema) + exposedSecrets(schema, snapshot)
  }

  /// A warning for each file that supplies a secret setting and that group or others may read.
  fileprivate func exposedSecrets(_ schema: SettingsSchema, _ snapshot: Snapshot) -> [Diagnostic] {
    var warned: Set<String> = []
    var diagnostics: [Diagnostic] = []
    for key in schema.secretKeys.sorted() {
      guard let path = (snapshot.entry(forKey: key)?.origin ?? snapshot.value(forKey: key)?.origin)?.path,
        warned.insert(path).inserted,
        let mode = FilePermissions.readableByOthers(stack.options.resolvePath(path))
      else { continue }
      diagnostics.append(
        Diagnostic(
          .warning,
          StrataError(
            .insecurePermissions,
            "supplies the secret '\(key)' but group or others can read it (mode \(FilePermissions.octal(mode))); "
              + "fix it with: chmod go-r \(stack.options.resolvePath(path))", path: path)))
    }
    return diagnostics
  }

  /// The registered settings as a JSON Schema (draft 2020-12), for editors and validators: each
  /// setting a property at its path with its type, default (none for a secret), help, environment
  /// variable (when the store has an environment layer) and Strata's `x-strata-…` keywords. Serialize
  /// it with the JSON format: `FormatRegistry.standard.format(named: "json")`.
  /// - Parameter title: the schema's title.
  public func jsonSchema(title: String) -> SettingValue {
    schema.jsonSchema(title: title, environmentPrefix: environmentPrefix)
  }

  /// The registered settings, described.
  package var schema: SettingsSchema {
    let boxes = state.withLock { $0.registry.declaredBoxes }
    return SettingsSchema(
      entries: boxes.map { box in
        let defaultValue = box.defaultSettingValue
        // An optional enum without a default is typed by its first case.
        let typeHint =
          defaultValue
          ?? box.allowedValues?.first.map {
            SettingValue(Int($0).map { .integer($0) } ?? .string($0), origin: .codeDefault)
          }
        var entry = SettingsSchema.Entry(
          key: box.key, type: SettingsSchema.ValueType(typeName: box.typeName, defaultValue: typeHint),
          typeName: box.typeName, defaultValue: defaultValue, help: box.attributes.help, traits: box.traits,
          validationSummary: box.attributes.validationSummary, allowedValues: box.allowedValues,
          isRequired: box.isRequired, aliases: box.aliases, minimum: box.attributes.validationBounds?.first,
          maximum: box.attributes.validationBounds?.last)
        if entry.type.isTable { entry.fields = box.fieldShape }
        return entry
      })
  }

  /// An error for each environment variable name that two declared settings (or fields of struct
  /// settings) would share.
  fileprivate func environmentCollisions(_ schema: SettingsSchema) -> [Diagnostic] {
    guard let prefix = environmentPrefix else { return [] }
    var keysByName: [String: [String]] = [:]
    for key in schema.settableKeys {
      keysByName[EnvironmentNames.variableName(forKey: key, prefix: prefix), default: []].append(key)
    }
    return keysByName.filter { $0.value.count > 1 }.sorted { $0.key < $1.key }.map { name, keys in
      Diagnostic(
        .error,
        StrataError(
          .nameCollision,
          "settings \(keys.map { "'\($0)'" }.joined(separator: " and ")) both map to the environment variable \(name)"
        ))
    }
  }

}
