/// `--key value` options of a program's command line, as a layer (above the environment).
///
/// ```swift
/// // myserver --server.port 9000 --no-debug --server.allowedOrigins a --server.allowedOrigins b
/// let store = SettingsStore(app: "myserver", arguments: Array(CommandLine.arguments.dropFirst()))
/// ```
///
/// - `--server.port 9000` and `--server.port=9000` set `server.port`; the key follows ``SettingKey``
///   (`--www."listen.owner"=nobody` sets one name holding a dot; the first `=` outside quotes ends the
///   key).
/// - A bare `--debug` sets `debug` to `true`, `--no-debug` to `false` (a key that itself starts with
///   `no-` is set with a value: `--no-cache=true`). An option is bare when nothing
///   follows it, or the next argument is another option (`-x`, `--y`) or `--`; a negative number
///   (`--offset -5`) is a value. An option of a declared `Bool` setting takes the next argument only
///   when it is a Bool word (`--debug false`, `--debug on`), so `--debug input.txt` is the flag and
///   leaves `input.txt` to the program; for keys nothing declares, write `--flag=true` or put
///   positional arguments after `--`.
/// - Repeating an option makes a list: `--tags a --tags b` is `["a", "b"]`; a repeated bare flag is not
///   a list: the last one wins.
/// - Positional arguments, single-dash options, and everything after `--` are left alone: they belong to
///   the program.
///
/// Values are strings, converted against the declared type as environment values are (`"9000"` → 9000).
/// Each value's origin is the option as written: `arg:--server.port`. An option that names no declared
/// setting is reported by the store's ``SettingsStore/diagnostics`` (and `config-dump --check --schema`),
/// with a "did you mean".
public struct CommandLineLayer: Layer {
  /// Always ``Scope/commandLine``.
  public var scope: Scope { .commandLine }
  /// A label for messages.
  public var name: String { "command line" }
  /// The arguments, without the program's name.
  public var arguments: [String]

  /// Creates the layer.
  /// - Parameter arguments: the arguments to read, without the program's name (for example
  ///   `Array(CommandLine.arguments.dropFirst())`, or what the program's own parser left over).
  public init(arguments: [String]) {
    self.arguments = arguments
  }

  /// The option that sets `key`: `--server.port`.
  public static func option(forKey key: String) -> String {
    "--" + key
  }

  /// Always `true`: whether `--debug` takes the next argument depends on the declared settings (a
  /// `Bool` does not, but for a Bool word), so the layer reads them again as settings are declared.
  public var readsLowerLayers: Bool { true }

  /// Reads the options into one document.
  public func load(_ context: LoadContext) -> LayerContents {
    var contents = LayerContents()
    var order: [String] = []
    var occurrences: [String: [Occurrence]] = [:]
    for occurrence in parse(flags: context.declared.flags, diagnostics: &contents.diagnostics) {
      if occurrences[occurrence.key] == nil { order.append(occurrence.key) }
      occurrences[occurrence.key, default: []].append(occurrence)
    }
    var root = SettingValue.emptyTable(origin: .commandLine(option: "--*"))
    for key in order {
      let all = occurrences[key] ?? []
      let values = all.filter { !$0.isFlag }
      let value: SettingValue
      if values.count > 1 {
        let items = values.map { SettingValue(.string($0.value), origin: $0.origin) }
        value = SettingValue(.array(items), origin: values[0].origin)
      } else if let single = values.first ?? all.last {
        value = SettingValue(.string(single.value), origin: single.origin)
      } else {
        continue
      }
      root.set(value, at: key)
    }
    contents.documents.append(Document(path: "command line", root: root))
    return contents
  }

  /// One `--key` option found.
  struct Occurrence {
    var key: String
    var value: String
    var origin: Origin
    /// A bare `--flag` or `--no-flag` (no value given).
    var isFlag: Bool
  }

  /// The options, in order; arguments that are not options are skipped, `--` ends them.
  /// - Parameter flags: the keys of declared `Bool` settings.
  func parse(flags: Set<String> = [], diagnostics: inout [Diagnostic]) -> [Occurrence] {
    var found: [Occurrence] = []
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if argument == "--" { break }
      guard argument.hasPrefix("--") else { continue }
      let (written, inline) = Self.split(argument.dropFirst(2))
      let option = "--" + written
      guard !written.isEmpty else {
        diagnostics.append(
          Diagnostic(
            .warning,
            StrataError(
              .syntax, "argument \(index) '\(argument)' names no key; it is ignored", path: "arg:\(argument)")
          ))
        continue
      }
      let origin = Origin.commandLine(option: option)
      if let inline {
        found.append(Occurrence(key: Self.key(written), value: inline, origin: origin, isFlag: false))
      } else if index < arguments.count, Self.isValue(arguments[index]),
        !Self.isFlag(written, flags) || Self.isBoolWord(arguments[index])
      {
        found.append(
          Occurrence(key: Self.key(written), value: arguments[index], origin: origin, isFlag: false))
        index += 1
      } else if written.hasPrefix("no-"), written.count > 3 {
        found.append(
          Occurrence(key: Self.key(written.dropFirst(3)), value: "false", origin: origin, isFlag: true))
      } else {
        found.append(Occurrence(key: Self.key(written), value: "true", origin: origin, isFlag: true))
      }
    }
    return found
  }

  /// Whether `--written` is a declared `Bool` setting's option, or its `--no-` form.
  private static func isFlag(_ written: String, _ flags: Set<String>) -> Bool {
    flags.contains(key(written)) || (written.hasPrefix("no-") && flags.contains(key(written.dropFirst(3))))
  }

  /// Whether an argument reads as a Bool (`true`, `no`, `on`, `0`…, in any case).
  private static func isBoolWord(_ argument: String) -> Bool {
    ["true", "false", "yes", "no", "on", "off", "1", "0"].contains(argument.lowercased())
  }

  /// The key as ``SettingKey`` writes it (a quoted name keeps its dot).
  private static func key(_ written: some StringProtocol) -> String {
    SettingKey.join(SettingKey.names(in: String(written)))
  }

  /// Whether an argument after an option is its value: anything but `--`, another option, or a
  /// single-dash option (a negative number and a lone `-` are values).
  private static func isValue(_ argument: String) -> Bool {
    guard argument.hasPrefix("-"), argument != "-" else { return true }
    return Double(argument) != nil
  }

  /// Splits `key=value` at the first `=` outside double quotes (a quoted name may hold one).
  private static func split(_ text: Substring) -> (key: String, value: String?) {
    var quoted = false
    var escaped = false
    for index in text.indices {
      let character = text[index]
      if escaped {
        escaped = false
      } else if quoted && character == "\\" {
        escaped = true
      } else if character == "\"" {
        quoted.toggle()
      } else if character == "=" && !quoted {
        return (String(text[..<index]), String(text[text.index(after: index)...]))
      }
    }
    return (String(text), nil)
  }
}
