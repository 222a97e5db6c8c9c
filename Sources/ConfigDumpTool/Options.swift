import Strata

/// One option of `config-dump`: its names, its value, its help, and what it sets. The table below
/// drives the parser (``Arguments/parse(_:formats:)``), validation of values, and `--help`: a new flag
/// is one entry here (plus what it does, in `DumpCommand`).
struct Option {
  /// Where `--help` lists it.
  enum Section { case sources, output, running }

  /// Its names, the long one last (`-h`, `--help`).
  var names: [String]
  /// The value's placeholder in `--help` (`NAME`); `nil` for a switch, which takes no value.
  var value: String?
  var section: Section
  /// The help, one string per line of `--help`.
  var help: [String]
  /// Sets what the option asks for; throws a usage error for a value it does not take.
  var apply: @Sendable (inout Arguments, String) throws(Arguments.UsageError) -> Void

  /// A switch: sets a flag.
  static func flag(
    _ names: [String], _ section: Section, _ help: [String],
    _ set: @escaping @Sendable (inout Arguments) -> Void
  ) -> Option {
    Option(names: names, value: nil, section: section, help: help) { arguments, _ in set(&arguments) }
  }

  /// The options of `config-dump`, in `--help` order.
  static let all: [Option] = [
    Option(
      names: ["--input-format"], value: "F", section: .sources,
      help: ["the format of FILE arguments whose names do not say: \(formatNames)"]
    ) { arguments, text throws(Arguments.UsageError) in
      guard arguments.formats.format(named: text) != nil else {
        let names = arguments.formats.names.joined(separator: ", ")
        throw Arguments.UsageError(message: "unknown input format '\(text)'; expected one of: \(names)")
      }
      arguments.inputFormat = text
    },
    Option(
      names: ["--app"], value: "NAME", section: .sources,
      help: [
        "the standard layers of app NAME:",
        "  /usr/lib/NAME/NAME.{\(mainFiles)} and NAME.conf.d/*  (vendor)",
        "  /etc/NAME/NAME.{\(mainFiles)} and NAME.conf.d/*      (system)",
        "  $XDG_CONFIG_HOME/NAME/ (default ~/.config/NAME/)            (user)",
        "  NAME_* environment variables                               (environment)",
        "FILE arguments, if any, stack above the user layer.",
      ]
    ) { arguments, text in arguments.app = text },
    Option(
      names: ["--root"], value: "DIR", section: .sources,
      help: [
        "resolve every absolute path under DIR (a test tree, an extracted package);",
        "with --app, the user layer is $XDG_CONFIG_HOME or $HOME/.config when that",
        "exists inside DIR, else DIR/home/user/.config/NAME (as",
        "SettingsStore(app:root:) does), unless --home is given. With FILE",
        "arguments, a FILE inside DIR (DIR/etc/mysql/my.cnf) is read as the path the",
        "running system names (/etc/mysql/my.cnf), so its absolute includes are",
        "read under DIR too. Messages name the files on disk (DIR/etc/…)",
      ]
    ) { arguments, text in arguments.root = text },
    Option(
      names: ["--home"], value: "DIR", section: .sources,
      help: ["the home directory (inside --root) for the user layer"]
    ) { arguments, text in arguments.home = text },
    Option(
      names: ["--profile"], value: "P", section: .sources,
      help: [
        "with --app, the overlays of profile P above each layer's files, as",
        "NAME_PROFILE=P selects them: NAME.P.{\(mainFiles)} and NAME.P.conf.d/*",
      ]
    ) { arguments, text in arguments.profile = text },
    Option(
      names: ["--key-per-file"], value: "DIR", section: .sources,
      help: [
        "a directory where each file is one key and its content the value (a",
        "Kubernetes ConfigMap or Secret volume); secret: redacted unless",
        "--show-secrets",
      ]
    ) { arguments, text in arguments.keyPerFileDirectories.append(text) },
    Option(
      names: ["--env-prefix"], value: "P", section: .sources,
      help: [
        "the environment prefix (default: NAME upper-cased); with FILE arguments",
        "alone, adds a P_* environment layer on top",
      ]
    ) { arguments, text in arguments.environmentPrefix = text },
    Option(
      names: ["--max-file-size"], value: "N", section: .sources,
      help: ["refuse files larger than N bytes (default 16777216)"]
    ) { arguments, text throws(Arguments.UsageError) in
      guard let size = Int(text), size > 0 else {
        throw Arguments.UsageError(message: "--max-file-size takes a positive number of bytes, not '\(text)'")
      }
      arguments.maxFileSize = size
    },
    Option(
      names: ["--schema"], value: "FILE", section: .sources,
      help: [
        "a JSON Schema exported by the app (SettingsStore.jsonSchema): values are",
        "converted to their declared types (a value that does not convert falls",
        "back to the next lower layer), unset keys show their defaults, secrets are",
        "redacted, old keys (aliases) read as their settings' keys, and --check",
        "reports unknown keys with a \"did you mean\", old keys as deprecated, and",
        "required settings that nothing sets (an error naming the file and variable)",
      ]
    ) { arguments, text in arguments.schema = text },
    .flag(
      ["--show-secrets"], .sources,
      [
        "print secret values in clear. Secrets are: a schema's secret settings; keys no",
        "schema declares whose last name ends in the word password, passphrase,",
        "secret(s), token, credential(s) or auth, in passwd or pwd after another",
        "word (smtp.passwd, not a bare passwd), or in key after api/private/secret/",
        "access/signing/encryption/master (words split at camelCase, _, -, ., space:",
        "db_password, apiKey, wsrep_sst_auth; not passwd_files, unix password sync,",
        "keyboard, authMethod); values of --key-per-file directories. With --format",
        "env, redacted values are named in a warning on stderr",
      ]
    ) { $0.showSecrets = true },
    Option(
      names: ["--format"], value: "F", section: .output,
      help: [
        "table (default), json, ini, plist, or env (export lines for a shell); json",
        "and plist print a document even when there are no keys ({}, <dict/>)",
      ]
    ) { arguments, text throws(Arguments.UsageError) in
      guard let format = DumpOptions.Format(rawValue: text) else {
        let names = DumpOptions.Format.allCases.map(\.rawValue).joined(separator: ", ")
        throw Arguments.UsageError(message: "unknown format '\(text)'; expected one of: \(names)")
      }
      arguments.format = format
    },
    .flag(
      ["--show-origin"], .output,
      [
        "show where each value came from: file:line:column, env:NAME, default",
        "(ini and env: as comments; plist: left out, with a warning)",
      ]
    ) { $0.showOrigin = true },
    .flag(
      ["--show-shadowed"], .output,
      [
        "also show the lower-layer values each key hides (table and json; other",
        "formats leave them out, with a warning)",
      ]
    ) { $0.showShadowed = true },
    .flag(
      ["--no-truncate"], .output,
      [
        "print long values whole (on a terminal, the table cuts them with … to fit",
        "its width; piped output is never cut)",
      ]
    ) { $0.noTruncate = true },
    Option(
      names: ["--key"], value: "KEY", section: .output,
      help: [
        "print only KEY (a dotted path such as server.port); a table prints as a",
        "subtree; with --show-shadowed, a value is followed by one",
        "\"  shadows VALUE<TAB>ORIGIN\" line per value it hides",
      ]
    ) { arguments, text in arguments.key = text },
    .flag(
      ["--watch"], .output,
      [
        "after the dump, keep running and print one JSON line per change",
        "{\"generation\":…, \"key\":…, \"old\":…, \"new\":…, \"origin\":…} and one per",
        "error {\"error\":…, \"path\":…, \"line\":…, \"column\":…}; secrets redacted;",
        "with --schema, a restart-required setting's line ends with",
        "\"pendingRestart\": true (a running program keeps its old value); with",
        "--schema, an edit the program would reject keeps the running value, as the",
        "program does, and prints {\"generation\":…, \"key\":…, \"kept\":…,",
        "\"rejected\":…, \"origin\":…} after its error line;",
        "stop with Ctrl-C (SIGINT) or SIGTERM",
      ]
    ) { $0.watch = true },
    .flag(
      ["--check"], .output,
      [
        "parse everything and print each problem as",
        "path:line:column: error|warning: message, and each drop-in skipped for",
        "its name as path: note: skipped: why; with --app, warns of directories",
        "that look like a misplaced drop-in directory (conf.d, config.d, NAME.d,",
        "NAME.EXT.d beside the main file; NAME.conf.d one level up) with the mv",
        "that fixes it",
      ]
    ) { $0.check = true },
    .flag(["-h", "--help"], .output, ["show this help"]) { $0.help = true },
    Option(
      names: ["--running"], value: "APP", section: .running,
      help: [
        "ask the running service APP through its control socket (/run/APP/control.sock,",
        "else $XDG_RUNTIME_DIR/APP/control.sock): its live values with origins, the",
        "generation and when it loaded, overrides with their time left, rejected edits",
        "(file:line:column and why), pending restarts and what a restart picks up, and",
        "what differs from the files on disk now; secrets redacted. The service must",
        "serve the socket (SettingsStore.serveControl); only its user and root may ask",
      ]
    ) { arguments, text in arguments.running = text },
    Option(
      names: ["--pid"], value: "N", section: .running,
      help: ["ask the service running as process N (its socket is found through /proc)"]
    ) { arguments, text throws(Arguments.UsageError) in
      guard let pid = Int32(text), pid > 0 else {
        throw Arguments.UsageError(message: "--pid takes a process id, not '\(text)'")
      }
      arguments.pid = pid
    },
    Option(
      names: ["--socket"], value: "PATH", section: .running,
      help: ["ask the service whose control socket is PATH"]
    ) { arguments, text in arguments.socket = text },
    Option(
      names: ["--plan"], value: "FILE", section: .running,
      help: [
        "a dry run of FILE as the new text of the service's file of the same name",
        "(or --as PATH): which values would change, which would wait for a restart,",
        "which would be rejected and why, which keys are unknown. Nothing is applied.",
        "Exit status 1 when something would be rejected",
      ]
    ) { arguments, text in arguments.plan = text },
    Option(
      names: ["--as"], value: "PATH", section: .running,
      help: ["with --plan: the service's file FILE stands for"]
    ) { arguments, text in arguments.planTarget = text },
    Option(
      names: ["--set"], value: "KEY=VALUE", section: .running,
      help: [
        "override KEY in the running service for --for DURATION (15m, 1h30m, 90s):",
        "checked as any write (.readOnly, type, validation), held in memory only (a",
        "restart ends it), ended by itself when the time is up",
      ]
    ) { arguments, text in arguments.set = text },
    Option(
      names: ["--for"], value: "DURATION", section: .running,
      help: ["how long a --set override lasts"]
    ) { arguments, text throws(Arguments.UsageError) in
      guard let seconds = Arguments.seconds(in: text) else {
        throw Arguments.UsageError(message: "--for takes a duration such as 15m, 1h30m or 90s, not '\(text)'")
      }
      arguments.duration = seconds
    },
    Option(
      names: ["--unset"], value: "KEY", section: .running,
      help: ["end the override of KEY now"]
    ) { arguments, text in arguments.unset = text },
    .flag(
      ["--history"], .running,
      [
        "with --running APP: the changes of the service's running values, each with",
        "its time, generation, old and new value, origin and cause, from its state",
        "directory (/var/lib/APP for root, else ~/.local/state/APP); after a restart too;",
        "with --pid N or --socket PATH, from where that running service writes it",
      ]
    ) { $0.history = true },
    Option(
      names: ["--since"], value: "DURATION", section: .running,
      help: ["with --history, only the changes of the last DURATION (such as 1h)"]
    ) { arguments, text throws(Arguments.UsageError) in
      guard let seconds = Arguments.seconds(in: text) else {
        throw Arguments.UsageError(
          message: "--since takes a duration such as 15m, 1h30m or 90s, not '\(text)'")
      }
      arguments.since = seconds
    },
  ]

  /// The option a name (`--app`, `-h`) means, if any.
  static func named(_ name: String) -> Option? {
    all.first { $0.names.contains(name) }
  }

  /// This option's lines in `--help`: its names and value, then the help aligned at column 25.
  var helpLines: [String] {
    let head = "  " + names.joined(separator: ", ") + (value.map { " " + $0 } ?? "")
    let column = 24
    var lines: [String] = []
    for (index, line) in help.enumerated() {
      if index == 0 {
        let padding = max(2, column - head.count)
        lines.append(head + String(repeating: " ", count: padding) + line)
      } else {
        lines.append(String(repeating: " ", count: column) + line)
      }
    }
    return lines
  }
}

/// The extensions of the tool's formats, as in `.plist .json …`.
var extensionList: String { formats.allExtensions.map { "." + $0 }.joined(separator: " ") }
/// The names of the tool's formats, as `--input-format` takes them.
var formatNames: String { formats.names.joined(separator: ", ") }
/// The main-file extensions of the tool's formats, as in `NAME.{plist,json,ini,env,toml}`.
var mainFiles: String { formats.mainFileExtensions.joined(separator: ",") }
