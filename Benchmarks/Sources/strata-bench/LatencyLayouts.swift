import Glibc
import Strata

/// Where the latency rows' edits are made, and how each reader is pointed there: the file edited, the
/// directory the floor watches, `config-dump --watch`'s arguments and environment, and the store of the
/// in-process reader.
struct EditLayout {
  /// A label for the table and progress.
  var label: String
  /// The temporary directory holding the tree (removed by ``remove()``).
  var directory: String
  /// The file each edit replaces, on disk.
  var editedPath: String
  /// The edited file's contents with the port of one edit.
  var contents: @Sendable (Int) -> String
  /// How `config-dump` is run, after the binary (`--watch` included), for the table.
  var dumpCommand: String
  /// `config-dump`'s arguments (`--watch` included).
  var dumpArguments: [String]
  /// Variables added to `config-dump`'s environment (the app's own).
  var dumpEnvironment: [String: String]
  /// The text of `config-dump --watch`'s line for an edit to a port.
  var dumpLine: @Sendable (Int) -> String
  /// A store over the tree, with the same layers `config-dump` reads.
  var makeStore: @Sendable () -> SettingsStore

  /// The directory the edited file is in: the floor (`inotifywait -m`) watches it.
  var editedDirectory: String {
    String(editedPath[..<(editedPath.lastIndex(of: "/") ?? editedPath.endIndex)])
  }
  /// The edited file's name, as `inotifywait` prints it.
  var editedName: String { String(editedPath[editedPath.index(after: editedPath.lastIndex(of: "/")!)...]) }

  /// Removes the tree.
  func remove() { removeTree(directory) }

  /// One JSON file with one port, read alone: `config-dump --watch FILE`, and a store with one file
  /// layer.
  static func oneFile() -> EditLayout {
    let directory = makeTemporaryDirectory("latency")
    let path = "\(directory)/app.json"
    let contents: @Sendable (Int) -> String = { #"{"server": {"port": \#($0)}}"# + "\n" }
    writeFile(path, contents(1))
    return EditLayout(
      label: "one JSON file", directory: directory, editedPath: path, contents: contents,
      dumpCommand: "config-dump --watch --format json FILE",
      dumpArguments: ["--watch", "--format", "json", path], dumpEnvironment: [:],
      dumpLine: { #""new": \#($0), ""# },
      makeStore: { SettingsStore(layers: [FileLayer(scope: .user, files: [path])]) })
  }

  /// The app's name in ``appLayout()``.
  static let app = "benchapp"
  /// The variable ``appLayout()`` sets: a key of the vendor file, found by the environment layer's walk
  /// of the documents below it.
  static let appVariable = ("BENCHAPP_DATABASE_POOL_SIZE", "20")

  /// A whole app's layout under a root, as `Samples/demo` has it (``StandardLayout``): a vendor plist,
  /// the system INI file with an INI and a JSON drop-in, the user's JSON file, a variable of the app;
  /// the system INI file is edited. `config-dump --root R --app benchapp --watch`, and
  /// `SettingsStore(app:root:environment:)`.
  static func appLayout() -> EditLayout {
    let root = makeTemporaryDirectory("latency-app")
    let app = app
    let vendor = "\(root)/usr/lib/\(app)"
    let system = "\(root)/etc/\(app)"
    let user = "\(root)/home/user/.config/\(app)"  // the home StandardLayout uses under a root
    for directory in [vendor, "\(system)/\(app).conf.d", user] { makeDirectories(directory) }
    writeFile("\(vendor)/\(app).plist", vendorPropertyList)
    writeFile(
      "\(system)/\(app).conf.d/10-tls.ini",
      "[server.tls]\nenabled = yes\ncertPath = /etc/\(app)/tls/cert.pem\nkeyPath = /etc/\(app)/tls/key.pem\n")
    writeFile("\(system)/\(app).conf.d/20-limits.json", #"{"server": {"maxConnections": 4096}}"# + "\n")
    writeFile("\(user)/\(app).json", #"{"log": {"level": "debug", "format": "json"}}"# + "\n")
    let path = "\(system)/\(app).ini"
    let contents: @Sendable (Int) -> String = { port in
      """
      ; System-wide settings; drop-ins in \(app).conf.d/ come after this file.

      [server]
      host = 0.0.0.0
      port = \(port)
      allowed_origins[] = https://example.com
      allowed_origins[] = https://admin.example.com

      [log]
      level = warning   ; quieter in production

      [database]
      url = "postgres://db.internal:5432/\(app)"

      """
    }
    writeFile(path, contents(1))
    let variable = appVariable
    return EditLayout(
      label: "app layout", directory: root, editedPath: path, contents: contents,
      dumpCommand: "config-dump --root R --app \(app) --watch",
      dumpArguments: ["--root", root, "--app", app, "--watch"], dumpEnvironment: [variable.0: variable.1],
      dumpLine: { #""new": "\#($0)", ""# },  // INI values are text
      makeStore: { SettingsStore(app: app, root: root, environment: [variable.0: variable.1]) })
  }

  private static let vendorPropertyList = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    <dict>
    \t<key>server</key>
    \t<dict>
    \t\t<key>host</key>
    \t\t<string>127.0.0.1</string>
    \t\t<key>port</key>
    \t\t<integer>8080</integer>
    \t\t<key>maxConnections</key>
    \t\t<integer>1024</integer>
    \t\t<key>requestTimeout</key>
    \t\t<string>30s</string>
    \t</dict>
    \t<key>log</key>
    \t<dict>
    \t\t<key>level</key>
    \t\t<string>info</string>
    \t\t<key>format</key>
    \t\t<string>text</string>
    \t</dict>
    \t<key>database</key>
    \t<dict>
    \t\t<key>url</key>
    \t\t<string>postgres://localhost/app</string>
    \t\t<key>pool_size</key>
    \t\t<integer>10</integer>
    \t</dict>
    \t<key>releasedAt</key>
    \t<date>2026-11-01T09:00:00Z</date>
    </dict>
    </plist>

    """
}

/// Creates a directory and the missing ones above it (mode 0755).
func makeDirectories(_ path: String) {
  var prefix = ""
  for name in path.split(separator: "/") {
    prefix += "/" + name
    if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
      fatalError("mkdir \(prefix): \(String(cString: strerror(errno)))")
    }
  }
}
