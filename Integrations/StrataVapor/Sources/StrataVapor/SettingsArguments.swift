/// A program's command line split in two: Strata's `--section.key value` options, for the store, and
/// everything else, for Vapor's `Environment`.
///
/// ConsoleKit, which reads Vapor's command line, stops at an option no command declares
/// (`--greeting.name=Hi` would fail with "unknown input"). Strata's options name a key with a dot
/// (`--http.port`, `--greeting.name=Hi`); no Vapor option has one. So an option whose name (before any
/// `=`) holds a dot is Strata's, with its value: the text after `=`, else the next argument unless that
/// is `--` or another option (a negative number is a value). Every other argument stays, in order, for
/// Vapor: the program's path, the command, `--env`, `--log`, `serve --port 9000`, and everything after
/// `--`.
///
/// <!-- snippet: Integrations/StrataVapor/Tests/StrataVaporTests/DocSnippets/VaporSnippets.swift#SettingsArguments -->
/// ```swift
/// // myserver serve --port 9000 --env production --greeting.name=Vapor
/// let arguments = SettingsArguments(splitting: CommandLine.arguments)
/// var environment = try Environment.detect(arguments: arguments.vapor)
/// let store = SettingsStore(app: "myserver", profile: environment.name, arguments: arguments.settings)
/// ```
///
/// Vapor's environment is the store's profile there: `--env production` adds `myserver.production.ini`
/// above `myserver.ini` in each directory (and replaces `MYSERVER_PROFILE`, which is reported when it
/// names another profile).
///
/// Two things follow from splitting before the settings are declared. A setting outside any section (a
/// key without a dot) cannot be given on the command line; set it in a file or the environment. And a
/// `Bool` option followed by an argument that is not an option takes it as its value here: write
/// `--feature.beta=true`, or put Vapor's command first (`myserver serve --feature.beta`). A mistyped key
/// (`--greting.name`) still goes to the store, which reports it with a "did you mean".
public struct SettingsArguments: Sendable, Equatable {
  /// Strata's options with their values, for `SettingsStore(app:arguments:)` or a `CommandLineLayer`.
  public var settings: [String]
  /// The program's path and every other argument, for `Environment.detect(arguments:)`.
  public var vapor: [String]

  /// Splits a command line.
  /// - Parameter arguments: the whole command line, the program's path first (`CommandLine.arguments`).
  public init(splitting arguments: [String]) {
    settings = []
    vapor = Array(arguments.prefix(1))
    var index = 1
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if argument == "--" {
        vapor += arguments[(index - 1)...]
        break
      }
      guard Self.isSettingOption(argument) else {
        vapor.append(argument)
        continue
      }
      settings.append(argument)
      if !argument.contains("="), index < arguments.count, Self.isValue(arguments[index]) {
        settings.append(arguments[index])
        index += 1
      }
    }
  }

  /// Whether an argument is a `--` option whose name, before any `=`, holds a dot.
  private static func isSettingOption(_ argument: String) -> Bool {
    guard argument.hasPrefix("--") else { return false }
    return argument.dropFirst(2).prefix { $0 != "=" }.contains(".")
  }

  /// Whether an argument after an option is its value, as Strata's command line reads it: anything but
  /// `--` and another option (a negative number and a lone `-` are values).
  private static func isValue(_ argument: String) -> Bool {
    guard argument.hasPrefix("-"), argument != "-" else { return true }
    return Double(argument) != nil
  }
}
