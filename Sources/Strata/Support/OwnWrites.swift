import StrataPlatform

/// The files this process's writer put in place (``AtomicFile``), by device, inode, size and time: complete by
/// construction, since the written descriptor is closed before the rename. A reader that finds one of
/// them "open for writing" (``WriteLease``: a child process forked by another thread holds a copy of
/// the descriptor until it runs `exec`) reads it anyway, so that a store reads its own write back at once.
enum OwnWrites {
  private static let limit = 64
  private static let written = Locked<[FileIdentity]>([])

  /// A file's device, inode, size and modification time: an inode number freed and used again, or a
  /// file written in place since, is another file.
  struct FileIdentity: Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: Int64

    init(_ info: stat) {
      device = UInt64(info.st_dev)
      inode = UInt64(info.st_ino)
      size = Int64(info.st_size)
      let time = info.modificationTime
      modified = Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
  }

  /// Records a file about to be renamed into place.
  static func record(_ identity: FileIdentity) {
    written.withLock { written in
      if written.count == limit { written.removeFirst() }
      written.append(identity)
    }
  }

  /// Whether this process wrote the file.
  static func contains(_ identity: FileIdentity) -> Bool {
    written.withLock { $0.contains(identity) }
  }
}
