import Strata
import StrataPlatform

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Loads what the arguments name and prints it; returns the exit status.
struct DumpCommand {
  var arguments: Arguments
  var environment: [String: String]
  /// The formats FILE arguments, the app's files and `--input-format` are read with.
  var formats = ConfigDumpTool.formats

  /// - Parameter loaded: receives the snapshot that was printed (typed, not redacted), for `--watch`.
  /// Prints the dump (or the check) and returns the exit status. `raw`, when given, is the layers'
  /// snapshot to print (the watched store's first one) instead of a fresh load of the stack.
  func run(
    output: (String) -> Void, errors: (String) -> Void, raw: Snapshot? = nil,
    loaded: (Snapshot) -> Void = { _ in }
  ) -> ExitStatus {
    if let root = arguments.root {
      var info = stat()
      guard stat(root, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
        let problem = PathChecks.exists(root) ? "not a directory" : "no such directory"
        errors("config-dump: --root: \(problem): \(root)\nRun 'config-dump --help' for usage.\n")
        return .usageError
      }
    }
    for directory in arguments.keyPerFileDirectories {
      // Under --root, absolute paths are read inside the root, as the layers read them.
      let resolved = directory.hasPrefix("/") ? (arguments.root ?? "") + directory : directory
      guard !PathChecks.isDirectory(resolved) else { continue }
      let problem = PathChecks.exists(resolved) ? "not a directory" : "no such directory"
      errors("config-dump: --key-per-file: \(problem): \(directory)\n")
      return .configurationError
    }
    let schema: SettingsSchema?
    do {
      schema = try loadSchema()
    } catch {
      errors(
        "config-dump: --schema: \(error.code == .notFound ? error.message : error.description)\nRun 'config-dump --help' for usage.\n"
      )
      return .usageError
    }
    let stack = stack(schema: schema)
    var snapshot = raw ?? stack.load()
    if let schema {
      snapshot = schema.applied(
        to: snapshot, resolvePath: stack.options.resolvePath, placesToSet: { stack.placesToSet(key: $0) })
    }
    loaded(snapshot)
    let hidden =
      arguments.showSecrets ? [] : secretKeys(of: snapshot, schema: schema).union(snapshot.secretKeys)
    if !arguments.showSecrets { snapshot = snapshot.redacting(hidden) }
    var diagnostics = snapshot.diagnostics.map(shown)
    if arguments.check {
      if let layout = appLayout {
        diagnostics += MisplacedDropIns(layout: layout, resolvePath: stack.options.resolvePath).warnings()
      }
      for diagnostic in diagnostics { output("\(diagnostic)\n") }
      output(unreadWarning())
      // A summary of a file's diagnostics left out counts for all of them.
      let errorCount = diagnostics.filter { $0.severity == .error }.reduce(0) { $0 + $1.occurrences }
      let warningCount = diagnostics.filter { $0.severity == .warning }.reduce(0) { $0 + $1.occurrences }
      let skippedCount = diagnostics.filter { $0.severity == .note && $0.error.code == .skipped }.count
      let files = Set(
        snapshot.sources.compactMap { $0.document.root.origin.path ?? Optional($0.document.path) }
      )
      .filter { $0.hasPrefix("/") || $0.contains(".") }
      output(
        "checked \(files.count) file\(files.count == 1 ? "" : "s"), \(snapshot.keys.count) "
          + "key\(snapshot.keys.count == 1 ? "" : "s"): "
          + "\(errorCount) error\(errorCount == 1 ? "" : "s"), \(warningCount) warning"
          + "\(warningCount == 1 ? "" : "s")" + (skippedCount > 0 ? ", \(skippedCount) skipped" : "") + "\n")
      return errorCount > 0 ? .configurationError : .success
    }
    for diagnostic in diagnostics where diagnostic.severity != .note { errors("\(diagnostic)\n") }
    if snapshot.keys.isEmpty && snapshot.root.table?.isEmpty != false, arguments.key == nil {
      // Nothing to print: say why instead of printing an empty table; a machine-readable format still
      // prints its (empty) document, so that a program reading it always has one to parse.
      if !snapshot.hasErrors { errors(nothingFound()) }
      if arguments.format == .json || arguments.format == .plist {
        output((try? Dump.render(Snapshot.empty, options: DumpOptions(format: arguments.format))) ?? "")
      }
      return snapshot.hasErrors ? .configurationError : .success
    }
    var options = DumpOptions(
      format: arguments.format, showOrigin: arguments.showOrigin, showShadowed: arguments.showShadowed,
      environmentPrefix: environmentPrefix)
    options.showSecrets = arguments.showSecrets
    for warning in unshownOptions() { errors(warning) }
    errors(unreadWarning())
    if !arguments.noTruncate && isatty(STDOUT_FILENO) == 1 { options.maxWidth = terminalWidth() }
    do {
      if let key = arguments.key {
        guard let text = try Dump.render(key: key, of: snapshot, options: options) else {
          errors("config-dump: key not found: \(key)\(suggestion(for: key, in: snapshot))\n")
          return .keyNotFound
        }
        output(text)
      } else {
        output(try Dump.render(snapshot, options: options))
      }
      if arguments.format == .env, let warning = redactedExports(of: snapshot.keys, hidden: hidden) {
        errors(warning)
      }
    } catch {
      errors("config-dump: \(error)\n")
      return .configurationError
    }
    return snapshot.hasErrors ? .configurationError : .success
  }

  /// The warning `--format env` prints when some of its lines export `<redacted>`: a shell that
  /// `eval`s the output would set those variables to the placeholder.
  func redactedExports(of keys: [String], hidden: Set<String>) -> String? {
    let redacted = keys.filter { key in
      if let wanted = arguments.key, key != wanted, !SettingKey.isKey(key, within: wanted) { return false }
      var current: String? = key
      while let name = current {
        if hidden.contains(name) { return true }
        current = SettingKey.parent(of: name)
      }
      return false
    }
    guard !redacted.isEmpty, let prefix = environmentPrefix else { return nil }
    let names = redacted.map { EnvironmentNames.variableName(forKey: $0, prefix: prefix) }
    let one = redacted.count == 1
    return "config-dump: warning: --format env: \(one ? "1 variable is" : "\(redacted.count) variables are") "
      + "exported as '\(redactedText)' because \(one ? "its value is" : "their values are") secret: "
      + "\(names.joined(separator: ", ")); a shell that evaluates this output sets \(one ? "it" : "them") to "
      + "that text. Add --show-secrets to export the values, or set \(one ? "it" : "them") another way\n"
  }

  /// A warning for each option the chosen format cannot show, so that nothing is dropped silently.
  func unshownOptions() -> [String] {
    var warnings: [String] = []
    if arguments.showOrigin && arguments.format == .plist {
      warnings.append(
        "config-dump: warning: --show-origin: the plist format has no place for origins; they are left out "
          + "(table, json, ini and env show them)\n")
    }
    if arguments.showShadowed && [.ini, .plist, .env].contains(arguments.format) {
      warnings.append(
        "config-dump: warning: --show-shadowed: the \(arguments.format.rawValue) format shows effective values "
          + "only (table and json show the values they hide)\n")
    }
    return warnings
  }

  /// The standard layout of `--app`, if given (under `--root`, with `--home`).
  var appLayout: StandardLayout? {
    arguments.app.map {
      StandardLayout(
        app: $0, root: arguments.root, home: arguments.home, environment: environment, formats: formats)
    }
  }

  /// A diagnostic as printed: under `--root`, its path names the file on disk (`R/etc/svc/svc.ini`), not
  /// the path the configuration writes; an include refused for leaving the file's directory names
  /// `--root`, the flag that reads absolute includes under an extracted tree.
  func shown(_ diagnostic: Diagnostic) -> Diagnostic {
    var diagnostic = diagnostic
    if let root = arguments.root, let path = diagnostic.error.path, path.hasPrefix("/") {
      diagnostic.error.path = rootResolver(root)(path)
    }
    if diagnostic.error.code == .includeOutsideTree && arguments.root == nil {
      diagnostic.error.message +=
        " (config-dump: to check a file of an extracted tree as it will run, give --root DIR: absolute "
        + "includes are then read under DIR)"
    }
    return diagnostic
  }

  /// `config-dump: nothing found …`, with the places looked at for `--app`.
  func nothingFound() -> String {
    guard let app = arguments.app, let layout = appLayout else { return "config-dump: no keys found\n" }
    let mains = formats.mainFileExtensions.joined(separator: ",")
    var places = [layout.vendorDirectory, layout.systemDirectory]
    if let user = layout.userDirectory { places.append(user) }
    let under = arguments.root.map { " under \($0)" } ?? ""
    return "config-dump: no configuration found for app '\(app)'\(under): looked in "
      + places.map { "\($0)/\(app).{\(mains)} and \(app).conf.d/" }.joined(separator: ", ")
      + " and \(layout.environmentPrefix)_* variables\n" + unreadNote(app: app, in: places, prefix: "")
  }

  /// The warning that names the layout's YAML files this build cannot read, when other files were
  /// found: the values shown are not the whole configuration. Empty without `--app` or such files.
  func unreadWarning() -> String {
    guard let app = arguments.app, let layout = appLayout else { return "" }
    var places = [layout.vendorDirectory, layout.systemDirectory]
    if let user = layout.userDirectory { places.append(user) }
    return unreadNote(app: app, in: places, prefix: "warning: ")
  }

  /// The YAML files of the layout (`/etc/app/app.yaml`, `app.conf.d/10-x.yml`) when this build has no
  /// format for them, and the tool that reads them: a configuration in YAML is not "nothing". Other
  /// names (a package manager's `app.ini.dpkg-old`) are left unnamed, as the layers leave them.
  func unreadNote(app: String, in places: [String], prefix: String) -> String {
    let resolve = arguments.root.map(rootResolver) ?? { $0 }
    func isUnreadYAML(_ name: String) -> Bool {
      (name.hasSuffix(".yaml") || name.hasSuffix(".yml")) && formats.format(forPath: name) == nil
    }
    var unread: [String] = []
    for place in places {
      let directory = resolve(place)
      for name in ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
      where isUnreadYAML(name) && (name == app + ".yaml" || name == app + ".yml") {
        unread.append(directory + "/" + name)
      }
      let dropIns = directory + "/" + app + ".conf.d"
      for name in ((try? FileManager.default.contentsOfDirectory(atPath: dropIns)) ?? []).sorted()
      where isUnreadYAML(name) && !name.hasPrefix(".") {
        unread.append(dropIns + "/" + name)
      }
    }
    guard !unread.isEmpty else { return "" }
    return "config-dump: \(prefix)not read: " + unread.joined(separator: ", ")
      + "; this config-dump has no YAML "
      + "format, config-dump-yaml has (swift build -c release --package-path Integrations --product "
      + "config-dump-yaml)\n"
  }

  /// The terminal's width in columns (TIOCGWINSZ, else `$COLUMNS`), or `nil`.
  func terminalWidth() -> Int? {
    var size = winsize()
    if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
    return environment["COLUMNS"].flatMap(Int.init)
  }

  /// The keys to redact: a schema's secret settings, and the keys no schema declares whose names say
  /// they are secret (see ``SecretNames``): without a schema every key, with one its unknown keys (a
  /// `db.password` the schema does not know is still hidden).
  func secretKeys(of snapshot: Snapshot, schema: SettingsSchema?) -> Set<String> {
    Set(snapshot.keys.filter { hides($0, schema: schema) }).union(schema?.secretKeys ?? [])
  }

  /// Whether one key is among ``secretKeys(of:schema:)``'s, asked of the keys that changed only.
  func hides(_ key: String, schema: SettingsSchema?) -> Bool {
    schema?.secretKeys.contains(key) == true
      || (SecretNames.isSecret(key: key) && schema?.declares(key) != true)
  }

  /// The schema named by `--schema`, if any.
  /// - Throws: `notFound` when the file is missing; the parse or schema error otherwise.
  func loadSchema() throws(StrataError) -> SettingsSchema? {
    guard let path = arguments.schema else { return nil }
    guard let document = try Formats.load(path: path) else {
      throw StrataError(.notFound, "no such file: \(path)", path: path)
    }
    return try SettingsSchema(jsonSchema: document.root)
  }

  var environmentPrefix: String? {
    arguments.environmentPrefix ?? arguments.app.map(EnvironmentNames.prefix(forApp:))
  }

  /// The layers: the app's standard file layers, then FILE arguments, then the environment.
  func stack(schema: SettingsSchema? = nil) -> LayerStack {
    var options = ParseOptions(formats: formats)
    if let size = arguments.maxFileSize { options.maxFileSize = size }
    var layers: [any Layer] = []
    if let schema { layers.append(schema.defaultsLayer) }
    if let layout = appLayout {
      // The same rule as SettingsStore(app:root:), so both find the same user file.
      options = layout.options(options)
      layers += layout.layers.filter { $0.scope != .environment }
    } else if let root = arguments.root {
      options.resolvePath = rootResolver(root)
    }
    for file in arguments.files.map(rootRelative) {
      layers.append(
        FileLayer(
          scope: .user, name: file, files: [file], requiresFiles: true,
          format: arguments.inputFormat.flatMap(formats.format(named:))))
    }
    for directory in arguments.keyPerFileDirectories {
      layers.append(KeyPerFileLayer(scope: .user, directory: directory))
    }
    if let environmentPrefix {
      var layer = EnvironmentLayer(
        prefix: environmentPrefix, variables: environment, declaredKeys: schema?.settableKeys ?? [])
      // The app's profile variable selects overlays; it is not a setting.
      layer.profileVariable = appLayout.map { $0.environmentPrefix + "_PROFILE" }
      layers.append(layer)
    }
    return LayerStack(layers: layers, options: options)
  }

  /// A FILE argument as the layers read it: under `--root R`, a path inside R (`R/etc/mysql/my.cnf`)
  /// becomes the path the running system reads (`/etc/mysql/my.cnf`), so that its absolute includes
  /// resolve under R too; any other absolute path is read under R, as `--app`'s files are.
  func rootRelative(_ file: String) -> String {
    guard let root = arguments.root else { return file }
    var base = root
    while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
    guard file.hasPrefix(base + "/") else { return file }
    return String(file.dropFirst(base.count))
  }

  /// ` (did you mean server.port?)` when a key differs only by case or a small typo.
  func suggestion(for key: String, in snapshot: Snapshot) -> String {
    let candidates = snapshot.keys + snapshot.keys.flatMap { prefixes(of: $0) }
    guard let match = Suggestions.closest(to: key, in: candidates) else { return "" }
    if match.lowercased() == key.lowercased() { return " (did you mean \(match)? keys are case-sensitive)" }
    return " (did you mean \(match)?)"
  }

  private func prefixes(of key: String) -> [String] {
    let names = SettingKey.names(in: key)
    return (1..<max(names.count, 1)).map { SettingKey.join(names[0..<$0]) }
  }
}
