import FoundationEssentials
import StrataPlatform

/// A private directory that every path an INI input names is mapped into, so that `!include` and
/// `!includedir` exercise real file reading without reaching the rest of the file system (no
/// `/dev/zero`, no FIFOs, no `/proc`). It holds a few files that include each other, a cycle, a fan-out
/// bounded by `maxIncludedFiles`, a drop-in directory and files with errors.
enum IncludeSandbox {
  /// The sandbox's root, created on first use: `STRATA_FUZZ_SANDBOX` (which `Scripts/fuzz.sh` points
  /// into its scratch directory, so a crashed run leaves nothing in `/tmp`), else a temporary directory
  /// removed at exit.
  static let root: String = {
    if let given = getenv("STRATA_FUZZ_SANDBOX") {
      let root = String(cString: given)
      mkdir(root, 0o700)
      populate(root)
      return root
    }
    var template = Array("/tmp/strata-fuzz-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { fatalError("mkdtemp failed: errno \(errno)") }
    let root = String(cString: made)
    populate(root)
    atexit {
      // Best effort, with the sandbox's known layout: directories after their files.
      for (path, content) in IncludeSandbox.files.reversed() {
        let full = IncludeSandbox.root + "/" + path
        if content == nil { rmdir(full) } else { unlink(full) }
      }
      rmdir(IncludeSandbox.root)
    }
    return root
  }()

  /// Writes the sandbox's files under `root` (replacing what a previous run left).
  private static func populate(_ root: String) {
    for (path, content) in files {
      let full = root + "/" + path
      if content == nil {
        mkdir(full, 0o700)
      } else if let file = fopen(full, "w") {
        _ = content!.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        fclose(file)
      }
    }
  }

  /// Parse options whose `resolvePath` maps every path into the sandbox: `..`, `.` and empty components
  /// are dropped, so no path leaves it. At most 64 included files keep one input fast.
  static let options: ParseOptions = {
    let root = IncludeSandbox.root
    return ParseOptions(
      maxFileSize: 1 << 20, maxIncludedFiles: 64,
      resolvePath: { path in
        let parts = path.split(separator: "/").filter { $0 != "." && $0 != ".." }
        return parts.isEmpty ? root : root + "/" + parts.joined(separator: "/")
      })
  }()

  /// Paths relative to the root, in creation order; `nil` content makes a directory.
  private static let files: [(String, [UInt8]?)] = [
    ("inc.ini", Array("top = 1\n[inc]\nx = \"quoted\"\nlist[] = a\nlist[] = b\n".utf8)),
    ("nested.ini", Array("[nested]\n!include inc.ini\ny: 2\n".utf8)),
    ("self.ini", Array("!include self.ini\n".utf8)),
    ("a.conf", Array("!include b.conf\n".utf8)),
    ("b.conf", Array("!include ./a.conf\n".utf8)),
    ("fan1.ini", Array("!include fan2.ini\n!include fan2.ini\n!include fan2.ini\n".utf8)),
    ("fan2.ini", Array("!include fan3.ini\n!include fan3.ini\n!include fan3.ini\n".utf8)),
    ("fan3.ini", Array("!include fan4.ini\n!include fan4.ini\n!include fan4.ini\n".utf8)),
    ("fan4.ini", Array("[fan]\nk = v\n".utf8)),
    ("bad.ini", Array("[unterminated\n".utf8)),
    ("badutf8.ini", [0x6B, 0x20, 0x3D, 0x20, 0xC3, 0x28, 0x0A]),
    ("conflict.ini", Array("inc = scalar\n".utf8)),
    ("conf.d", nil),
    ("conf.d/10-a.conf", Array("[d]\na = 1\n".utf8)),
    ("conf.d/20-b.cnf", Array("b[] = 2\nb[] = 3\n".utf8)),
    ("conf.d/30-up.ini", Array("!include ../inc.ini\n".utf8)),
    ("conf.d/.hidden.ini", Array("hidden = 1\n".utf8)),
    ("conf.d/x.ini~", Array("backup = 1\n".utf8)),
    ("conf.d/notes.txt", Array("not = read\n".utf8)),
    ("conf.d/sub.conf", nil),
    ("conf.d/sub.conf/inner.ini", Array("inner = 1\n".utf8)),
    ("loops.d", nil),
    ("loops.d/again.conf", Array("!includedir .\n".utf8)),
  ]
}
