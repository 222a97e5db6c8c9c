import Foundation
import Testing

@testable import Strata

/// A Kubernetes ConfigMap mounted as a system layer's drop-in directory: the kubelet makes the volume's
/// directory with mode 0777 and mounts it read-only, which nobody can write; the drop-ins load, the
/// kubelet's own entries are not reported as skipped, and where the mount is writable the refusal
/// names the pod spec's fields rather than a `chmod` of the kubelet's files.
@Suite struct ReadOnlyMountTests {
  /// The drop-in directory, under the test's root.
  static let dropIns = "/etc/x/x.conf.d"

  /// How the test mounts the volume at the drop-in directory.
  enum Mounting: CustomStringConvertible, CaseIterable {
    /// A tmpfs, remounted read-only once written (the file system itself is read-only).
    case readOnlyTmpfs
    /// A writable tmpfs bound read-only at the drop-in directory, as a container sees a ConfigMap
    /// (only the mount is read-only; its source stays writable).
    case readOnlyBind

    var description: String { self == .readOnlyTmpfs ? "read-only tmpfs" : "read-only bind mount" }
  }

  /// Writes the kubelet's layout into `volume`, made with mode `rootMode` (the kubelet makes 0777):
  /// `..2026_…/50-x.ini` (mode `fileMode`), `..data` linking to that directory, and `50-x.ini` linking
  /// to `..data/50-x.ini`.
  static func writeConfigMap(in volume: String, rootMode: mode_t = 0o777, fileMode: mode_t = 0o644) throws {
    let version = "..2026_11_28_02_19_19.123456789"
    try write("[a]\nx = from-configmap\n", to: volume + "/" + version + "/50-x.ini")
    #expect(chmod(volume + "/" + version + "/50-x.ini", fileMode) == 0)
    #expect(symlink(version, volume + "/..data") == 0)
    #expect(symlink("..data/50-x.ini", volume + "/50-x.ini") == 0)
    #expect(chmod(volume, rootMode) == 0)
  }

  /// Loads the drop-in directory under `root` as the system layer does.
  static func load(_ root: String) -> LayerContents {
    FileLayer(scope: .system, files: [], dropInDirectory: dropIns)
      .load(LoadContext(options: ParseOptions(resolvePath: rootResolver(root))))
  }

  @Test(
    .linuxOnly("mount(2) with tmpfs and bind mounts"),
    .enabled(if: TestMount.isAvailable, "needs root and a mount(2) that works here, to mount a tmpfs"),
    arguments: Mounting.allCases)
  func aConfigMapOnAReadOnlyMountLoads(mounting: Mounting) throws {
    try withTemporaryDirectory { root in
      let target = root + Self.dropIns
      try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
      switch mounting {
      case .readOnlyTmpfs:
        try TestMount.withTmpfs(at: target) {
          try Self.writeConfigMap(in: target, fileMode: 0o666)
          try #require(TestMount.remountReadOnly(target))
          try expectLoaded(root)
        }
      case .readOnlyBind:
        let source = root + "/volume"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        try TestMount.withTmpfs(at: source) {
          try Self.writeConfigMap(in: source, fileMode: 0o666)
          try TestMount.withBind(source, at: target) {
            try #require(TestMount.remountReadOnly(target, bind: true))
            try expectLoaded(root)
          }
        }
      }
    }
  }

  /// The drop-in loads, with no refusal and no note for the kubelet's entries.
  func expectLoaded(_ root: String) throws {
    let contents = Self.load(root)
    #expect(contents.diagnostics.map(\.description) == [])
    #expect(contents.documents.map(\.path) == [Self.dropIns + "/50-x.ini"])
    #expect(contents.documents.first?.root.value(at: "a.x")?.kind == .string("from-configmap"))
  }

  @Test(
    .linuxOnly("mount(2) with tmpfs"),
    .enabled(if: TestMount.isAvailable, "needs root and a mount(2) that works here, to mount a tmpfs"))
  func aConfigMapOnAWritableMountIsRefusedWithAPodSpecFix() throws {
    try withTemporaryDirectory { root in
      let target = root + Self.dropIns
      try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
      try TestMount.withTmpfs(at: target) {
        try Self.writeConfigMap(in: target)
        let contents = Self.load(root)
        #expect(contents.documents.isEmpty)
        #expect(
          contents.diagnostics.map(\.description) == [
            "\(Self.dropIns): error: refusing a directory anyone can write (mode 0777); it is in a Kubernetes "
              + "volume (the kubelet's ..data layout), which the pod spec sets up; fix it there: mount the "
              + "volume read-only (readOnly: true in its volumeMounts entry); defaultMode sets the files' "
              + "modes, not the directory's"
          ])
      }
    }
  }

  @Test func aWritableKubeletFileIsRefusedWithTheDefaultModeToSet() throws {
    try withTemporaryDirectory { root in
      try Self.writeConfigMap(in: root + Self.dropIns, rootMode: 0o755, fileMode: 0o666)
      let contents = Self.load(root)
      #expect(contents.documents.isEmpty)
      #expect(
        contents.diagnostics.map(\.description) == [
          "\(Self.dropIns)/50-x.ini: error: refusing a file anyone can write (mode 0666); it is in a Kubernetes "
            + "volume (the kubelet's ..data layout), which the pod spec sets up; fix it there: set the volume's "
            + "defaultMode (or the item's mode) to one others cannot write, such as 0644, or mount the volume "
            + "read-only (readOnly: true in its volumeMounts entry)"
        ])
    }
  }

  @Test(.enabled(if: geteuid() == 0, "only root can give a file to another group"))
  func aKubeletFileTheFSGroupCanWriteNamesRunAsGroup() throws {
    try withTemporaryDirectory { root in
      let volume = root + Self.dropIns
      try Self.writeConfigMap(in: volume, rootMode: 0o755, fileMode: 0o664)
      // The kubelet gives a writable volume's files the pod's fsGroup, with group write.
      #expect(chown(volume + "/..2026_11_28_02_19_19.123456789/50-x.ini", 0, 4242) == 0)
      let message = try #require(Self.load(root).diagnostics.first?.error.message)
      #expect(
        message
          == "refusing a file group 4242 can write (mode 0664), neither root's group nor this process's; it is "
          + "in a Kubernetes volume (the kubelet's ..data layout), which the pod spec sets up; fix it there: set "
          + "the volume's defaultMode (or the item's mode) to one the group cannot write, such as 0644, set "
          + "runAsGroup to 4242 (the fsGroup) so that the group is this process's, or mount the volume "
          + "read-only (readOnly: true in its volumeMounts entry)")
    }
  }

  @Test func outsideAKubeletVolumeTheFixIsStillChmod() throws {
    try withTemporaryDirectory { root in
      try write("[a]\nx = 1\n", to: root + Self.dropIns + "/50-x.ini")
      #expect(chmod(root + Self.dropIns, 0o777) == 0)
      #expect(
        Self.load(root).diagnostics.map(\.description) == [
          "\(Self.dropIns): error: refusing a directory anyone can write (mode 0777); fix it with: chmod o-w "
            + "\(root)\(Self.dropIns)"
        ])
    }
  }

  @Test func theKubeletsEntriesAreRecognisedOnDisk() throws {
    try withTemporaryDirectory { root in
      let volume = root + "/volume"
      try Self.writeConfigMap(in: volume, rootMode: 0o755)
      #expect(KubeletVolume.holds(volume))
      #expect(KubeletVolume.holds(volume + "/50-x.ini"))
      #expect(KubeletVolume.holds(volume + "/..2026_11_28_02_19_19.123456789/50-x.ini"))
      #expect(KubeletVolume.holds(volume + "/..data/50-x.ini"))
      #expect(!KubeletVolume.holds(root))
      try write("[a]\nx = 1\n", to: root + "/plain/50-x.ini")
      #expect(!KubeletVolume.holds(root + "/plain"))
      #expect(!KubeletVolume.holds(root + "/plain/50-x.ini"))
    }
  }
}

/// Mounts for the tests, with `mount(2)` (Linux only; elsewhere nothing mounts and
/// ``isAvailable`` is `false`).
enum TestMount {
  /// Whether a tmpfs can be mounted and unmounted here (as root, outside a container that forbids it).
  static let isAvailable: Bool = {
    guard geteuid() == 0 else { return false }
    let probe = "/var/tmp/strata-mount-probe-" + UUID().uuidString
    guard (try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: false)) != nil
    else { return false }
    defer { rmdir(probe) }
    guard mountTmpfs(at: probe) else { return false }
    unmount(probe)
    return true
  }()

  /// Runs `body` with a writable tmpfs mounted at `path`, unmounted after, however `body` ends.
  static func withTmpfs(at path: String, _ body: () throws -> Void) throws {
    try #require(mountTmpfs(at: path), "mount -t tmpfs at \(path): errno \(errno)")
    defer { unmount(path) }
    try body()
  }

  /// Runs `body` with `source` bound at `target`, unmounted after, however `body` ends.
  static func withBind(_ source: String, at target: String, _ body: () throws -> Void) throws {
    #if os(Linux)
      let bound = mount(source, target, nil, UInt(MS_BIND), nil) == 0
    #else
      let bound = false
    #endif
    try #require(bound, "mount --bind \(source) \(target): errno \(errno)")
    defer { unmount(target) }
    try body()
  }

  /// `mount -o remount,ro` (with `bind`: `remount,ro,bind`, which makes only that mount read-only).
  static func remountReadOnly(_ path: String, bind: Bool = false) -> Bool {
    #if os(Linux)
      let flags = UInt(MS_REMOUNT | MS_RDONLY | (bind ? MS_BIND : 0))
      return mount(bind ? nil : "tmpfs", path, bind ? nil : "tmpfs", flags, nil) == 0
    #else
      return false
    #endif
  }

  private static func mountTmpfs(at path: String) -> Bool {
    #if os(Linux)
      return mount("tmpfs", path, "tmpfs", 0, "size=1m") == 0
    #else
      return false
    #endif
  }

  /// Unmounts `path`; lazily when it is busy, so that no test leaves a mount behind.
  private static func unmount(_ path: String) {
    #if os(Linux)
      if umount2(path, 0) != 0 { _ = umount2(path, Int32(MNT_DETACH)) }
    #endif
  }
}
