/// dotenv files (`.env`): `NAME=value` lines, as Docker, Compose, systemd's `EnvironmentFile=` and
/// python-dotenv read them.
///
/// ```sh
/// # /etc/demo/demo.env
/// export SERVER__PORT=8443          # SERVER__PORT → server.port
/// server.host = 0.0.0.0
/// DB__PASSWORD='p@ss#word'          # single quotes: every character literal
/// GREETING="hello\nworld"           # double quotes: \n \t \r \" \\ \$ \' \a \b \f \v
/// PATH_TEMPLATE=${HOME}/x           # no interpolation: ${HOME} stays as written
/// ```
///
/// - A name is split into names at `.` and `__`; a name with no lower-case letter is lower-cased
///   (`DB__POOL_SIZE` → `db.pool_size`), others are kept (`server.maxConnections`).
/// - `export ` before a name is ignored. Blanks around `=` are allowed.
/// - Unquoted values end at a `#` that follows a blank (an inline comment) and are trimmed; quoted
///   values may span lines and may be followed by a comment.
/// - Every value is a string, with the position where it starts; it converts against the declared
///   setting's type, as INI and environment values do.
/// - A name assigned again keeps its first place and its last value, with a `duplicateKey` warning
///   naming both positions.
/// - Errors (`syntax`, `unexpectedEnd`, `invalidUTF8`) give the line and column, and never repeat a
///   value's text.
///
/// Writes edit the file in place (see ``edit(_:setting:at:path:options:)``). The full grammar, and where
/// it differs from python-dotenv, is in <doc:DotEnvDialect>.
struct DotEnvFormat: ConfigFormat {
  /// The format's name, `dotenv`.
  static let name = "dotenv"
  /// Extensions that select this format: `env` (and a file named just `.env`).
  static let fileExtensions = ["env"]

  /// Creates the format.
  init() {}

  /// Parses a dotenv file into a tree of strings.
  /// - Throws: ``StrataError`` with the line and column of the first problem; `nestingTooDeep` for a
  ///   name of more than `options.maxDepth` names.
  func parse(_ bytes: [UInt8], path: String, options: ParseOptions) throws(StrataError) -> Document {
    var tree = DotEnvTree(path: path)
    for entry in try DotEnvParser.entries(of: bytes, path: path, maxDepth: options.maxDepth) {
      tree.add(entry)
    }
    return Document(path: path, root: tree.build(), diagnostics: tree.diagnostics.all)
  }

  /// Serializes a tree: one `NAME=value` line per scalar, names joined with `.`.
  /// - Throws: ``StrataError`` `typeMismatch` for arrays (dotenv has none) or a top that is not a table,
  ///   `invalidValue` for a name that would not read back as itself (`a b`, `ABC`, `x__y`) or a NUL byte.
  func serialize(_ value: SettingValue) throws(StrataError) -> [UInt8] {
    try DotEnvSerializer.serialize(value)
  }
}
