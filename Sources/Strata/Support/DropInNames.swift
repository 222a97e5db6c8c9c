/// Which file names in a drop-in directory (`APP.conf.d/`, an INI `!includedir`) are configuration.
///
/// Editors and deployment tools leave temporary files next to the ones they write: vim's `4913` probe
/// and `f~` backup, emacs's `.#f` lock and `#f#` autosave, rsync's `.f.XXXXXX`, ansible's
/// `.ansible_tmpXXXXf`, chef's `.chef-f.ini`, sed's `sedXXXXXX`, dpkg's `f.ini.dpkg-new`. None of them
/// may ever be loaded, even for a moment, so the rule is an allow-list: a name is loaded only if it has
/// one of the wanted extensions and does not start with `.` or `#` or end with `~`.
enum DropInNames {
  /// Whether `name` (a file name, not a path) is a drop-in with one of `extensions` (lower case, no dot).
  static func shouldLoad(_ name: String, extensions: [String]) -> Bool {
    guard let first = name.first, first != ".", first != "#", name.last != "~" else { return false }
    guard let ext = fileExtension(of: name) else { return false }
    return extensions.contains(ext)
  }

  /// Why `name` is not loaded as a drop-in, or `nil` when it is: for `config-dump --check`, which
  /// lists every file it skips.
  ///
  /// Also `nil` for the kubelet's own entries (`..data`, `..data_tmp`, `..2026_11_28_02_19_19.123…`,
  /// see ``KubeletVolume``), which are not loaded either: a ConfigMap mounted as the drop-in directory
  /// always holds them, and a new timestamped directory comes with every update, so a note about each
  /// would be noise that reports nothing wrong.
  static func skipReason(_ name: String, extensions: [String]) -> String? {
    guard !shouldLoad(name, extensions: extensions), !KubeletVolume.isOwnEntry(name) else { return nil }
    if name.hasPrefix(".") || name.hasPrefix("#") || name.hasSuffix("~") || name == "4913" {
      return "a hidden, backup or editor's temporary file"
    }
    let wanted = extensions.map { "." + $0 }.joined(separator: ", ")
    return "not a configuration file name (drop-ins end in \(wanted))"
  }

  /// The drop-in names among `names`, sorted by byte order of the name (as systemd sorts them).
  static func sorted(_ names: [String], extensions: [String]) -> [String] {
    names.filter { shouldLoad($0, extensions: extensions) }.sorted {
      Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8))
    }
  }
}
