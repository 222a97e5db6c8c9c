/// The kubelet's layout of a ConfigMap, Secret, downward API or projected volume: each update is written
/// to a new timestamped directory (`..2026_11_28_02_19_19.123456789`), a `..data_tmp` link to it is
/// renamed over the `..data` link, and each key is a link `NAME -> ..data/NAME` (Kubernetes'
/// `AtomicWriter`).
///
/// The layout matters twice: its own entries are not configuration, but they are not an editor's
/// leftovers either, so a drop-in directory holding them has nothing to report about them (see
/// ``DropInNames``); and a refused file in such a volume cannot be fixed with `chmod`, whose change
/// the next update undoes (when the mount even allows it), so ``FileTrust`` names the pod spec's fields
/// instead. And its keys must be read as one version: reading each key through its own link can mix
/// two updates (the swap may come between two reads), so a reader pins `..data` once (``pin(_:)``),
/// reads every key through the timestamped directory it names (``path(of:in:pinned:)``), and checks
/// afterwards that `..data` still names it.
enum KubeletVolume {
  /// The name of the volume's current-version link.
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

  /// Whether `name` (a file name, not a path) is one of the kubelet's own entries: `..data`,
  /// `..data_tmp`, or a timestamped directory.
  static func isOwnEntry(_ name: some StringProtocol) -> Bool {
    name == "..data" || name == "..data_tmp" || isTimestampedDirectory(name)
  }

  /// Whether `path` is, or is inside, a kubelet volume: a component of it is one of the kubelet's
  /// entries (the real path of a key goes through the timestamped directory), or it or its directory
  /// holds a `..data` link (the volume's directory, or a key's link in it). Asks the disk, so it is
  /// for messages, not for the path every load takes.
  static func holds(_ path: String) -> Bool {
    if path.utf8.split(separator: UInt8(ascii: "/")).contains(where: { isOwnEntry(Substring($0)) }) {
      return true
    }
    return FileSystem.entry(at: joinPath(path, "..data")) == .symlink
      || FileSystem.entry(at: joinPath(directoryPart(of: path), "..data")) == .symlink
  }

  /// `..2006_01_02_15_04_05.` and the decimal digits Go's `os.MkdirTemp` appends: the kubelet names each
  /// version of the volume after the UTC time it was written.
  private static func isTimestampedDirectory(_ name: some StringProtocol) -> Bool {
    let pattern = Array("..dddd_dd_dd_dd_dd_dd.".utf8)
    let bytes = Array(name.utf8)
    guard bytes.count > pattern.count else { return false }
    func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    for (byte, wanted) in zip(bytes, pattern) {
      let matches = wanted == UInt8(ascii: "d") ? isDigit(byte) : byte == wanted
      guard matches else { return false }
    }
    return bytes[pattern.count...].allSatisfy(isDigit)
  }
}
