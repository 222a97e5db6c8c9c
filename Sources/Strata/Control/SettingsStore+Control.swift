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
  /// - Parameter path: the socket's path; by default `control.sock` in the service's runtime
  ///   directory: systemd's `$RUNTIME_DIRECTORY` (`RuntimeDirectory=` in the unit), else
  ///   `$XDG_RUNTIME_DIR/APP` for a user other than root, else `/run/APP` (the directory is made,
  ///   mode 0700, when it is missing).
  /// - Throws: ``StrataError`` (`writeFailed`, naming the path and why) when the socket cannot be made,
  ///   before serving anything: no runtime directory, a store without an app name and no `path`,
  ///   another process serving there already.
  public func serveControl(at path: String? = nil) async throws(StrataError) {
    let server = try startControl(
      at: path, clock: MonotonicControlClock(), mode: 0o600, environment: ProcessInfo.processInfo.environment)
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

  /// Starts serving the control socket (see ``serveControl(at:)``) with a clock, a file mode (a test
  /// that lets another user reach the peer check) and an environment for the default path.
  func startControl(
    at path: String?, clock: any ControlClock, mode: mode_t, environment: [String: String]
  ) throws(StrataError) -> ControlServer {
    let chosen: String
    if let path { chosen = path } else { chosen = try defaultControlPath(environment: environment) }
    let overrides = RuntimeOverrides(clock: clock)
    let handlers = ControlServer.Handlers(
      handle: { [weak self] request in
        self?.answer(request, overrides: overrides) ?? .failure("the service's store is gone")
      },
      refused: { [weak self] message in self?.emit(.controlRefused(message)) },
      tick: { [weak self] in self?.expire(overrides) },
      nextTick: { overrides.secondsToNextExpiry },
      stopped: { [weak self] in self?.expire(overrides, all: true) })
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

  /// Answers one request, on the control socket's thread.
  private func answer(_ request: ControlRequest, overrides: RuntimeOverrides) -> ControlResponse {
    switch request.request {
    case "status": return ControlResponse(ok: true, status: controlStatus(overrides: overrides))
    case "plan": return plan(request)
    case "set": return setOverride(request, overrides: overrides)
    case "unset": return unsetOverride(request, overrides: overrides)
    default:
      return .failure("unknown request '\(request.request)'; expected status, plan, set or unset")
    }
  }

  private func setOverride(_ request: ControlRequest, overrides: RuntimeOverrides) -> ControlResponse {
    guard let key = request.key, let text = request.value, let seconds = request.seconds else {
      return .failure("set needs a key, a value and seconds")
    }
    guard seconds > 0, seconds <= 366 * 86400 else {
      return .failure("an override lasts more than 0 seconds and at most 366 days, not \(seconds)")
    }
    guard let box = state.withLock({ $0.registry[key]?.first }) else {
      return .failure(unknownKeyMessage(key))
    }
    do throws(StrataError) {
      try checkWritable(key)
      guard let value = try box.checkedWrite(SettingValue(.string(text), origin: .runtime)) else {
        return .failure("\(key) cannot be overridden with nothing; use unset")
      }
      let replaced = state.withLock { $0.runtime.value(at: key) }
      let isSecret = box.traits.contains(.secret)
      let override = RuntimeOverrides.Override(
        value: value, shown: isSecret ? redactedText : ValueText.plain(value),
        expiresAt: overrides.clock.seconds + seconds, replaced: replaced)
      try setRuntimeValue(value, forKey: key)
      overrides.record(key, override)
      return ControlResponse(ok: true, override: overrides.standing.first { $0.key == key })
    } catch {
      return .failure(error.description)
    }
  }

  private func unsetOverride(_ request: ControlRequest, overrides: RuntimeOverrides) -> ControlResponse {
    guard let key = request.key else { return .failure("unset needs a key") }
    guard let ended = overrides.remove(key) else {
      let standing = overrides.standing.map(\.key)
      return .failure(
        "no override of \(key) is set"
          + (standing.isEmpty ? "" : " (set: \(standing.joined(separator: ", ")))"))
    }
    restore(key, after: ended)
    return ControlResponse(ok: true)
  }

  /// Ends the overrides whose time is up (every one, with `all`: the socket stops serving), each with an
  /// event.
  private func expire(_ overrides: RuntimeOverrides, all: Bool = false) {
    for (key, ended) in overrides.takeExpired(all: all) {
      restore(key, after: ended)
      emit(.overrideExpired(key: key))
    }
  }

  /// Puts back the runtime value an override replaced, unless the program wrote the key meanwhile.
  private func restore(_ key: String, after ended: RuntimeOverrides.Override) {
    let unchanged = state.withLock { state in
      guard state.runtime.value(at: key) == ended.value else { return false }
      if let replaced = ended.replaced {
        state.runtime.set(replaced, at: key)
      } else {
        state.runtime.remove(at: key)
      }
      return true
    }
    if unchanged { rebuild(reloading: []) }
  }

  /// "unknown key 'x' (did you mean 'y'?)" against the declared keys.
  func unknownKeyMessage(_ key: String) -> String {
    let suggestion = Suggestions.closest(to: key, in: declaredKeys).map { " (did you mean '\($0)'?)" } ?? ""
    return "unknown key '\(InputLimits.shortened(key))'\(suggestion): no setting of the service declares it"
  }
}
