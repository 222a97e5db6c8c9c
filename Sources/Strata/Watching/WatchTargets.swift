import StrataPlatform

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
