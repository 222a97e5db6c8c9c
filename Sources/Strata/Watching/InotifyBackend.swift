#if os(Linux) && Inotify
  import StrataPlatform

  /// The Linux backend: one inotify instance, a watch per directory with the mask of WATCHING.md, and
  /// its records turned into ``FileEvent``s (read on `IN_CLOSE_WRITE` or `IN_MOVED_TO`, never on
  /// `IN_MODIFY` alone, which would catch half-written files).
  ///
  /// Compiled in on Linux when the `Inotify` package trait is on (the default); with the trait off
  /// (`swift build --disable-default-traits`), Linux builds take the path of the platforms without it
  /// (``PollingBackend``).
  struct InotifyBackend: FileEventBackend {
    /// The system calls (tests inject failures here).
    let system: any InotifySystem

    init(system: any InotifySystem = LiveInotify()) { self.system = system }

    var name: String { "inotify" }

    func open() throws(Errno) -> Int32? { try system.initialize() }

    func addWatch(_ fd: Int32, directory: String) throws(Errno) -> Int32 {
      try system.addWatch(fd, path: directory, mask: .directoryWatch)
    }

    func removeWatch(_ fd: Int32, watch: Int32) { system.removeWatch(fd, watch: watch) }

    func readEvents(_ fd: Int32) throws(Errno) -> [FileEvent] {
      try readInotifyEvents(fd, system: system).map(FileEvent.init)
    }

    func unavailableAdvice(_ error: Errno) -> String {
      "inotify is unavailable (\(error)); polling every path. Raise fs.inotify.max_user_instances "
        + "(sysctl -w fs.inotify.max_user_instances=1024) if the limit was reached"
    }

    func watchFailureAdvice(_ error: Errno) -> String {
      switch error.rawValue {
      case ENOSPC:
        "the inotify watch limit is reached (ENOSPC); raise fs.inotify.max_user_watches "
          + "(sysctl -w fs.inotify.max_user_watches=524288)"
      case EMFILE: "too many inotify instances (EMFILE); raise fs.inotify.max_user_instances"
      default: "cannot watch it (\(error))"
      }
    }

    func poll(_ fds: inout [pollfd], timeout: Int32) throws(Errno) -> Int {
      try system.poll(&fds, timeout: timeout)
    }

    func sleep(milliseconds: Int32) { system.sleep(milliseconds: milliseconds) }
  }

  extension FileEvent {
    /// The watcher's reading of an inotify record.
    init(_ event: InotifyEvent) {
      var kind: Kind = []
      let mask = event.mask
      if mask.contains(.queueOverflow) { kind.insert(.overflow) }
      if mask.contains(.ignored) || mask.contains(.unmount) { kind.insert(.watchEnded) }
      if mask.contains(.deleteSelf) || mask.contains(.moveSelf) { kind.insert(.directoryGone) }
      if mask.contains(.create) { kind.insert(.created) }
      if mask.contains(.closeWrite) || mask.contains(.movedTo) { kind.insert(.completed) }
      if mask.contains(.delete) || mask.contains(.movedFrom) { kind.insert(.vanished) }
      if mask.contains(.modify) || mask.contains(.attrib) { kind.insert(.touched) }
      if mask.contains(.modify) { kind.insert(.written) }
      self.init(watch: event.watch, kind: kind, name: event.name)
    }
  }
#endif
