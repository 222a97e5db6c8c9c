/// Where a service's control socket is: `control.sock` in its runtime directory.
package enum ControlSocketPath {
  /// The directory a service serves its socket in: systemd's `$RUNTIME_DIRECTORY` (the first, when
  /// the unit names several), else `$XDG_RUNTIME_DIR/APP` for a user other than root that has one,
  /// else `/run/APP`.
  package static func serviceDirectory(app: String, environment: [String: String], isRoot: Bool) -> String {
    if let runtime = environment["RUNTIME_DIRECTORY"], let first = runtime.split(separator: ":").first {
      return String(first)
    }
    if !isRoot, let user = environment["XDG_RUNTIME_DIR"], !user.isEmpty { return joinPath(user, app) }
    return joinPath("/run", app)
  }

  /// The paths a client tries for app `app`, in order: the system service's (`/run/APP`), then the
  /// user's (`$XDG_RUNTIME_DIR/APP`).
  package static func candidates(app: String, environment: [String: String]) -> [String] {
    var directories = [joinPath("/run", app)]
    if let user = environment["XDG_RUNTIME_DIR"], !user.isEmpty { directories.append(joinPath(user, app)) }
    return directories.map { joinPath($0, ControlProtocol.socketName) }
  }
}
