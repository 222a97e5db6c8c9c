#if os(Linux) && Inotify
  import StrataPlatform

  /// Which inotify events to ask for, and which happened.
  struct InotifyMask: OptionSet, Sendable {
    let rawValue: UInt32
    static let modify = InotifyMask(rawValue: UInt32(IN_MODIFY))
    static let attrib = InotifyMask(rawValue: UInt32(IN_ATTRIB))
    static let closeWrite = InotifyMask(rawValue: UInt32(IN_CLOSE_WRITE))
    static let movedFrom = InotifyMask(rawValue: UInt32(IN_MOVED_FROM))
    static let movedTo = InotifyMask(rawValue: UInt32(IN_MOVED_TO))
    static let create = InotifyMask(rawValue: UInt32(IN_CREATE))
    static let delete = InotifyMask(rawValue: UInt32(IN_DELETE))
    static let deleteSelf = InotifyMask(rawValue: UInt32(IN_DELETE_SELF))
    static let moveSelf = InotifyMask(rawValue: UInt32(IN_MOVE_SELF))
    static let unmount = InotifyMask(rawValue: UInt32(IN_UNMOUNT))
    static let queueOverflow = InotifyMask(rawValue: UInt32(IN_Q_OVERFLOW))
    static let ignored = InotifyMask(rawValue: UInt32(IN_IGNORED))
    static let onlyDirectory = InotifyMask(rawValue: UInt32(IN_ONLYDIR))
    static let excludeUnlinked = InotifyMask(rawValue: UInt32(IN_EXCL_UNLINK))

    /// What a configuration directory is watched for (WATCHING.md).
    static let directoryWatch: InotifyMask = [
      .closeWrite, .movedTo, .movedFrom, .create, .delete, .deleteSelf, .moveSelf, .attrib, .modify,
      .onlyDirectory,
      .excludeUnlinked,
    ]
  }

  /// One inotify record.
  struct InotifyEvent: Sendable {
    var watch: Int32
    var mask: InotifyMask
    var name: String
  }

  /// The system calls of the inotify hub, behind a protocol so tests can inject failures (`ENOSPC`,
  /// `EMFILE`, a `poll` or `read` that fails) and pauses that do not sleep.
  ///
  /// `poll`, `read` and `sleep` have the live calls as defaults: a test's system implements only what it
  /// injects.
  protocol InotifySystem: Sendable {
    /// Creates a non-blocking, close-on-exec instance. The corresponding C function is `inotify_init1`.
    func initialize() throws(Errno) -> Int32
    /// Watches a directory. The corresponding C function is `inotify_add_watch`.
    func addWatch(_ fd: Int32, path: String, mask: InotifyMask) throws(Errno) -> Int32
    /// Stops watching. The corresponding C function is `inotify_rm_watch`.
    func removeWatch(_ fd: Int32, watch: Int32)
    /// Waits until one of `fds` is ready or `timeout` milliseconds pass (-1: no limit), and returns how
    /// many are ready. `EINTR` is thrown, not retried: the caller computes its timeout again. The
    /// corresponding C function is `poll`.
    func poll(_ fds: inout [pollfd], timeout: Int32) throws(Errno) -> Int
    /// Reads from the inotify descriptor (non-blocking: `EAGAIN` when nothing is pending), retrying
    /// `EINTR`. The corresponding C function is `read`.
    func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int
    /// Sleeps, after a failed `poll` (there is nothing to wait on). The corresponding C function is
    /// `nanosleep`.
    func sleep(milliseconds: Int32)
  }

  extension InotifySystem {
    func poll(_ fds: inout [pollfd], timeout: Int32) throws(Errno) -> Int {
      try livePoll(&fds, timeout: timeout)
    }

    func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
      let count = Syscall.read(fd, buffer.baseAddress, buffer.count)
      if count < 0 { throw Errno(errno) }
      return count
    }

    func sleep(milliseconds: Int32) { liveSleep(milliseconds: milliseconds) }
  }

  /// The real system calls.
  struct LiveInotify: InotifySystem {
    func initialize() throws(Errno) -> Int32 {
      let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
      if fd < 0 { throw Errno(errno) }
      return fd
    }

    func addWatch(_ fd: Int32, path: String, mask: InotifyMask) throws(Errno) -> Int32 {
      while true {
        let wd = inotify_add_watch(fd, path, mask.rawValue)
        if wd >= 0 { return wd }
        let code = errno
        if code != EINTR { throw Errno(code) }
      }
    }

    func removeWatch(_ fd: Int32, watch: Int32) {
      _ = inotify_rm_watch(fd, watch)
    }
  }

  /// Reads every pending record from a non-blocking inotify descriptor. Records are parsed by byte
  /// offset: `struct inotify_event` is 16 bytes, followed by `len` bytes of NUL-padded name.
  /// - Throws: the error of a `read` that failed otherwise than with `EAGAIN` (nothing more now) or
  ///   `EINTR`: the descriptor cannot be read.
  func readInotifyEvents(_ fd: Int32, system: any InotifySystem) throws(Errno) -> [InotifyEvent] {
    var events: [InotifyEvent] = []
    // Large enough for many records; a buffer under 16 + NAME_MAX + 1 bytes would give EINVAL.
    // Not zeroed: `read` fills what is parsed.
    var buffer = [UInt8](unsafeUninitializedCapacity: 64 * 1024) { _, count in count = 64 * 1024 }
    while true {
      let result = buffer.withUnsafeMutableBytes { raw in
        Result { () throws(Errno) in try system.read(fd, into: raw) }
      }
      let count: Int
      switch result {
      case .success(let read): count = read
      case .failure(let error) where error.rawValue == EINTR: continue
      case .failure(let error) where error.rawValue == EAGAIN || error.rawValue == EWOULDBLOCK: return events
      case .failure(let error): throw error
      }
      if count == 0 { return events }
      var offset = 0
      while offset + 16 <= count {
        let (wd, mask, length) = buffer.withUnsafeBytes { raw in
          (
            raw.loadUnaligned(fromByteOffset: offset, as: Int32.self),
            raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
            Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
          )
        }
        let nameBytes = buffer[(offset + 16)..<min(offset + 16 + length, count)].prefix { $0 != 0 }
        events.append(
          InotifyEvent(
            watch: wd, mask: InotifyMask(rawValue: mask), name: String(decoding: nameBytes, as: UTF8.self)))
        offset += 16 + length
      }
    }
  }
#endif
