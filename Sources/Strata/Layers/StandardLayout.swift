#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// The standard places an app's configuration lives on Linux, lowest first.
///
/// For an app named `demo`:
///
/// | scope | files |
/// |---|---|
/// | vendor | `/usr/lib/demo/demo.{plist,json,ini,env,toml}`, then `/usr/lib/demo/demo.conf.d/*` |
/// | system | `/etc/demo/demo.{plist,json,ini,env,toml}`, then `/etc/demo/demo.conf.d/*` |
/// | user | `$XDG_CONFIG_HOME/demo/demo.{plist,json,ini,env,toml}`, then `…/demo.conf.d/*` |
/// | environment | `DEMO_*` variables |
/// | command line | `--key value` options, when `arguments` are given |
///
/// The main files' extensions, and the extensions drop-ins may have, come from `formats` (the
/// standard registry's are shown).
///
/// Drop-ins sort by file name; a system drop-in replaces the same-named vendor one, and an empty one or
/// a symlink to `/dev/null` masks it. With a `root`, every absolute path is read under it (origins
/// still show the path as the app sees it).
///
/// A profile (`DEMO_PROFILE=staging`) adds overlays to each file layer, each above its base in that
/// layer: `demo.staging.{plist,json,ini,env,toml}` after the main files, and the drop-ins of
/// `demo.staging.conf.d` after those of `demo.conf.d`. `DEMO_PROFILE` is not a setting; an empty one
/// is no profile, and a name other than letters, digits, `-` and `_` (at most 64) is an error, and no
/// profile is loaded. A program that chooses its profile itself (Vapor's `--env`, a flag of its own)
/// passes it as `profile:`: it replaces `DEMO_PROFILE`, which is then reported (a warning) when it names
/// another profile, so that neither choice is dropped silently.
public struct StandardLayout: Sendable {
  /// The app's name, as in `/etc/NAME/NAME.ini`.
  package var app: String
  /// A directory under which all absolute paths are resolved (for tests and `config-dump --root`).
  package var root: String?
  /// The user's configuration directory (`$XDG_CONFIG_HOME`, else `$HOME/.config`), as the app sees it.
  package var userConfigHome: String?
  /// The environment variable prefix, without the trailing `_`.
  package var environmentPrefix: String
  /// The variables the environment layer reads.
  package var environment: [String: String]
  /// The arguments the command-line layer reads (see ``CommandLineLayer``); `nil`: no such layer.
  package var arguments: [String]?
  /// The formats: which main files exist (its main-file formats) and how files are read.
  package var formats: FormatRegistry
  /// The profile whose overlays each file layer loads (`PREFIX_PROFILE`), when it is a valid name.
  package var profile: String?
  /// The profile the program chose (`profile:`), which replaces `PREFIX_PROFILE`'s.
  package var programProfile: String?

  /// The home directory a tree under a ``root`` falls back to: `/home/user`.
  static let rootHome = "/home/user"

  /// Creates the layout of an app.
  ///
  /// The user's configuration directory is `$XDG_CONFIG_HOME`, else `$HOME/.config`. Under a `root`,
  /// a tree must not depend on who runs it: a directory from the environment counts only if it exists
  /// inside the root, else the home is `/home/user` (`ROOT/home/user/.config/APP`). `config-dump --root`
  /// and `SettingsStore(app:root:)` both decide here, so they find the same user file.
  /// - Parameters:
  ///   - app: the app's name.
  ///   - root: an optional directory under which absolute paths are resolved.
  ///   - home: the home directory, as the app sees it, instead of the environment's (`--home`).
  ///   - environment: the process environment (for `XDG_CONFIG_HOME`, `HOME` and the `PREFIX_*`
  ///     variables).
  ///   - profile: the profile the program chose, instead of `PREFIX_PROFILE`'s (empty: none).
  ///   - arguments: command-line arguments for a ``CommandLineLayer`` above the environment.
  ///   - formats: the formats of the files (default: the standard registry).
  public init(
    app: String, root: String? = nil, home: String? = nil,
    environment: [String: String] = ProcessInfo.processInfo.environment, profile: String? = nil,
    arguments: [String]? = nil, formats: FormatRegistry = .standard
  ) {
    self.app = app
    self.arguments = arguments
    self.formats = formats
    self.root = root
    self.environment = environment
    self.environmentPrefix = EnvironmentNames.prefix(forApp: app)
    self.programProfile = profile
    self.profile = (profile ?? environment[environmentPrefix + "_PROFILE"]).flatMap(Profiles.validName)
    let resolve = root.map(rootResolver) ?? { $0 }
    func usable(_ directory: String?) -> String? {
      guard let directory, directory.hasPrefix("/") else { return nil }
      return root == nil || FileSystem.isDirectory(resolve(directory)) ? directory : nil
    }
    if let home {
      userConfigHome = joinPath(home, ".config")
    } else if let xdg = usable(environment["XDG_CONFIG_HOME"]) {
      userConfigHome = xdg
    } else if let home = usable(environment["HOME"]) {
      userConfigHome = joinPath(home, ".config")
    } else if root != nil {
      userConfigHome = joinPath(Self.rootHome, ".config")
    }
  }

  /// The main files of a directory, one per main-file format of `formats`, loaded in that order: for
  /// the standard registry `DIR/APP.plist`, `DIR/APP.json`, `DIR/APP.ini`, `DIR/APP.env`, `DIR/APP.toml`.
  package func mainFiles(in directory: String) -> [String] {
    formats.mainFileExtensions.map { joinPath(directory, "\(app).\($0)") }
  }

  /// The profile's overlays of the main files of a directory, in the same order:
  /// `DIR/APP.PROFILE.plist`, …; none without a profile.
  package func profileFiles(in directory: String) -> [String] {
    guard let profile else { return [] }
    return formats.mainFileExtensions.map { joinPath(directory, "\(app).\(profile).\($0)") }
  }

  /// The drop-in directory of `directory`, `DIR/APP.conf.d`, or the profile's, `DIR/APP.PROFILE.conf.d`.
  package func dropInDirectory(in directory: String, profile: String? = nil) -> String {
    joinPath(directory, profile.map { "\(app).\($0).conf.d" } ?? "\(app).conf.d")
  }

  /// The vendor directory, `/usr/lib/APP`.
  package var vendorDirectory: String { "/usr/lib/\(app)" }
  /// The system directory, `/etc/APP`.
  package var systemDirectory: String { "/etc/\(app)" }
  /// The user directory, `$XDG_CONFIG_HOME/APP`, or `nil` when neither it nor `HOME` is set.
  package var userDirectory: String? { userConfigHome.map { joinPath($0, app) } }

  /// The layers, lowest first: vendor, system, user, environment, and the command line when there are
  /// `arguments`.
  public var layers: [any Layer] {
    var layers: [any Layer] = [
      fileLayer(.vendor, in: vendorDirectory, overriddenBy: systemDirectory),
      fileLayer(.system, in: systemDirectory),
    ]
    if let userDirectory {
      var user = fileLayer(.user, in: userDirectory)
      user.requiresOwnFiles = true
      layers.append(user)
    }
    var environment = EnvironmentLayer(prefix: environmentPrefix, variables: environment)
    environment.profileVariable = environmentPrefix + "_PROFILE"
    environment.programProfile = programProfile
    layers.append(environment)
    if let arguments { layers.append(CommandLineLayer(arguments: arguments)) }
    return layers
  }

  /// The file layer of `directory`: its main files and drop-ins, then the profile's overlays of both;
  /// the drop-ins of `overriding` (the system directory, for the vendor layer) replace same-named ones.
  private func fileLayer(_ scope: Scope, in directory: String, overriddenBy overriding: String? = nil)
    -> FileLayer
  {
    var layer = FileLayer(
      scope: scope, files: mainFiles(in: directory) + profileFiles(in: directory),
      dropInDirectory: dropInDirectory(in: directory),
      overridingDropInDirectory: overriding.map { dropInDirectory(in: $0) })
    if let profile {
      layer.profileDropIns = FileLayer.DropIns(
        directory: dropInDirectory(in: directory, profile: profile),
        overriding: overriding.map { dropInDirectory(in: $0, profile: profile) })
    }
    return layer
  }

  /// Parse options whose `resolvePath` puts absolute paths under `root` and whose registry is
  /// `formats`.
  public func options(_ base: ParseOptions = ParseOptions()) -> ParseOptions {
    var options = base
    options.formats = formats
    if let root { options.resolvePath = rootResolver(root) }
    return options
  }

  /// The whole stack, ready to load.
  package func stack(options: ParseOptions = ParseOptions()) -> LayerStack {
    LayerStack(layers: layers, options: self.options(options))
  }
}

/// A `resolvePath` that puts absolute paths under `root` (relative paths are left alone).
package func rootResolver(_ root: String) -> @Sendable (String) -> String {
  let base = root.hasSuffix("/") ? String(root.dropLast()) : root
  return { path in path.hasPrefix("/") ? base + path : path }
}
