/// The one error type of Strata: a code to switch on, a message for people, and where it happened.
///
/// <!-- snippet: Tests/DocSnippets/StoreSymbolSnippets.swift#StrataError -->
/// ```swift
/// do {
///   let ini = FormatRegistry.standard.format(named: "ini")!
///   let document = try ini.parse(bytes, path: "/etc/demo/demo.ini", options: ParseOptions())
///   print(document.root.value(at: "server.port") ?? "not set")
/// } catch {
///   switch error.code {
///   case .syntax: print(error)  // /etc/demo/demo.ini:12:8: expected '=' after key
///   case .tooManyValues: print("\(error.location ?? ""): split the file or raise ParseOptions.maxValues")
///   default: throw error
///   }
/// }
/// ```
///
/// Codes are a struct rather than an enum so that new codes can be added without breaking switches.
public struct StrataError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What kind of problem this is.
  ///
  /// The codes a program or a source of its own may check or throw are public; the finer ones the
  /// built-in parsers and layers give (`unexpectedEnd`, `invalidEscape`, `invalidPropertyList`,
  /// `includeCycle`, `includeOutsideTree`, `unknownDirective`, `unsupportedFormat`, `nameCollision`,
  /// `tooManySymlinks`) show only in descriptions.
  public struct Code: Sendable, Hashable, CustomStringConvertible {
    private enum Name: String, Sendable, Hashable {
      case syntax, unexpectedEnd, invalidEscape, invalidNumber, invalidUTF8, nestingTooDeep
      case fileTooLarge, unreadable, notFound, invalidPropertyList, duplicateKey
      case includeCycle, unknownDirective, unsupportedFormat, typeMismatch, unknownKey
      case nameCollision, invalidValue, tooManyFiles, tooManySymlinks, writeFailed, insecurePermissions
      case tooManyValues, includeOutsideTree, skipped, deprecated, missingRequired, misuse
    }
    private let name: Name
    private init(_ name: Name) { self.name = name }

    /// The text does not follow the format's grammar.
    public static let syntax = Code(.syntax)
    /// The input ended in the middle of a value.
    static let unexpectedEnd = Code(.unexpectedEnd)
    /// A backslash escape that the format does not define.
    static let invalidEscape = Code(.invalidEscape)
    /// A malformed number.
    public static let invalidNumber = Code(.invalidNumber)
    /// Bytes that are not valid UTF-8.
    public static let invalidUTF8 = Code(.invalidUTF8)
    /// Arrays and tables nested deeper than the limit.
    public static let nestingTooDeep = Code(.nestingTooDeep)
    /// A file larger than the size limit.
    public static let fileTooLarge = Code(.fileTooLarge)
    /// A file or directory that exists but cannot be read.
    public static let unreadable = Code(.unreadable)
    /// A file, directory or key that does not exist where it is required.
    public static let notFound = Code(.notFound)
    /// A property list that is structurally broken (bad binary offsets, unknown XML element, …).
    static let invalidPropertyList = Code(.invalidPropertyList)
    /// A key set twice in one table (a warning: the last value wins).
    public static let duplicateKey = Code(.duplicateKey)
    /// An `!include` that includes itself, directly or not.
    static let includeCycle = Code(.includeCycle)
    /// An INI `!directive` that Strata does not know (a warning).
    static let unknownDirective = Code(.unknownDirective)
    /// A file whose extension names no known format.
    static let unsupportedFormat = Code(.unsupportedFormat)
    /// A value whose type does not fit where it is used.
    public static let typeMismatch = Code(.typeMismatch)
    /// A key (or environment variable) that matches no known setting.
    public static let unknownKey = Code(.unknownKey)
    /// Two keys that map to the same environment variable name.
    static let nameCollision = Code(.nameCollision)
    /// A value that is well-formed but not acceptable.
    public static let invalidValue = Code(.invalidValue)
    /// More files than the limit (drop-ins, includes).
    public static let tooManyFiles = Code(.tooManyFiles)
    /// A symlink chain longer than the limit.
    static let tooManySymlinks = Code(.tooManySymlinks)
    /// A file could not be written (read-only directory, full disk, …); the old file is unchanged.
    public static let writeFailed = Code(.writeFailed)
    /// A file whose owner or mode lets others change it (refused), or read a secret in it (a warning).
    public static let insecurePermissions = Code(.insecurePermissions)
    /// A document expands to more values than ``ParseOptions/maxValues`` allows.
    public static let tooManyValues = Code(.tooManyValues)
    /// An INI include that leaves the configuration's directories (see ``ParseOptions/includeDirectories``).
    package static let includeOutsideTree = Code(.includeOutsideTree)
    /// A file that was not loaded because of its name (a note: a drop-in directory's `README`, a backup).
    public static let skipped = Code(.skipped)
    /// A `.deprecated` setting is set in a file or the environment (a warning).
    public static let deprecated = Code(.deprecated)
    /// A required setting (declared without a default) that no layer sets to a usable value.
    public static let missingRequired = Code(.missingRequired)
    /// The library was used in a way that cannot do what was asked: ``SettingsStore/requireAll()``
    /// with no group alive to check (an error it throws); a group released before `requireAll()`, or a
    /// group made without a store that reads only defaults (warnings in ``SettingsStore/diagnostics``).
    public static let misuse = Code(.misuse)

    /// The code's name, such as `syntax`.
    public var description: String { name.rawValue }
  }

  /// What kind of problem this is.
  public var code: Code
  /// A sentence for people, without the location.
  public var message: String
  /// The file the problem is in, if any.
  public var path: String?
  /// The 1-based line, or 0 when unknown.
  public var line: Int
  /// The 1-based column (in UTF-8 bytes), or 0 when unknown.
  public var column: Int

  /// Creates an error.
  public init(_ code: Code, _ message: String, path: String? = nil, line: Int = 0, column: Int = 0) {
    self.code = code
    self.message = message
    self.path = path
    self.line = line
    self.column = column
  }

  /// `path:line:column` (as much of it as is known), or `nil` when there is no path.
  public var location: String? {
    guard let path else { return nil }
    if line > 0 { return column > 0 ? "\(path):\(line):\(column)" : "\(path):\(line)" }
    return path
  }

  /// `path:line:column: message`, as compilers print, on one line: control characters in the path or
  /// the message are escaped.
  public var description: String {
    if let location { return "\(location.escapingControlCharacters): \(message.escapingControlCharacters)" }
    return message.escapingControlCharacters
  }
}

/// A problem found while loading: an error, or a warning that did not stop the load.
public struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
  /// How serious the problem is.
  public enum Severity: String, Sendable, Hashable {
    /// The file (or value) was not used.
    case error
    /// The file was used; something in it deserves attention.
    case warning
    /// Nothing is wrong, but a person checking the configuration may want to know (a file that was
    /// skipped because of its name). Only `config-dump --check` prints notes.
    case note
  }

  /// How serious the problem is.
  public var severity: Severity
  /// The problem.
  public var error: StrataError
  /// How many problems this stands for: 1, or for the summary of a file's diagnostics left out after
  /// the first twenty, how many were left out.
  package var occurrences = 1

  /// Creates a diagnostic.
  public init(_ severity: Severity, _ error: StrataError) {
    self.severity = severity
    self.error = error
  }

  /// `path:line:column: error: message`, as `config-dump --check` prints it, on one line: control
  /// characters in the path or the message are escaped.
  public var description: String {
    let message = error.message.escapingControlCharacters
    if let location = error.location {
      return "\(location.escapingControlCharacters): \(severity.rawValue): \(message)"
    }
    return "\(severity.rawValue): \(message)"
  }
}
