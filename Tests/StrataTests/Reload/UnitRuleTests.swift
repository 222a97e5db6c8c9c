import Foundation
import StrataPlatform
import Testing

@testable import Strata

/// The unit rule's cases that need no other process: a file open for writing, a read failing with `EIO`
/// (injected), a listing refused (injected: root lists every directory), a key-per-file read failing;
/// each keeps the last good contents, and a running store reads the unit again by itself.
@Suite(.serialized) struct UnitRuleTests {
  @Test(.linuxOnly("read leases")) func aFileOpenForWritingKeepsItsLastGoodDocumentUntilClosed() async throws
  {
    try await withTemporaryDirectory { dir in
      let path = dir + "/app.ini"
      try write(appVersion(1), to: path)
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [path])])
      let settings = WatchedSettings(store: store)
      #expect(settings.value == "v1")
      // An in-place writer mid-way: truncated, half written, still open.
      let fd = try openFile(path, O_WRONLY | O_TRUNC)
      try writeAll(fd, Array(appVersion(2).utf8.prefix(12)))
      await store.reload()
      #expect(settings.value == "v1" && settings.count == 1 && settings.extra == "x1")
      #expect(store.diagnostics.isEmpty)
      try writeAll(fd, Array(appVersion(2).utf8.dropFirst(12)))
      close(fd)
      #expect(await reloadUntil(store) { settings.value == "v2" })
      #expect(settings.value == "v2" && settings.count == 2 && settings.extra == "x2")
    }
  }

  @Test(.linuxOnly("read leases")) func aWriterThatNeverClosesIsReadAfterThePatience() async throws {
    try await withTemporaryDirectory { dir in
      let path = dir + "/app.ini"
      try write(appVersion(1), to: path)
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [path])])
      let settings = WatchedSettings(store: store)
      let fd = try openFile(path, O_WRONLY | O_TRUNC)
      defer { close(fd) }
      try writeAll(fd, Array(appVersion(2).utf8))
      await store.reload()
      #expect(settings.value == "v1")
      // After UnitStates.writerPatience (10 s) the file is read as it is.
      let deadline = ContinuousClock.now + .seconds(30)
      while settings.value != "v2" && ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(50))
        await store.reload()
      }
      #expect(settings.value == "v2")
      #expect(settings.count == 2 && settings.extra == "x2")
    }
  }

  @Test(.linuxOnly("read leases")) func anEmptyFileOpenForWritingIsAWriterAtWorkHoweverLongItWaits()
    async throws
  {
    try await withTemporaryDirectory { dir in
      let path = dir + "/app.ini"
      try write(appVersion(1), to: path)
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [path])])
      let settings = WatchedSettings(store: store)
      // Truncated (a rename-away save's new file is the same), then the writer stalls for longer than
      // the 2 s in which a modification counts as recent.
      let fd = try openFile(path, O_WRONLY | O_TRUNC)
      var isOpen = true
      defer { if isOpen { close(fd) } }
      var past = [timespec(tv_sec: time(nil) - 5, tv_nsec: 0), timespec(tv_sec: time(nil) - 5, tv_nsec: 0)]
      #expect(futimens(fd, &past) == 0)
      await store.reload()
      #expect(settings.value == "v1" && settings.count == 1 && settings.extra == "x1")
      #expect(store.diagnostics.isEmpty)
      try writeAll(fd, Array(appVersion(2).utf8))
      close(fd)
      isOpen = false
      #expect(await reloadUntil(store) { settings.value == "v2" })
      #expect(settings.value == "v2" && settings.count == 2 && settings.extra == "x2")
    }
  }

  /// A file created a moment ago is visible before its creator's descriptor counts as open for
  /// writing, so the lease can find no writer of a new, empty file: empty and changed in the last 2 s,
  /// it keeps the last good document; emptied on purpose, it is read once 2 s have passed.
  @Test(.linuxOnly("read leases")) func anEmptyFileChangedAMomentAgoIsAWriterAtWorkEvenWithNoWriterOpen()
    async throws
  {
    try await withTemporaryDirectory { dir in
      let path = dir + "/app.ini"
      try write(appVersion(1), to: path)
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [path])])
      let settings = WatchedSettings(store: store)
      // A rename-away save's new file, created and not written yet, with its writer's descriptor not
      // counted yet: here, no descriptor at all.
      #expect(rename(path, path + "~") == 0)
      close(try openFile(path, O_CREAT | O_WRONLY | O_TRUNC))
      await store.reload()
      #expect(settings.value == "v1" && settings.count == 1 && settings.extra == "x1")
      #expect(store.diagnostics.isEmpty)
      // Still empty 2 s later (here: its time set back): emptied on purpose, the layer is cleared.
      var past = [timespec(tv_sec: time(nil) - 5, tv_nsec: 0), timespec(tv_sec: time(nil) - 5, tv_nsec: 0)]
      #expect(utimensat(AT_FDCWD, path, &past, 0) == 0)
      await store.reload()
      #expect(settings.value == "default" && settings.count == 0 && settings.extra == "none")
    }
  }

  @Test func anInjectedReadErrorKeepsTheValuesAndIsRetriedWithoutAnEdit() async throws {
    try await withTemporaryDirectory { dir in
      let path = dir + "/app.ini"
      try write(appVersion(1), to: path)
      try await withRecordedStore(layers: [FileLayer(scope: .system, files: [path])]) { store, recorder in
        InjectedFaults.fail(path, with: EIO)
        defer { InjectedFaults.fail(path, with: nil) }
        try write(appVersion(2), to: path)
        #expect(
          await recorder.wait { recorder.failures.contains { $0.contains("Input/output error") } },
          "\(recorder.failures)")
        #expect(recorder.values(in: store.snapshot) == appValues(1))
        // The fault clears; nothing else happens to the file: the retry applies the edit.
        InjectedFaults.fail(path, with: nil)
        #expect(await recorder.wait { recorder.values(in: store.snapshot) == appValues(2) })
        expectEveryGeneration(recorder, in: [appValues(1), appValues(2)], "EIO on \(path)")
      }
    }
  }

  @Test func aDropInListingRefusedKeepsTheDropInsAndIsRetried() async throws {
    try await withTemporaryDirectory { dir in
      let main = dir + "/app.ini"
      let dropIns = dir + "/app.conf.d"
      try write("[app]\nvalue = m1\ncount = 1\n", to: main)
      try write("[app]\nextra = d1\n", to: dropIns + "/50-x.ini")
      let layer = FileLayer(scope: .user, files: [main], dropInDirectory: dropIns)
      try await withRecordedStore(layers: [layer]) { store, recorder in
        InjectedFaults.fail(dropIns, with: EACCES)
        defer { InjectedFaults.fail(dropIns, with: nil) }
        try write("[app]\nvalue = m2\ncount = 2\n", to: dropIns + "/../app.ini.new")
        #expect(rename(dropIns + "/../app.ini.new", main) == 0)
        // The main file's edit applies; the drop-in stays; the listing's failure is told (after the
        // generation's `reloaded`).
        #expect(
          await recorder.wait {
            recorder.values(in: store.snapshot) == ["m2", "2", "d1"]
              && recorder.failures.contains { $0.contains("cannot list directory") }
          }, "\(recorder.failures)")
        // A drop-in added while the listing is refused is seen once it is listed again, with no edit.
        try write("[app]\nextra = d2\n", to: dropIns + "/.60-y.tmp")
        #expect(rename(dropIns + "/.60-y.tmp", dropIns + "/60-y.ini") == 0)
        InjectedFaults.fail(dropIns, with: nil)
        #expect(await recorder.wait { recorder.values(in: store.snapshot) == ["m2", "2", "d2"] })
        expectEveryGeneration(
          recorder, in: [["m1", "1", "d1"], ["m2", "2", "d1"], ["m2", "2", "d2"]], "listing refused")
      }
    }
  }

  /// A drop-in saved by renaming it away and writing a new one (vim's backup rename): the new file is
  /// empty until written, and an empty drop-in is a mask. Created a moment ago, it is a writer at work:
  /// the drop-in's last good document stays until the file is written, whatever makes the store read.
  @Test(.linuxOnly("read leases")) func aDropInSavedByRenamingItAwayIsNotAMaskWhileItIsWritten() async throws
  {
    try await withTemporaryDirectory { dir in
      let main = dir + "/app.ini"
      let dropIn = dir + "/app.conf.d/50-x.ini"
      try write("[app]\nvalue = m1\ncount = 1\n", to: main)
      try write("[app]\nextra = d1\n", to: dropIn)
      let store = SettingsStore(
        layers: [FileLayer(scope: .system, files: [main], dropInDirectory: dir + "/app.conf.d")])
      let settings = WatchedSettings(store: store)
      #expect(settings.extra == "d1")
      #expect(rename(dropIn, dropIn + "~") == 0)
      let fd = try openFile(dropIn, O_CREAT | O_WRONLY | O_TRUNC)
      var isOpen = true
      defer { if isOpen { close(fd) } }
      await store.reload()  // a SIGHUP, say, while the new file is empty and open
      #expect(settings.extra == "d1" && settings.value == "m1")
      try writeAll(fd, Array("[app]\nextra = d2\n".utf8))
      close(fd)
      isOpen = false
      unlink(dropIn + "~")
      #expect(await reloadUntil(store) { settings.extra == "d2" })
      #expect(settings.extra == "d2" && settings.value == "m1")
      // Emptied on purpose and left so for 2 s (here: its time set back), it masks: the value goes.
      try write("", to: dropIn)
      var past = [timespec(tv_sec: time(nil) - 5, tv_nsec: 0), timespec(tv_sec: time(nil) - 5, tv_nsec: 0)]
      #expect(utimensat(AT_FDCWD, dropIn, &past, 0) == 0)
      await store.reload()
      #expect(settings.extra == "none" && settings.value == "m1")
    }
  }

  @Test func aKeyPerFileReadFailingKeepsTheWholeLastGoodSet() async throws {
    try await withTemporaryDirectory { dir in
      try makeVolume(dir, ["user": "1", "password": "1", "host": "1"], generation: 1)
      let keys = ["db.user", "db.password", "db.host"]
      let layer = KeyPerFileLayer(directory: dir, keyPrefix: "db")
      try await withRecordedStore(layers: [layer], keys: keys) { store, recorder in
        // The next version's password cannot be read: nothing of that version is published.
        InjectedFaults.fail(dir + "/..2026_11_21_2/password", with: EIO)
        defer { InjectedFaults.fail(dir + "/..2026_11_21_2/password", with: nil) }
        try makeVolume(dir, ["user": "2", "password": "2", "host": "2"], generation: 2)
        #expect(await recorder.wait { !recorder.failures.isEmpty }, "\(recorder.failures)")
        #expect(recorder.values(in: store.snapshot) == ["1", "1", "1"])
        InjectedFaults.fail(dir + "/..2026_11_21_2/password", with: nil)
        #expect(await recorder.wait { recorder.values(in: store.snapshot) == ["2", "2", "2"] })
        expectEveryGeneration(recorder, in: [["1", "1", "1"], ["2", "2", "2"]], "a key unreadable")
      }
    }
  }
}
