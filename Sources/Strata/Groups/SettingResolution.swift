/// How a setting finds its value in a snapshot: its key's values (then its old keys'), highest layer
/// first, the first that converts and validates, else the default; a required setting without one has
/// no value.
extension SettingBox {
  /// A setting's value for a snapshot, and how it was found.
  struct Resolution {
    /// `nil` when no layer has a usable value and there is no default (a missing required setting).
    var value: Value?
    var origin: Origin
    var diagnostics: [Diagnostic]
    /// Why the effective value (the highest layer's) was rejected, if it was.
    var rejectedTop: StrataError?
    /// The candidates looked at, highest first, with why each rejected one was.
    var candidates: [(value: SettingValue, rejection: String?)] = []
  }

  /// The value, origin and problems for a snapshot: the effective value if it converts and validates,
  /// else the next lower layer's, else the default (none for a required setting: an error).
  /// - Parameter collectingCandidates: whether the result lists the lower layers' values too
  ///   (``Resolution/candidates``, for listings of hidden values); applying a snapshot does not need
  ///   them, and when the top value converts and validates it is found without walking every source.
  func resolve(in snapshot: Snapshot, key: String, collectingCandidates: Bool = true) -> Resolution {
    let aliases = self.aliases
    if !collectingCandidates, aliases.isEmpty, !traits.contains(.deprecated),
      let top = snapshot.value(forKey: key), let value = try? decode(top, key),
      validation?.check(value) ?? true
    {
      return Resolution(value: value, origin: top.origin, diagnostics: [])
    }
    var resolution = Resolution(value: defaultValue, origin: .codeDefault, diagnostics: [])
    var candidates: [SettingValue] = []
    if !aliases.isEmpty, aliases.contains(where: { snapshot.value(forKey: $0) != nil }) {
      let resolvePath = (store?.stack.options ?? ParseOptions()).resolvePath
      let found = RenamedKeyCandidates(key: key, aliases: aliases, resolvePath: resolvePath)
      candidates = found.values(in: snapshot.sources.map(\.document), diagnostics: &resolution.diagnostics)
    } else if let entry = snapshot.entry(forKey: key) {
      candidates = [entry.value] + entry.shadowed.map(\.value)
    } else if let node = snapshot.value(forKey: key) {
      candidates = [node]
    }
    if traits.contains(.deprecated), let top = candidates.first {
      resolution.diagnostics.append(
        Diagnostic(
          .warning,
          located(
            StrataError(.deprecated, "\(key) is deprecated\(attributes.help.map { ": \($0)" } ?? "")"),
            top.origin)))
    }
    for (index, candidate) in candidates.enumerated() {
      var rejection: StrataError
      do {
        let value = try decode(candidate, key)
        if let validation, !validation.check(value) {
          let shown = traits.contains(.secret) ? redactedText : candidate.description
          rejection = located(
            StrataError(.invalidValue, "invalid value \(shown) for \(key): \(validation.summary)"),
            candidate.origin)
        } else {
          resolution.candidates += candidates[index...].map { ($0, nil) }
          resolution.value = value
          resolution.origin = candidate.origin
          return resolution
        }
      } catch {
        rejection = error
        if traits.contains(.secret) {
          rejection.message = "expected \(typeName) for \(key), found \(redactedText)"
        }
        rejection = located(rejection, candidate.origin)
      }
      if index == 0 { resolution.rejectedTop = rejection }
      resolution.candidates.append((candidate, rejection.message))
      resolution.diagnostics.append(Diagnostic(.error, rejection))
    }
    if resolution.value == nil {
      let missing = missingError()
      // A removed value is a rejected edit like any other: a running value is kept.
      if resolution.rejectedTop == nil { resolution.rejectedTop = missing }
      resolution.diagnostics.append(Diagnostic(.error, missing))
    }
    return resolution
  }
}

extension SettingBox {
  /// The error for this setting when it is required and has no value: where it can be set.
  func missingError() -> StrataError {
    let key = self.key
    return store?.missingRequiredError(forKey: key) ?? .missingRequired(key: key, places: [])
  }
}

/// What a required setting without a value shows as text (dumps, `allSettings`).
let missingText = "<missing>"

extension SettingBox {
  func readsAlias(in keys: Set<String>) -> Bool {
    // `declaredAliases` first: it needs no lock, and almost no setting has any.
    !declaredAliases.isEmpty && aliases.contains(where: keys.contains)
  }
}
