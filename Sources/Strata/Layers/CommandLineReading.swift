/// What a command line's options mean under the declared settings: one document, built once, and the
/// questions about declarations that building it asked.
///
/// For each key, the last option wins; options repeated with values make a list only for a key that is
/// a declared list (`[String]`), or that nothing declares (neither the key nor a table holding it). A
/// store loads the command line again each time a group registers; the reading is kept and re-used
/// as long as the questions it asked (is `debug` a `Bool`? is `tags` a list?) get the same answers, so
/// that registering costs the repeated keys and the fewer of the declared `Bool` settings and the
/// options followed by a plain argument, and builds nothing.
struct CommandLineReading {
  /// The keys asked about as `Bool` settings (a bare `--debug` before a plain argument), by answer.
  private var flagKeys: Set<String> = []
  private var nonFlagKeys: Set<String> = []
  /// The keys repeated with values, and whether they made a list.
  private var listAnswers: [String: Bool] = [:]
  /// The limits it was read with (maxDepth, maxValues, maxFileSize).
  private var limits: [Int]

  /// The layer's contents.
  var contents: LayerContents

  /// Whether this reading holds under `declared` and `options`: every question it asked gets the same
  /// answer. Costs the keys it asked about as flags or lists, or the declared flags if fewer.
  func holds(under declared: DeclaredKeys, options: ParseOptions) -> Bool {
    guard limits == Self.limits(of: options), flagKeys.isSubset(of: declared.flags) else { return false }
    let newFlag =
      declared.flags.count <= nonFlagKeys.count
      ? declared.flags.contains(where: nonFlagKeys.contains)
      : nonFlagKeys.contains(where: declared.flags.contains)
    return !newFlag && listAnswers.allSatisfy { Self.makesList($0.key, declared) == $0.value }
  }

  private static func limits(of options: ParseOptions) -> [Int] {
    [options.maxDepth, options.maxValues, options.maxFileSize]
  }

  /// Whether repeating `key`'s option makes a list: a declared list, or a key that nothing declares
  /// (neither it nor a table holding it).
  private static func makesList(_ key: String, _ declared: DeclaredKeys) -> Bool {
    declared.lists.contains(key) || !declared.containsKeyOrTable(holding: key)
  }

  /// Reads the options under `declared`.
  /// - Parameter diagnostics: what splitting the arguments into options found.
  init(
    _ options: [CommandLineOption], diagnostics: [Diagnostic], declared: DeclaredKeys,
    parseOptions: ParseOptions
  ) {
    var flagKeys: Set<String> = []
    var nonFlagKeys: Set<String> = []
    nonFlagKeys.reserveCapacity(options.count)
    var listAnswers: [String: Bool] = [:]
    func isFlag(_ key: String) -> Bool {
      let answer = declared.flags.contains(key)
      if answer { flagKeys.insert(key) } else { nonFlagKeys.insert(key) }
      return answer
    }
    contents = LayerContents(diagnostics: diagnostics)
    var limits = InputLimits(parseOptions)
    // The options taken, each with the one before it of the same key (-1: none), and the last option of
    // each key, in the order keys first appear: flat arrays rather than an array per key.
    var taken: [(reading: CommandLineOption.Reading, origin: Origin, previous: Int)] = []
    taken.reserveCapacity(options.count)
    var lastOfKey: [String: Int] = [:]
    lastOfKey.reserveCapacity(options.count)
    var order: [String] = []
    for option in options {
      let reading = option.reading(isFlag: isFlag)
      let admitted = limits.admit(
        depth: reading.names.count, size: reading.key.utf8.count + reading.value.utf8.count,
        entry: "option '\(option.written)' (argument \(option.argumentNumber))",
        path: "arg:\(option.written)",
        fix: "leave it out, or raise the limit", diagnostics: &contents.diagnostics)
      guard admitted else { continue }
      let previous = lastOfKey.updateValue(taken.count, forKey: reading.key)
      if previous == nil { order.append(reading.key) }
      taken.append((reading, option.origin, previous ?? -1))
    }
    var tree = KeyTreeBuilder(origin: .commandLine(option: "--*"), capacity: order.count)
    for key in order {
      guard let lastIndex = lastOfKey[key] else { continue }
      let last = taken[lastIndex]
      // The values given since the last bare flag (a flag ends a list as it ends any value), last first.
      var values: [Int] = []
      var index = lastIndex
      while index >= 0, !taken[index].reading.isFlag {
        values.append(index)
        index = taken[index].previous
      }
      let value: SettingValue
      let makesList = values.count > 1 && Self.makesList(key, declared)
      if values.count > 1 { listAnswers[key] = makesList }
      if makesList {
        let items = values.reversed().map {
          SettingValue(.string(taken[$0].reading.value), origin: taken[$0].origin)
        }
        value = SettingValue(.array(items), origin: items[0].origin)
      } else {
        value = SettingValue(.string(last.reading.value), origin: last.origin)
      }
      tree.set(value, atNames: last.reading.names)
    }
    contents.documents.append(Document(path: "command line", root: tree.build()))
    self.flagKeys = flagKeys
    self.nonFlagKeys = nonFlagKeys
    self.listAnswers = listAnswers
    self.limits = Self.limits(of: parseOptions)
  }
}
