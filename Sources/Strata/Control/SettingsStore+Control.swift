import StrataPlatform

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The control socket: a running service answers `config-dump --running` (see the catalog's
/// OperatingAService article for the protocol).
extension SettingsStore {
  /// Serves the store's control socket until the task is cancelled, so that `config-dump --running APP`
  /// can show what the process uses now, plan an edit against it, and set a time-limited override.
  ///
  /// The socket is a Unix-domain socket of mode 0600; each connection is checked with the kernel's peer
  /// credentials (`SO_PEERCRED`), and only the service's own user and root may use it; every refused
  /// connection is told as a ``StoreEvent/controlRefused(_:)`` event. Requests are read on a thread of
  /// the socket's own, never on the store's reload loop or the cooperative pool, each bounded in size and
  /// time. Overrides set through it change the runtime layer only, for the life of the process; each
  /// ends by itself with a ``StoreEvent/overrideExpired(key:)`` event. Cancelling the task closes the
  /// socket, removes its file and ends the overrides still standing (with the same event).
  ///
  /// - Parameters:
  ///   - path: the socket's path; by default `control.sock` in the service's runtime directory:
  ///     systemd's `$RUNTIME_DIRECTORY` (`RuntimeDirectory=` in the unit), else `$XDG_RUNTIME_DIR/APP`
  ///     for a user other than root, else `/run/APP` (the directory is made, mode 0700, when it is
  ///     missing).
  ///   - onListening: called with the socket's path once it accepts connections (a service that reports
  ///     itself ready only then).
  /// - Throws: ``StrataError`` (`writeFailed`, naming the path and why) when the socket cannot be made,
  ///   before serving anything: no runtime directory, a store without an app name and no `path`,
  ///   another process serving there already.
  public func serveControl(
    at path: String? = nil, onListening: @escaping @Sendable (String) -> Void = { _ in }
  ) async throws(StrataError) {
    let server = try startControl(
      at: path, clock: MonotonicControlClock(), mode: 0o600, environment: ProcessInfo.processInfo.environment)
    onListening(server.path)
    await withTaskCancellationHandler {
      await server.finished()
    } onCancel: {
      server.stop()
    }
  }

  /// Starts serving the control socket at `path` with an injected clock (tests, and the stress child's
  /// `control` mode), and returns the server (``ControlServer/stop()`` ends it).
  package func startControl(at path: String, clock: any ControlClock) throws(StrataError) -> ControlServer {
    try startControl(at: path, clock: clock, mode: 0o600, environment: [:])
  }

  /// Starts serving the control socket (see ``serveControl(at:onListening:)``) with a clock, a file mode (a test
  /// that lets another user reach the peer check) and an environment for the default path.
  func startControl(
    at path: String?, clock: any ControlClock, mode: mode_t, environment: [String: String]
  ) throws(StrataError) -> ControlServer {
    let chosen: String
    if let path { chosen = path } else { chosen = try defaultControlPath(environment: environment) }
    let overrides = RuntimeOverrides(clock: clock)
    // The socket holds the store weakly: a store that is gone answers nothing.
    let handlers = ControlServer.Handlers(
      handle: { [weak self] request in
        guard let self else { return .failure("the service's store is gone") }
        return ControlAnswers(store: self, overrides: overrides).answer(request)
      },
      refused: { [weak self] message in self?.emit(.controlRefused(message)) },
      tick: { [weak self] in
        if let self { ControlAnswers(store: self, overrides: overrides).expire() }
      },
      nextTick: { overrides.secondsToNextExpiry },
      stopped: { [weak self] in
        if let self { ControlAnswers(store: self, overrides: overrides).expire(all: true) }
      })
    return try ControlServer(path: chosen, mode: mode, handlers: handlers)
  }

  /// `control.sock` in the runtime directory, which is made (mode 0700) when it is missing.
  private func defaultControlPath(environment: [String: String]) throws(StrataError) -> String {
    guard let app else {
      throw StrataError(
        .writeFailed,
        "cannot choose a control socket path: the store was not made with an app name; pass serveControl(at:) a path"
      )
    }
    let directory = ControlSocketPath.serviceDirectory(
      app: app, environment: environment, isRoot: geteuid() == 0)
    if FileSystem.entry(at: directory) == .missing, mkdir(directory, 0o700) != 0 {
      throw StrataError(
        .writeFailed,
        "cannot make the control socket's directory: \(String(cString: strerror(errno))); "
          + "set RuntimeDirectory=\(app) in the unit (systemd), or pass serveControl(at:) a path",
        path: directory)
    }
    return joinPath(directory, ControlProtocol.socketName)
  }
}
