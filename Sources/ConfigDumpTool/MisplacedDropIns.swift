import Strata

/// Directories that look like an app's drop-in directory in the wrong place or under the wrong name
/// (`/etc/svc/conf.d/` for `/etc/svc/svc.conf.d/`): nothing in them is read, and `--check` says so with
/// the `mv` that fixes it.
///
/// Looked for, in each of the app's vendor, system and user directories D: `D/conf.d`, `D/config.d`,
/// `D/APP.d`, `D/APP.config.d` and `D/APP.EXT.d` for each main-file extension (`svc.ini.d`); and beside
/// D, `APP.conf.d` (`/etc/svc.conf.d/`).
struct MisplacedDropIns {
  var layout: StandardLayout
  /// Where a path written as the layout writes it is on disk (under `--root`).
  var resolvePath: (String) -> String

  /// One warning per misplaced directory that exists, naming it on disk and the `mv` that fixes it.
  func warnings() -> [Diagnostic] {
    var places = [layout.vendorDirectory, layout.systemDirectory]
    if let user = layout.userDirectory { places.append(user) }
    let app = layout.app
    let wanted = "\(app).conf.d"
    var found: [Diagnostic] = []
    for directory in places {
      let dropIns = directory + "/" + wanted
      var candidates = ["conf.d", "config.d", "\(app).d", "\(app).config.d"].map { directory + "/" + $0 }
      candidates += layout.formats.mainFileExtensions.map { directory + "/\(app).\($0).d" }
      if let slash = directory.lastIndex(of: "/"), slash != directory.startIndex {
        candidates.append(String(directory[..<slash]) + "/" + wanted)
      }
      for candidate in candidates where PathChecks.isDirectory(resolvePath(candidate)) {
        found.append(warning(for: resolvePath(candidate), dropIns: resolvePath(dropIns)))
      }
    }
    return found
  }

  private func warning(for misplaced: String, dropIns: String) -> Diagnostic {
    let fix =
      PathChecks.exists(dropIns)
      ? "move its files into \(dropIns)/ (mv \(misplaced)/* \(dropIns)/)" : "mv \(misplaced) \(dropIns)"
    return Diagnostic(
      .warning,
      StrataError(
        .skipped,
        "looks like a drop-in directory of \(layout.app), but \(layout.app) reads drop-ins only from "
          + "\(dropIns)/, so nothing in it is loaded; fix it with: \(fix)", path: misplaced))
  }
}
