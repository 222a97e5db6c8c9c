import Foundation
import Testing

@testable import Strata

private let realWorldDirectory = repositoryRoot + "/Tests/StrataTests/Formats/INI/RealWorld"

/// Reads a file with Python's configparser, configured as close to Strata's dialect as it goes, and prints
/// JSON: `entries` as `[section, key, value-or-null, line]` and the `continuation` line numbers (lines that
/// configparser appends to the previous value because they are indented deeper).
private let configparserScript = #"""
  import configparser, json, re, sys

  text = open(sys.argv[1], encoding="utf-8-sig").read()
  lines = text.splitlines()
  # configparser rejects keys before the first section; Strata keeps them at the top level.
  header = re.compile(r"^\s*\[")
  first = next((i for i, l in enumerate(lines) if header.match(l)), len(lines))
  body = [l for l in lines[:first] if l.strip() and not l.strip().startswith(("#", ";"))]
  offset = 0
  if body:
      text = "[__top__]\n" + text
      offset = 1

  cp = configparser.ConfigParser(interpolation=None, strict=False, allow_no_value=True,
                                 delimiters=("=", ":"), comment_prefixes=("#", ";"),
                                 inline_comment_prefixes=("#", ";"))
  cp.optionxform = str  # configparser lower-cases keys by default; Strata keys are case-sensitive
  cp.read_string(text)

  # The same line classification as configparser's _read, to find its continuation lines.
  continuation, cursect, optname, indent_level = [], False, None, 0
  for lineno, line in enumerate(text.splitlines(), start=1):
      comment_start = None
      for p in ("#", ";"):
          i = line.find(p)
          while i != -1:
              if i == 0 or line[i - 1].isspace():
                  comment_start = i if comment_start is None else min(comment_start, i)
                  break
              i = line.find(p, i + 1)
      if line.strip().startswith(("#", ";")):
          comment_start = 0
      value = line[:comment_start].strip()
      if not value:
          continue
      indent = len(line) - len(line.lstrip())
      if cursect and optname and indent > indent_level:
          continuation.append(lineno - offset)
          continue
      indent_level = indent
      if cp.SECTCRE.match(value):
          cursect, optname = True, None
      else:
          m = cp._optcre.match(value)
          optname = m.group("option") if m else None

  entries = []
  for name, options in cp._sections.items():
      for key, value in options.items():
          entries.append([None if name == "__top__" else name, key, value])
  print(json.dumps({"entries": entries, "continuation": continuation}))
  """#

/// Runs configparser on a file; fails the test with a clear message when python3 cannot be run.
private func configparserView(of path: String) async throws -> (
  entries: [(String?, String, String?)], continuation: Set<Int>
) {
  let script = NSTemporaryDirectory() + "strata-configparser-\(UUID().uuidString).py"
  try configparserScript.write(toFile: script, atomically: true, encoding: .utf8)
  defer { try? FileManager.default.removeItem(atPath: script) }
  let result = try await Spawn.run("/usr/bin/env", ["python3", script, path])
  let data = Data(result.output.utf8)
  let errorText = result.errors
  guard result.status == 0 else {
    struct PythonFailed: Error, CustomStringConvertible { var description: String }
    if result.status == 127 {
      throw PythonFailed(
        description: "python3 is required for the configparser comparison but was not found on PATH")
    }
    throw PythonFailed(description: "python3 configparser failed on \(path): \(errorText)")
  }
  let json = try JSONSerialization.jsonObject(with: data) as! [String: Any]
  let entries = (json["entries"] as! [[Any]]).map { entry in
    (entry[0] as? String, entry[1] as! String, entry[2] as? String)
  }
  return (entries, Set(json["continuation"] as! [Int]))
}

/// Every leaf of a tree: path, text, and line. An array is one leaf with its last element (configparser
/// keeps only the last `key[] =` line).
private func leaves(
  _ value: SettingValue, in file: String, _ path: [String] = [], into result: inout [[String]: (String, Int)]
) {
  switch value.kind {
  case .table(let table):
    for (key, child) in table { leaves(child, in: file, path + [key], into: &result) }
  case .array(let items):
    if let last = items.last, case .string(let s) = last.kind, case .file(file, let line, _) = last.origin {
      result[path] = (s, line)
    }
  case .string(let s):
    // Values from included files are not in configparser's view, which does not follow includes.
    if case .file(file, let line, _) = value.origin { result[path] = (s, line) }
  default: break
  }
}

/// A configparser section name as Strata path components: `a.b` nests, git's `remote "origin"` too.
private func sectionComponents(_ name: String) -> [String] {
  if let space = name.firstIndex(of: " "), name.hasSuffix("\""),
    name[name.index(after: space)...].hasPrefix("\"")
  {
    let sub = name[name.index(space, offsetBy: 2)..<name.index(before: name.endIndex)]
    return sectionComponents(String(name[..<space])) + [String(sub)]
  }
  return name.split(separator: ".", omittingEmptySubsequences: false).map {
    $0.trimmingCharacters(in: .whitespaces)
  }
}

@Suite("INI real-world files")
struct INIRealWorldTests {
  static let files = [
    "php.ini-production", "php.ini-development", "mariadb.cnf", "my.cnf.fallback", "mysqldump.cnf",
    "mysql.cnf", "smb.conf", "tox.ini", "gitconfig", "php-fpm-www.conf", "sqlalchemy-setup.cfg",
    "sqlalchemy-tox.ini",
  ]

  /// Parses a real-world file. MySQL's `!includedir /etc/mysql/…` reads a temporary root where
  /// `conf.d` holds mysql-common's two drop-ins (as Debian installs them) and `mariadb.conf.d` is empty.
  func parseRealWorld(_ name: String) throws -> Document {
    try withTemporaryDirectory { root in
      for dir in ["/etc/mysql/conf.d", "/etc/mysql/mariadb.conf.d"] {
        try FileManager.default.createDirectory(atPath: root + dir, withIntermediateDirectories: true)
      }
      for dropIn in ["mysql.cnf", "mysqldump.cnf"] {
        try FileManager.default.copyItem(
          atPath: realWorldDirectory + "/" + dropIn, toPath: root + "/etc/mysql/conf.d/" + dropIn)
      }
      let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: realWorldDirectory + "/" + name)))
      var options = ParseOptions(resolvePath: { root + $0 })
      // The files are read from the test's folder, but include MySQL's tree, as in /etc/mysql/my.cnf.
      options.includeDirectories = ["/etc/mysql"]
      return try INIFormat().parse(bytes, path: name, options: options)
    }
  }

  @Test(arguments: files)
  func parsesWithoutError(name: String) throws {
    let document = try parseRealWorld(name)
    #expect(document.root.table?.isEmpty == false)
  }

  @Test func spotChecks() throws {
    let php = try parseRealWorld("php.ini-production")
    #expect(iniString(php, "PHP.memory_limit") == "128M")
    #expect(iniString(php, "Session.session.save_handler") == "files")
    let git = try parseRealWorld("gitconfig")
    #expect(iniString(git, "remote.origin.url") == "git@github.com:example/strata.git")
    #expect(iniString(git, "branch.main.merge") == "refs/heads/main")
    #expect(git.root.value(atComponents: ["url", "git@github.com:", "insteadOf"]) != nil)
    let mysql = try parseRealWorld("my.cnf.fallback")
    #expect(iniString(mysql, "mysqldump.quick") == "true")
    #expect(iniString(mysql, "mysqldump.max_allowed_packet") == "16M")
    #expect(mysql.includedFiles == ["/etc/mysql/conf.d/mysql.cnf", "/etc/mysql/conf.d/mysqldump.cnf"])
    #expect(mysql.root.value(at: "mysqldump.quick")?.origin.path == "/etc/mysql/conf.d/mysqldump.cnf")
    let samba = try parseRealWorld("smb.conf")
    #expect(iniString(samba, "global.server role") == "standalone server")
    #expect(iniString(samba, "global.log file") == "/var/log/samba/log.%m")
  }

  /// The path as Strata holds it: where a value stands on a dotted path (php-fpm's `listen` beside
  /// `listen.owner`, setup.cfg's `packages` beside `[options.packages.find]`), some names are one
  /// literal name with dots (Strata.docc/INIDialect.md), so a run of names may be joined.
  func literal(_ components: [String], in ours: [[String]: (String, Int)]) -> [String] {
    if ours[components] != nil { return components }
    for start in 0..<components.count {
      for end in (start + 2)...max(start + 2, components.count) where end <= components.count {
        let joined =
          Array(components[..<start]) + [components[start..<end].joined(separator: ".")]
          + Array(components[end...])
        if ours[joined] != nil { return joined }
      }
    }
    return components
  }

  /// Compares with configparser wherever the dialects agree; each skip below is a difference listed in
  /// Strata.docc/INIDialect.md.
  @Test(arguments: files)
  func agreesWithConfigparser(name: String) async throws {
    let document = try parseRealWorld(name)
    var ours: [[String]: (String, Int)] = [:]
    leaves(document.root, in: name, into: &ours)
    let theirs = try await configparserView(of: realWorldDirectory + "/" + name)
    var matched = Set<[String]>()
    var skipped = Set<[String]>()
    var compared = 0
    for (section, key, value) in theirs.entries {
      // Directives: configparser reads `!includedir /x` as a key without a value.
      if key.hasPrefix("!") { continue }
      var components = section.map(sectionComponents) ?? []
      var expected = value
      if let value {
        let isArray = key.hasSuffix("[]")
        let bare = isArray ? String(key.dropLast(2)) : key
        components += bare.split(separator: ".", omittingEmptySubsequences: false).map {
          $0.trimmingCharacters(in: .whitespaces)
        }
        components = literal(components, in: ours)
        // Strata strips the quotes and decodes escapes; configparser keeps them.
        if value.hasPrefix("\"") || value.hasPrefix("'") {
          skipped.insert(components)
          continue
        }
        // Lines indented deeper than their key continue its value in both, joined with newlines; but
        // Strata also joins a line ending in `\` to the next, where configparser keeps both.
        if value.contains("\\\n") {
          skipped.insert(components)
          continue
        }
      } else {
        // A flag: Strata takes the whole name literally and sets it to "true".
        components.append(key)
        expected = "true"
      }
      guard let (actual, _) = ours[components] else {
        Issue.record("\(name): configparser has \(components) = \(value ?? "nil"), Strata does not")
        continue
      }
      #expect(actual == expected, "\(name): \(components)")
      matched.insert(components)
      compared += 1
    }
    for (path, (_, line)) in ours where !matched.contains(path) {
      if skipped.contains(path) { continue }
      Issue.record("\(name): Strata has \(path) (line \(line)), configparser does not")
    }
    let expectedMinimum = name == "my.cnf.fallback" || name == "mysql.cnf" ? 0 : 1
    #expect(compared >= expectedMinimum, "\(name): only \(compared) entries compared")
    #expect(compared + skipped.count == theirs.entries.filter { !$0.1.hasPrefix("!") }.count)
  }
}
