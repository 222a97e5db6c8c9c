/// Required settings: those declared without a default (`@Setting var databaseURL: URL`).
extension SettingsStore {
  /// Stops a program at start-up when any required setting has no value, with one error that lists
  /// every missing setting and where each can be set (a file, an environment variable, an option).
  ///
  /// <!-- snippet: Tests/DocSnippets/DeclarationsSnippets.swift#require-all -->
  /// ```swift
  /// let store = SettingsStore(app: "demo")
  /// let database = DatabaseSettings(store: store)  // every group first,
  /// try store.requireAll()  // then one error listing every missing required setting
  /// print(database.url)  // safe: requireAll did not throw
  /// ```
  ///
  /// The same errors are in ``diagnostics``, one per setting.
  ///
  /// Call it after making the groups, and keep them: a group released before it (made and dropped,
  /// `_ = DatabaseSettings(store: store)`) declares nothing any more, so its required keys are checked
  /// only for being set at all, and ``diagnostics`` warns that it was released.
  /// - Throws: `missingRequired`, naming every registered required setting without a usable value; or
  ///   `invalidValue`, when none is missing but a group breaks one of its ``SettingsGroup/rules``,
  ///   naming each rule and the values it read with their origins; or `misuse` when no group is alive
  ///   on the store, so that there is nothing to check (groups not made yet, or all released).
  public func requireAll() throws(StrataError) {
    let (hasSettings, released) = state.withLock { state in
      // Groups released from now on are not start-up mistakes, once there was something to check.
      let hasSettings = !state.registry.declaredBoxes.isEmpty
      if hasSettings { state.hasRequiredAll = true }
      return (hasSettings, state.releasedGroups)
    }
    guard hasSettings else { throw nothingToRequire(released: released) }
    let snapshot = self.snapshot
    // A released group's required key that no live setting declares: a group made again later would
    // stop the program reading it when no layer sets it.
    let releasedMissing = releasedGroups.flatMap { group in
      group.requiredKeys.filter { !sets(undeclared: $0, in: snapshot) }.map { ($0, group) }
    }
    let missing = missingRequiredKeys.map { ($0, nil as ReleasedGroup?) } + releasedMissing
    guard !missing.isEmpty else {
      // A group made breaking one of its rules: each value the rule read, with its origin.
      let broken = brokenRuleDiagnostics.map(\.error)
      if broken.count == 1 { throw broken[0] }
      if !broken.isEmpty {
        throw StrataError(
          .invalidValue,
          "\(broken.count) groups break their rules: " + broken.map(\.description).joined(separator: "; "))
      }
      return
    }
    let list = missing.map { key, group in
      let places = stack.placesToSet(key: key)
      let declaredBy = group.map { "declared by \($0.typeName), released before requireAll()" }
      let notes = [declaredBy, places.isEmpty ? nil : StrataError.placesPhrase(places)].compactMap { $0 }
      return "'\(key)'" + (notes.isEmpty ? "" : " (\(notes.joined(separator: "; ")))")
    }
    if missing.count == 1, missing[0].1 == nil { throw missingRequiredError(forKey: missing[0].0) }
    let count = missing.count == 1 ? "1 required setting has" : "\(missing.count) required settings have"
    throw StrataError(.missingRequired, "\(count) no value: " + list.joined(separator: "; "))
  }

  /// Whether a layer sets `key`, which no live setting declares: in the snapshot, or as the environment
  /// variable its setting would read (the environment layer maps only declared keys' names).
  private func sets(undeclared key: String, in snapshot: Snapshot) -> Bool {
    if snapshot.value(forKey: key) != nil { return true }
    return stack.layers.contains { layer in
      guard let environment = layer as? EnvironmentLayer else { return false }
      let name = EnvironmentNames.variableName(forKey: key, prefix: environment.prefix)
      return environment.variables[name] != nil
    }
  }

  /// The error of a `requireAll()` that has no setting to check.
  private func nothingToRequire(released: [ReleasedGroup]) -> StrataError {
    guard let first = released.first else {
      return StrataError(
        .misuse,
        "requireAll() checked nothing: no settings group is declared on this store yet; make the groups "
          + "first and keep them (`let database = DatabaseSettings(store: store)`), then call requireAll()")
    }
    let names = released.map(\.name).joined(separator: ", ")
    return StrataError(
      .misuse,
      "requireAll() checked nothing: every settings group made on this store was released before it "
        + "(\(names)); \(first.fix), then call requireAll()")
  }

  /// The keys of the registered required settings that have no usable value, in declaration order.
  var missingRequiredKeys: [String] {
    let boxes = state.withLock { $0.registry.declaredBoxes }
    return boxes.filter(\.isMissing).map(\.key)
  }

  /// The error for a required setting without a value, naming the places that can set it.
  func missingRequiredError(forKey key: String) -> StrataError {
    StrataError.missingRequired(key: key, places: stack.placesToSet(key: key))
  }
}

extension StrataError {
  /// `required setting 'db.url' has no value; set it in /etc/demo/demo.ini, DEMO_DB_URL or --db.url`.
  /// - Parameter places: where it can be set, highest layer first (listed lowest first).
  static func missingRequired(key: String, places: [String]) -> StrataError {
    let hint = places.isEmpty ? "" : "; " + placesPhrase(places)
    return StrataError(.missingRequired, "required setting '\(key)' has no value\(hint)")
  }

  /// `set it in A, B or C`, lowest layer first.
  static func placesPhrase(_ places: [String]) -> String {
    let ordered = Array(places.reversed())
    let list =
      ordered.count > 1
      ? ordered.dropLast().joined(separator: ", ") + " or " + ordered[ordered.count - 1] : ordered.joined()
    return "set it in " + list
  }
}
