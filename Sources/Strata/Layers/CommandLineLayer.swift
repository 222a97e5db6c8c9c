/// `--key value` options of a program's command line, as a layer (above the environment).
///
/// <!-- snippet: Tests/DocSnippets/StoreSymbolSnippets.swift#CommandLineLayer -->
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
/// - The last option wins, as with `getopt_long` and git (`--color=always --no-color`):
///   `--server.port 1 --server.port 2` is 2, `--debug=true --no-debug` is `false`. Repeating an option
///   makes a list only for a list setting (`[String]`) or a key nothing declares: `--tags a --tags b` is
///   `["a", "b"]`; a bare flag is never an element of a list (the values after the last one are).
/// - The limits of ``ParseOptions`` apply as to a file: an option naming a key deeper than
///   ``ParseOptions/maxDepth`` is ignored with an error naming it, and so are the options past
///   ``ParseOptions/maxValues`` in number or ``ParseOptions/maxFileSize`` in bytes.
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
  var arguments: [String] {
    didSet { readings = Locked(Readings()) }
  }
  /// The options found in `arguments` and the last reading of them, shared by copies of the layer
  /// (a store loads it again each time a group registers).
  private var readings = Locked(Readings())

  /// The options, split from the arguments once, and the reading last made of them.
  private struct Readings: Sendable {
    var options: [CommandLineOption]?
    var diagnostics: [Diagnostic] = []
    var last: CommandLineReading?
  }

  /// Creates the layer.
  /// - Parameter arguments: the arguments to read, without the program's name (for example
  ///   `Array(CommandLine.arguments.dropFirst())`, or what the program's own parser left over).
  public init(arguments: [String]) {
    self.arguments = arguments
  }

  /// The option that sets `key`: `--server.port`.
  static func option(forKey key: String) -> String {
    "--" + key
  }

  /// Always `true`: whether `--debug` takes the next argument, and whether a repeated option makes a
  /// list, depend on the declared settings, so the layer reads them again as settings are declared
  /// (re-using its last reading while the few declarations it depends on stay the same).
  public var readsLowerLayers: Bool { true }

  /// Reads the options into one document.
  public func load(_ context: LoadContext) -> LayerContents {
    readings.withLock { readings in
      if let last = readings.last, last.holds(under: context.declared, options: context.options) {
        return last.contents
      }
      if readings.options == nil {
        readings.options = CommandLineOption.options(in: arguments, diagnostics: &readings.diagnostics)
      }
      let reading = CommandLineReading(
        readings.options ?? [], diagnostics: readings.diagnostics, declared: context.declared,
        parseOptions: context.options)
      readings.last = reading
      return reading.contents
    }
  }
}

extension CommandLineLayer: DeclarationDependentLayer {
  /// Whether the last reading still holds under the declarations: the same test a load makes before it
  /// re-uses the reading.
  func mayChange(
    declaring added: [String], declared: DeclaredKeys, options: ParseOptions, last: LayerContents
  ) -> Bool {
    !readings.withLock { $0.last?.holds(under: declared, options: options) ?? false }
  }
}
