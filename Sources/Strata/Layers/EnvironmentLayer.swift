#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// The `PREFIX_*` environment variables, as a layer.
///
/// A variable whose name equals the generated name of a known key (`server.maxConnections` →
/// `PREFIX_SERVER_MAX_CONNECTIONS`), or of a field of a declared struct setting
/// (`PREFIX_HTTP_TLS_ENABLED`), overrides that key. Any other `PREFIX_` variable maps by `__` separators
/// and is reported as unknown, so that a typo is seen by `config-dump --check`. A variable that would
/// match but for its letter case is reported and ignored: variable names are case-sensitive. Values are
/// strings; typed conversion happens against the declared type.
public struct EnvironmentLayer: Layer {
  /// Always ``Scope/environment``.
  public var scope: Scope { .environment }
  /// A label for messages.
  public var name: String { "environment (\(prefix)_*)" }
  /// The prefix, without the trailing `_` (`DEMO`).
  var prefix: String
  /// The variables to read; by default the process environment when the layer was created.
  var variables: [String: String]
  /// Keys known besides those of the lower layers (a declared schema).
  var declaredKeys: [String]
  /// The variable that selects a profile (``StandardLayout``): not a setting, and an error when its
  /// value is not a profile name.
  package var profileVariable: String?
  /// The profile the program chose instead of ``profileVariable``'s (`StandardLayout(profile:)`).
  package var programProfile: String?

  /// Creates the layer.
  /// - Parameters:
  ///   - prefix: the prefix without the trailing `_`, such as `DEMO`.
  ///   - variables: the environment (default: the process's).
  ///   - declaredKeys: keys to accept besides those of the lower layers.
  public init(
    prefix: String, variables: [String: String] = ProcessInfo.processInfo.environment,
    declaredKeys: [String] = []
  ) {
    self.prefix = prefix
    self.variables = variables
    self.declaredKeys = declaredKeys
  }

  /// Always `true`: variable names mean the keys of the layers below and the declared keys.
  public var readsLowerLayers: Bool { true }

  /// Maps the variables onto the known keys: the declared ones and those of the layers below.
  public func load(_ context: LoadContext) -> LayerContents {
    var contents = LayerContents()
    let upperPrefix = prefix + "_"
    var known = KnownNames(context: context, declaredKeys: declaredKeys)
    var root = KeyTreeBuilder(origin: .environment(variable: upperPrefix + "*"))
    var limits = InputLimits(context.options)
    // Only a value that shows U+FFFD can have been decoded from invalid bytes; the raw environment says.
    let suspicious = variables.contains { $0.key.hasPrefix(upperPrefix) && $0.value.contains("\u{FFFD}") }
    let invalid = suspicious ? RawEnvironment.namesWithInvalidUTF8(prefix: upperPrefix) : []
    if let programProfile, let problem = Profiles.problem(programProfile: programProfile) {
      contents.diagnostics.append(Diagnostic(.error, problem))
    }
    for (name, value) in variables.sorted(by: { $0.key < $1.key }) {
      let origin = Origin.environment(variable: name)
      if name == profileVariable {
        if let programProfile {
          if let ignored = Profiles.ignoredVariable(name, value: value, programProfile: programProfile) {
            contents.diagnostics.append(Diagnostic(.warning, ignored))
          }
        } else if let problem = Profiles.problem(variable: name, value: value) {
          contents.diagnostics.append(Diagnostic(.error, problem))
        }
      } else if name.hasPrefix(upperPrefix) {
        if invalid.contains(name) {
          contents.diagnostics.append(
            Diagnostic(
              .error,
              StrataError(
                .invalidUTF8, "environment variable \(name) is not valid UTF-8 text; it is ignored",
                path: "env:\(name)")))
          continue
        }
        let rest = name.dropFirst(upperPrefix.count)
        // A name deeper than the limit is refused before it is mapped: it would be a tree that deep.
        let depth = rest.split(separator: "__", omittingEmptySubsequences: false).count
        let size = name.utf8.count + value.utf8.count
        guard
          limits.admit(
            depth: depth, size: size, entry: "environment variable \(InputLimits.shortened(name))",
            path: "env:\(InputLimits.shortened(name))", fix: "unset it, or raise the limit",
            diagnostics: &contents.diagnostics)
        else { continue }
        let keys = known.keys(named: rest)
        if keys.count > 1 {
          contents.diagnostics.append(
            Diagnostic(
              .warning,
              StrataError(
                .nameCollision,
                "keys \(keys.map { "'\($0)'" }.joined(separator: " and ")) share the environment variable "
                  + "\(name); it overrides all of them", path: "env:\(name)")))
        }
        for key in keys {
          root.set(SettingValue(.string(value), origin: origin), atNames: SettingKey.names(in: key))
        }
        guard keys.isEmpty, let key = EnvironmentNames.fallbackKey(forVariable: name, prefix: prefix) else {
          continue
        }
        root.set(SettingValue(.string(value), origin: origin), atNames: SettingKey.names(in: key))
        var message =
          "environment variable \(InputLimits.shortened(name)) matches no known setting; it sets "
          + "'\(InputLimits.shortened(key))'"
        if let match = Suggestions.closest(to: String(rest), in: known.names(near: rest)) {
          message += " (did you mean \(upperPrefix + match)?)"
        }
        contents.diagnostics.append(
          Diagnostic(.warning, StrataError(.unknownKey, message, path: "env:\(name)")))
      } else if name.uppercased().hasPrefix(upperPrefix) {
        let upper = name.uppercased()
        let hint =
          known.keys(named: upper.dropFirst(upperPrefix.count)).isEmpty ? "" : " (did you mean \(upper)?)"
        contents.diagnostics.append(
          Diagnostic(
            .warning,
            StrataError(
              .unknownKey, "environment variable \(name) is ignored: names are case-sensitive\(hint)",
              path: "env:\(name)")))
      }
    }
    contents.documents.append(Document(path: "environment", root: root.build()))
    return contents
  }
}

extension EnvironmentLayer: DeclarationDependentLayer {
  /// A new key changes the layer's contents only when a variable names it or a field of it (its
  /// generated name, or that name, `_` and more), or when a variable matched no key or several (its
  /// meaning and its message's suggestion may change); the variables themselves never change. Each
  /// variable's name is looked up in the declarations, so the cost follows the variables, not the keys.
  func mayChange(
    declaring added: [String], declared: DeclaredKeys, options: ParseOptions, last: LayerContents
  ) -> Bool {
    let unsettled: Set<StrataError.Code> = [.unknownKey, .nameCollision]
    if last.diagnostics.contains(where: { unsettled.contains($0.error.code) }) { return true }
    let upperPrefix = prefix + "_"
    let variables = variables.keys.filter { $0.hasPrefix(upperPrefix) && $0 != profileVariable }
    guard !variables.isEmpty else { return false }
    let added = Set(added)
    func namesAdded(_ name: Substring) -> Bool {
      declared.keys(named: String(name)).contains(where: added.contains)
    }
    for variable in variables {
      let rest = variable.dropFirst(upperPrefix.count)
      if namesAdded(rest) { return true }
      var start = rest.startIndex
      while let underscore = rest[start...].firstIndex(of: "_") {
        if namesAdded(rest[..<underscore]) { return true }
        start = rest.index(after: underscore)
      }
    }
    return false
  }
}

/// The keys a variable name can mean: declared ones (by a table of their names) and the leaves of the
/// documents below (by walking from the name, see ``EnvironmentKeyIndex``).
private struct KnownNames {
  var declared: [DeclaredKeys]
  var documents: [Document]
  /// The declared keys' generated names, computed from the keys at the first variable that matches
  /// none (``DeclaredKeys`` keeps no table of the names themselves).
  private var declaredNames: [String]?

  init(context: LoadContext, declaredKeys: [String]) {
    declared = [context.declared]
    if !declaredKeys.isEmpty { declared.append(DeclaredKeys(declaredKeys)) }
    documents = context.lowerDocuments
  }

  /// The keys whose generated name (without the prefix) is `name`, each once, declared ones first.
  func keys(named name: Substring) -> [String] {
    var keys: [String] = []
    func add(_ key: String) {
      if !keys.contains(key) { keys.append(key) }
    }
    for table in declared {
      for key in table.keys(named: String(name)) { add(key) }
    }
    for document in documents {
      for key in document.environmentIndex.keys(named: name, in: document.root) { add(key) }
    }
    return keys
  }

  /// Generated names (without the prefix) a mistyped `name` may have meant: every declared one, and
  /// those near it in each document.
  mutating func names(near name: Substring) -> [String] {
    let names = declaredNames ?? declared.flatMap(\.names)
    declaredNames = names
    return names + documents.flatMap { $0.environmentIndex.nearbyNames(to: name, in: $0.root) }
  }
}

extension SettingValue {
  /// Sets `value` at a key (see ``SettingKey``) below this table, creating tables on the way (and
  /// replacing any non-table in the way).
  mutating func set(_ value: SettingValue, at key: String) {
    set(value, atComponents: SettingKey.names(in: key)[...])
  }

  private mutating func set(_ value: SettingValue, atComponents components: ArraySlice<String>) {
    guard let first = components.first else {
      self = value
      return
    }
    var table = self.table ?? SettingTable()
    var child = table[first] ?? .emptyTable(origin: value.origin)
    if components.count > 1, !child.isTable { child = .emptyTable(origin: value.origin) }
    child.set(value, atComponents: components.dropFirst())
    table[first] = child
    kind = .table(table)
  }
}
