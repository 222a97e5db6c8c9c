import Strata

/// What the command line asked for.
struct Arguments {
  var files: [String] = []
  var app: String?
  var root: String?
  var home: String?
  /// `--profile P`: the app's profile overlays, as `APP_PROFILE=P` selects them.
  var profile: String?
  var environmentPrefix: String?
  var format: DumpOptions.Format = .table
  var showOrigin = false
  var showShadowed = false
  var key: String?
  var check = false
  var help = false
  var maxFileSize: Int?
  var schema: String?
  var showSecrets = false
  var keyPerFileDirectories: [String] = []
  var watch = false
  var noTruncate = false
  /// The format of FILE arguments whose names do not say (`--input-format ini`).
  var inputFormat: String?
  /// `--running APP`, `--pid N`, `--socket PATH`: the running service to ask (see `RunningCommand`).
  var running: String?
  var pid: Int32?
  var socket: String?
  /// `--plan FILE` (with `--as PATH`), `--set KEY=VALUE` (with `--for DURATION`), `--unset KEY`.
  var plan: String?
  var planTarget: String?
  var set: String?
  var duration: Double?
  /// `--history` (with `--since DURATION`): the service's configuration history.
  var history = false
  var since: Double?
  var unset: String?

  /// Whether a running service is asked, rather than files read.
  var asksRunningService: Bool { running != nil || pid != nil || socket != nil }

  /// The formats `--input-format` names one of (not an option: given to ``parse(_:formats:)``).
  var formats = ConfigDumpTool.formats

  /// A command line that cannot be run; `config-dump` prints it with the usage and exits 2.
  struct UsageError: Error {
    var message: String
  }

  /// Parses `arguments` (without the program name) by the table of ``Option/all``. Options take
  /// `--name value` or `--name=value`; `--` ends the options. `--input-format` takes a name of `formats`.
  static func parse(_ arguments: [String], formats: FormatRegistry = ConfigDumpTool.formats)
    throws(UsageError)
    -> Arguments
  {
    var result = Arguments()
    result.formats = formats
    var index = 0
    var onlyFiles = false
    func value(for option: String, inline: String?) throws(UsageError) -> String {
      if let inline { return inline }
      index += 1
      guard index < arguments.count else { throw UsageError(message: "\(option) needs a value") }
      return arguments[index]
    }
    while index < arguments.count {
      let argument = arguments[index]
      defer { index += 1 }
      if onlyFiles || !argument.hasPrefix("-") || argument == "-" {
        result.files.append(argument)
        continue
      }
      var name = argument
      var inline: String?
      if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
        name = String(argument[..<equals])
        inline = String(argument[argument.index(after: equals)...])
      }
      if name == "--" {
        onlyFiles = true
        continue
      }
      guard let option = Option.named(name) else {
        // A hostile or mistaken argument may be megabytes long: quote its start only.
        let shown = name.count > 80 ? name.prefix(80) + "…" : name
        throw UsageError(message: "unknown option '\(shown)'")
      }
      if option.value == nil, inline != nil { throw UsageError(message: "\(name) takes no value") }
      try option.apply(&result, option.value == nil ? "" : try value(for: name, inline: inline))
    }
    try result.validate()
    return result
  }

  private func validate() throws(UsageError) {
    if help { return }
    if asksRunningService || plan != nil || set != nil || unset != nil || duration != nil || planTarget != nil
      || history || since != nil
    {
      return try validateRunning()
    }
    if files.isEmpty && app == nil && keyPerFileDirectories.isEmpty {
      throw UsageError(message: "nothing to load: give FILE arguments, or --app NAME")
    }
    if let app, app.isEmpty || app.contains("/") || app.hasPrefix(".") {
      throw UsageError(message: "--app takes an app name such as 'demo', not '\(app)'")
    }
    if root != nil && app == nil && files.isEmpty {
      throw UsageError(message: "--root goes with --app or FILE arguments")
    }
    if home != nil && app == nil { throw UsageError(message: "--home goes with --app") }
    if profile != nil && app == nil { throw UsageError(message: "--profile goes with --app") }
    if let profile, Profiles.validName(profile) == nil {
      throw UsageError(
        message: "--profile takes a profile name (1 to 64 letters, digits, '-' and '_'), not '\(profile)'")
    }
    if let home, !home.hasPrefix("/") {
      throw UsageError(message: "--home takes an absolute path, not '\(home)'")
    }
    if let prefix = environmentPrefix, prefix.isEmpty || prefix.contains("=") {
      throw UsageError(message: "--env-prefix takes a prefix such as DEMO, not '\(prefix)'")
    }
    if check && key != nil { throw UsageError(message: "--check and --key cannot be used together") }
    if watch && check { throw UsageError(message: "--watch and --check cannot be used together") }
    if format == .env && environmentPrefix == nil && app == nil && !check {
      throw UsageError(message: "--format env needs a variable prefix: --app NAME or --env-prefix PREFIX")
    }
    if inputFormat != nil && files.isEmpty {
      throw UsageError(message: "--input-format applies to FILE arguments; give at least one")
    }
  }

  /// The rules of `--running` and its requests.
  private func validateRunning() throws(UsageError) {
    let ways = [running, pid.map(String.init), socket].compactMap { $0 }
    guard ways.count == 1 else {
      throw UsageError(
        message: ways.isEmpty
          ? "--plan, --set and --unset ask a running service: give --running APP, --pid N or --socket PATH"
          : "give one of --running APP, --pid N and --socket PATH")
    }
    if let running, running.isEmpty || running.contains("/") || running.hasPrefix(".") {
      throw UsageError(message: "--running takes an app name such as 'demo', not '\(running)'")
    }
    guard files.isEmpty, app == nil, !check, !watch, key == nil, schema == nil, keyPerFileDirectories.isEmpty
    else {
      throw UsageError(
        message:
          "--running, --pid and --socket ask the service itself: FILE arguments, --app, --check, --watch, "
          + "--key, --schema and --key-per-file do not go with them")
    }
    if showSecrets {
      throw UsageError(
        message: "--show-secrets does not go with --running: a service never sends its secrets")
    }
    if root != nil || home != nil || environmentPrefix != nil || inputFormat != nil || profile != nil {
      throw UsageError(
        message:
          "--root, --home, --profile, --env-prefix and --input-format do not go with --running: the service "
          + "reads its own files"
      )
    }
    guard format == .table || format == .json else {
      throw UsageError(message: "with --running, --format is table or json")
    }
    if [plan, set, unset].compactMap({ $0 }).count > 1 {
      throw UsageError(message: "give one of --plan, --set and --unset")
    }
    if since != nil && !history { throw UsageError(message: "--since goes with --history") }
    if history && !asksRunningService {
      throw UsageError(
        message: "--history reads a service's history: give --running APP, --pid N or --socket PATH")
    }
    if history && (plan != nil || set != nil || unset != nil) {
      throw UsageError(message: "--history does not go with --plan, --set or --unset")
    }
    if set != nil && duration == nil {
      throw UsageError(message: "--set needs --for DURATION (such as 15m): an override always ends by itself")
    }
    if duration != nil && set == nil { throw UsageError(message: "--for goes with --set") }
    if planTarget != nil && plan == nil { throw UsageError(message: "--as goes with --plan") }
    if let set, !set.contains("=") || set.hasPrefix("=") {
      throw UsageError(message: "--set takes KEY=VALUE, such as log.level=debug, not '\(set)'")
    }
  }

  /// Seconds in a duration such as `90s`, `15m`, `1h30m`, `2d` (a bare number is seconds); `nil` when
  /// the text is not one.
  static func seconds(in text: String) -> Double? {
    var total = 0.0
    var number = ""
    var sawUnit = false
    for character in text {
      if character.isNumber || character == "." {
        number.append(character)
        continue
      }
      let unit: Double
      switch character {
      case "s": unit = 1
      case "m": unit = 60
      case "h": unit = 3600
      case "d": unit = 86400
      default: return nil
      }
      guard let value = Double(number) else { return nil }
      total += value * unit
      number = ""
      sawUnit = true
    }
    if !number.isEmpty {
      guard !sawUnit, let value = Double(number) else { return nil }
      total += value
    }
    return total > 0 && total.isFinite ? total : nil
  }
}
