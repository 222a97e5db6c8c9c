/// Where a write to a configuration path really goes.
enum WritePath {
  /// The file a write to `path` replaces: `path` itself, or for a symlink (a dotfiles checkout links
  /// `~/.config/app/app.json` into a repository) the file at the end of its chain, so that the link
  /// stays and the file it shows gets the new content. A dangling link's target is created.
  /// - Throws: `writeFailed` for a chain of more than 40 links (a loop).
  static func target(of path: String, reportedAs: String) throws(StrataError) -> String {
    var current = path
    for _ in 0..<40 {
      guard FileSystem.entry(at: current) == .symlink, let target = FileSystem.symlinkTarget(current) else {
        return current
      }
      current = target.hasPrefix("/") ? target : joinPath(directoryPart(of: current), target)
    }
    throw StrataError(.writeFailed, "too many levels of symbolic links", path: reportedAs)
  }
}
