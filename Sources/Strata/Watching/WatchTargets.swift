import Glibc

/// What must be watched for one target path: the directories to watch and the paths whose events
/// matter (the target, every symlink hop, missing ancestors).
struct WatchPlan: Sendable {
  var directories: Set<String> = []
  var interest: Set<String> = []
  /// The real directory whose entries matter, when the target is a directory (drop-ins, a volume).
  var directoryTarget: String?
  /// Whether the chain was longer than the symlink limit.
  var tooManyHops = false
  /// The path of the chain's last component when it is a regular file, or missing: an atomic save that
  /// renames another regular file over it, or its removal, leaves the plan as it is (no re-arm).
  var plainEnd: String?

  /// Resolves `target` component by component, following symlinks (at most `maxHops`), watching the
  /// directory that holds the final component, every symlink, and the first missing component.
  init(target: String, maxHops: Int = 40) {
    var pending = target.split(separator: "/").map(String.init)
    var current = ""
    var hops = 0
    while !pending.isEmpty {
      let component = pending.removeFirst()
      let parent = current.isEmpty ? "/" : current
      let next = current + "/" + component
      interest.insert(next)
      var info = stat()
      guard lstat(next, &info) == 0 else {
        directories.insert(parent)  // nearest existing ancestor: re-armed when the missing part appears
        if pending.isEmpty { plainEnd = next }
        return
      }
      if (info.st_mode & S_IFMT) == S_IFLNK {
        directories.insert(parent)
        hops += 1
        guard hops <= maxHops, let link = FileSystem.symlinkTarget(next) else {
          tooManyHops = hops > maxHops
          return
        }
        let linked = link.split(separator: "/").map(String.init)
        pending = linked + pending
        if link.hasPrefix("/") { current = "" }
        continue
      }
      if component == ".." {
        current = directoryPart(of: current.isEmpty ? "/" : current)
        if current == "/" { current = "" }
        continue
      }
      if component == "." { continue }
      current = next
      if pending.isEmpty {
        directories.insert(parent)
        if (info.st_mode & S_IFMT) == S_IFDIR {
          directories.insert(next)
          directoryTarget = next
        } else if (info.st_mode & S_IFMT) == S_IFREG {
          plainEnd = next
        }
      }
    }
  }
}

/// The stat fields that change when a file is rewritten in any way (WATCHING.md: mtime alone misses
/// same-size edits, coarse timestamps and `cp -p`).
struct StatSignature: Hashable, Sendable {
  var device: UInt64
  var inode: UInt64
  var size: Int64
  var modified: Int64
  var changed: Int64

  init?(_ path: String) {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    device = UInt64(info.st_dev)
    inode = UInt64(info.st_ino)
    size = Int64(info.st_size)
    modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
  }

  /// The signature of a path: the file's, or for a directory, every entry's (sorted by name).
  static func of(_ path: String) -> [StatSignature?] {
    guard FileSystem.isDirectory(path) else { return [StatSignature(path)] }
    let names = ((try? FileSystem.contents(ofDirectory: path, reportedAs: path)) ?? nil)?.sorted() ?? []
    return [StatSignature(path)] + names.map { StatSignature(joinPath(path, $0)) }
  }
}
