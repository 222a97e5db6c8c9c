/// Required settings: those declared without a default (`@Setting var databaseURL: URL`).
extension SettingsStore {
  /// Stops a program at start-up when any required setting has no value, with one error that lists
  /// every missing setting and where each can be set (a file, an environment variable, an option).
  ///
  /// ```swift
  /// let store = SettingsStore(app: "demo", arguments: Array(CommandLine.arguments.dropFirst()))
  /// let database = DatabaseSettings(store: store)
  /// try store.requireAll()   // before serving: reading a missing required setting would stop the program
  /// ```
  ///
  /// The same errors are in ``diagnostics``, one per setting.
  /// - Throws: `missingRequired`, naming every registered required setting without a usable value.
  public func requireAll() throws(StrataError) {
    let missing = missingRequiredKeys
    guard let first = missing.first else { return }
    guard missing.count > 1 else { throw missingRequiredError(forKey: first) }
    let list = missing.map { key in
      let places = stack.placesToSet(key: key)
      return "'\(key)'" + (places.isEmpty ? "" : " (\(StrataError.placesPhrase(places)))")
    }
    throw StrataError(
      .missingRequired, "\(missing.count) required settings have no value: " + list.joined(separator: "; "))
  }

  /// The keys of the registered required settings that have no usable value, in declaration order.
  public var missingRequiredKeys: [String] {
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
