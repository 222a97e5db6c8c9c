/// A directory kubelet's atomic writer maintains (a ConfigMap, Secret or projected volume): the files
/// live in a timestamped directory `..2026_11_28_02_19_19.123456789`, `..data` is a symlink to it,
/// swapped by a rename at each update, and each visible name is a link `key -> ..data/key`.
///
/// Reading each key through its own link can mix two updates (the swap may come between two reads).
/// A reader pins `..data` once, reads every key through the timestamped directory it names, and checks
/// afterwards that `..data` still names it: then every key came from one update.
enum KubeletVolume {
  /// The name `..data` of the volume's current-version link.
  static let dataLink = "..data"

  /// The target of `directory/..data` (the current timestamped directory, as the link names it), or
  /// `nil` when the directory is not such a volume.
  static func pin(_ directory: String) -> String? {
    FileSystem.symlinkTarget(joinPath(directory, dataLink))
  }

  /// Where to read the entry `name` of `directory` for the version `pinned`: through the pinned
  /// directory when the entry is kubelet's link `name -> ..data/name`; else the entry itself.
  static func path(of name: String, in directory: String, pinned: String) -> String {
    let entry = joinPath(directory, name)
    guard let target = FileSystem.symlinkTarget(entry), target == dataLink + "/" + name else { return entry }
    return joinPath(pinned.hasPrefix("/") ? pinned : joinPath(directory, pinned), name)
  }

  /// Whether a name is part of the layout rather than a key: `..data`, `..data_tmp`, a timestamped
  /// directory.
  static func isLayoutName(_ name: String) -> Bool { name.hasPrefix("..") }
}
