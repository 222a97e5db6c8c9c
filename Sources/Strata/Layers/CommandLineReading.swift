/// What a command line's options mean under the declared settings: one document, built once, and the
/// questions about declarations that building it asked.
///
/// For each key, the last option wins; options repeated with values make a list only for a key that is
/// a declared list (`[String]`), or that nothing declares (neither the key nor a table holding it). A
/// store loads the command line again each time a group registers; the reading is kept and re-used
/// as long as the questions it asked (is `debug` a `Bool`? is `tags` a list?) get the same answers, so
/// that registering costs what those few keys cost, not what the command line holds.
struct CommandLineReading {
  /// A question about the declarations that changes what the options mean.
  enum Question: Hashable {
    /// Whether a key is a declared `Bool` setting's (a bare `--debug` before a plain argument).
    case isFlag(String)
    /// Whether repeating a key's option makes a list.
    case makesList(String)

    /// The answer under `declared`.
    func answer(_ declared: DeclaredKeys) -> Bool {
      switch self {
      case .isFlag(let key): declared.flags.contains(key)
      case .makesList(let key): declared.lists.contains(key) || !declared.containsKeyOrTable(holding: key)
      }
    }
  }

  /// The layer's contents.
  var contents: LayerContents
  /// Each question asked, with its answer then.
  var answers: [Question: Bool]
  /// The limits it was read with (maxDepth, maxValues, maxFileSize).
  var limits: [Int]

  /// Whether this reading holds under `declared` and `options`.
  func holds(under declared: DeclaredKeys, options: ParseOptions) -> Bool {
    limits == Self.limits(of: options) && answers.allSatisfy { $0.key.answer(declared) == $0.value }
  }

  static func limits(of options: ParseOptions) -> [Int] {
    [options.maxDepth, options.maxValues, options.maxFileSize]
  }

  /// Reads the options under `declared`.
  /// - Parameter diagnostics: what splitting the arguments into options found.
  init(
    _ options: [CommandLineOption], diagnostics: [Diagnostic], declared: DeclaredKeys,
    parseOptions: ParseOptions
  ) {
    var answers: [Question: Bool] = [:]
    func ask(_ question: Question) -> Bool {
      if let known = answers[question] { return known }
      let answer = question.answer(declared)
      answers[question] = answer
      return answer
    }
    contents = LayerContents(diagnostics: diagnostics)
    var limits = InputLimits(parseOptions)
    // Each key's options, in the order keys first appear.
    var order: [String] = []
    var occurrences: [String: [(reading: CommandLineOption.Reading, origin: Origin)]] = [:]
    for option in options {
      let reading = option.reading { ask(.isFlag($0)) }
      let admitted = limits.admit(
        depth: reading.names.count, size: reading.key.utf8.count + reading.value.utf8.count,
        entry: "option '\(option.written)' (argument \(option.argumentNumber))",
        path: "arg:\(option.written)",
        fix: "leave it out, or raise the limit", diagnostics: &contents.diagnostics)
      guard admitted else { continue }
      if occurrences[reading.key] == nil { order.append(reading.key) }
      occurrences[reading.key, default: []].append((reading, option.origin))
    }
    var tree = KeyTreeBuilder(origin: .commandLine(option: "--*"))
    for key in order {
      let all = occurrences[key] ?? []
      guard let last = all.last else { continue }
      // The values given since the last bare flag (a flag ends a list as it ends any value).
      let values = all.reversed().prefix { !$0.reading.isFlag }.reversed()
      let value: SettingValue
      if values.count > 1, ask(.makesList(key)) {
        let items = values.map { SettingValue(.string($0.reading.value), origin: $0.origin) }
        value = SettingValue(.array(items), origin: values.first!.origin)
      } else {
        value = SettingValue(.string(last.reading.value), origin: last.origin)
      }
      tree.set(value, atNames: last.reading.names)
    }
    contents.documents.append(Document(path: "command line", root: tree.build()))
    self.answers = answers
    self.limits = Self.limits(of: parseOptions)
  }
}
