/// One `--key` option of a command line as written, before the declared settings say what it means.
///
/// Which options a command line holds does not depend on the declarations: the only argument they
/// decide about is the one after a bare `--debug`, and that one is never an option itself. So the
/// arguments are split into options once, and each declaration only chooses between an option's two
/// readings (``valued`` and ``bare``).
struct CommandLineOption {
  /// What an option sets: a key (as names and as written by ``SettingKey``) and a string value.
  struct Reading {
    var names: [String]
    var key: String
    var value: String
    /// Whether the option was bare (`--debug`, `--no-debug`): a flag, never an element of a list.
    var isFlag: Bool
  }

  /// `arg:--server.port`.
  var origin: Origin
  /// Its position among the arguments (1 for the first), for messages.
  var argumentNumber: Int
  /// The key with the value given (`--key=value`, or the next argument); `nil` when none follows.
  var valued: Reading?
  /// Whether ``valued``'s value is the next argument, which a declared `Bool` setting's option takes only
  /// when it is a Bool word (else the option is ``bare`` and the argument the program's).
  var valueIsNextArgument: Bool
  /// The reading as a bare flag: `--debug` sets `debug` to `true`, `--no-debug` to `false`.
  var bare: Reading

  /// The options among `arguments`, in order; arguments that are not options are skipped, `--` ends
  /// them, and an option that names no key is reported.
  static func options(in arguments: [String], diagnostics: inout [Diagnostic]) -> [CommandLineOption] {
    var found: [CommandLineOption] = []
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if argument == "--" { break }
      guard argument.hasPrefix("--") else { continue }
      let (written, inline) = split(argument.dropFirst(2))
      guard !written.isEmpty else {
        diagnostics.append(
          Diagnostic(
            .warning,
            StrataError(
              .syntax, "argument \(index) '\(argument)' names no key; it is ignored", path: "arg:\(argument)")
          ))
        continue
      }
      let names = SettingKey.names(in: written)
      let key = SettingKey.join(names)
      var value = inline
      let takesNext = inline == nil && index < arguments.count && isValue(arguments[index])
      if takesNext {
        value = arguments[index]
        index += 1
      }
      let bare: Reading
      if written.hasPrefix("no-"), written.count > 3 {
        let flagNames = SettingKey.names(in: String(written.dropFirst(3)))
        bare = Reading(names: flagNames, key: SettingKey.join(flagNames), value: "false", isFlag: true)
      } else {
        bare = Reading(names: names, key: key, value: "true", isFlag: true)
      }
      found.append(
        CommandLineOption(
          origin: .commandLine(option: "--" + written), argumentNumber: index - (takesNext ? 1 : 0),
          valued: value.map { Reading(names: names, key: key, value: $0, isFlag: false) },
          valueIsNextArgument: takesNext, bare: bare))
    }
    return found
  }

  /// What the option sets: a value given with `=` always counts; the next argument counts unless the
  /// option is a declared `Bool` setting's (or its `--no-` form) and the argument no Bool word.
  /// - Parameter isFlag: whether a key is a declared `Bool` setting's.
  func reading(isFlag: (String) -> Bool) -> Reading {
    guard let valued else { return bare }
    // A Bool word is the value whether or not the option is a flag's: only other words ask.
    guard valueIsNextArgument, !Self.isBoolWord(valued.value) else { return valued }
    return isFlag(valued.key) || (bare.key != valued.key && isFlag(bare.key)) ? bare : valued
  }

  /// The text of the option, for messages (shortened when long).
  var written: String {
    if case .commandLine(let option) = origin { return InputLimits.shortened(option) }
    return ""
  }

  /// Whether an argument reads as a Bool (`true`, `no`, `on`, `0`…, in any case).
  private static func isBoolWord(_ argument: String) -> Bool {
    argument.utf8.count <= 5 && boolWords.contains(argument.lowercased())
  }

  private static let boolWords: Set<String> = ["true", "false", "yes", "no", "on", "off", "1", "0"]

  /// Whether an argument after an option is its value: anything but `--`, another option, or a
  /// single-dash option (a negative number and a lone `-` are values).
  private static func isValue(_ argument: String) -> Bool {
    guard argument.hasPrefix("-"), argument != "-" else { return true }
    return Double(argument) != nil
  }

  /// Splits `key=value` at the first `=` outside double quotes (a quoted name may hold one). Over the
  /// UTF-8 bytes: the three characters looked for are ASCII, so every cut is on a character boundary.
  private static func split(_ text: Substring) -> (key: String, value: String?) {
    var quoted = false
    var escaped = false
    let bytes = text.utf8
    for index in bytes.indices {
      let byte = bytes[index]
      if escaped {
        escaped = false
      } else if quoted && byte == UInt8(ascii: "\\") {
        escaped = true
      } else if byte == UInt8(ascii: "\"") {
        quoted.toggle()
      } else if byte == UInt8(ascii: "=") && !quoted {
        return (String(Substring(bytes[..<index])), String(Substring(bytes[bytes.index(after: index)...])))
      }
    }
    return (String(text), nil)
  }
}
