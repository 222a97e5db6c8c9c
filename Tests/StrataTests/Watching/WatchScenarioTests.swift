import Foundation
import Testing

@testable import Strata

/// `sed`'s in-place option: GNU sed takes `-i` alone, BSD sed (Darwin) an empty backup suffix after it.
#if os(Linux)
  private let sedInPlace = "-i"
#else
  private let sedInPlace = "-i ''"
#endif

/// Each real-world way of editing a file, against a running store: the typed stream must deliver the
/// new value (within a deadline), and tool temp files must never be loaded.
@Suite(.serialized) struct WatchScenarioTests {
  typealias Edit = @Sendable (_ dir: String, _ file: String) async throws -> Void

  static let edits: [(String, Edit)] = [
    ("echo >", { _, f in try await shell("printf '[app]\\nvalue = edited\\n' > \(f)") }),
    ("cp", { d, f in try await shell("printf '[app]\\nvalue = edited\\n' > \(d)/src && cp \(d)/src \(f)") }),
    (
      "temp+rename",
      { _, f in try await shell("printf '[app]\\nvalue = edited\\n' > \(f).tmp && mv \(f).tmp \(f)") }
    ),
    (
      "mv from elsewhere",
      { d, f in
        try await shell("printf '[app]\\nvalue = edited\\n' > \(d)/elsewhere && mv \(d)/elsewhere \(f)")
      }
    ),
    ("sed -i", { _, f in try await shell("sed \(sedInPlace) 's/start/edited/' \(f)") }),
    ("vim", { _, f in try await shell("vim -u NONE -i NONE -es -c '%s/start/edited/' -c 'wq' \(f)") }),
    (
      "vim backupcopy=yes",
      { _, f in
        try await shell("vim -u NONE -i NONE -es -c 'set backupcopy=yes' -c '%s/start/edited/' -c 'wq' \(f)")
      }
    ),
    (
      "emacs-style backup rename",
      { _, f in
        try await shell(
          "touch \(f).lock; mv \(f) \(f)~ && printf '[app]\\nvalue = edited\\n' > \(f) && rm \(f).lock")
      }
    ),
    (
      "rsync-style temp",
      { d, f in
        try await shell(
          "printf '[app]\\nvalue = edited\\n' > \(d)/etc/app/.app.ini.Xy12Ab && mv \(d)/etc/app/.app.ini.Xy12Ab \(f)"
        )
      }
    ),
    (
      "truncate then slow write",
      { _, f in
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: f))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data("[app]\n".utf8))
        try handle.synchronize()
        try handle.write(contentsOf: Data("value = edited\n".utf8))
        try handle.close()
      }
    ),
  ]

  @Test(arguments: 0..<edits.count)
  func editingTheSystemFile(index: Int) async throws {
    let (name, edit) = Self.edits[index]
    if name.hasPrefix("vim") && !has("vim") {
      Issue.record("vim is not installed (CI installs it)")
      return
    }
    try await withWatchedStore { dir, store, settings in
      #expect(settings.value == "start")
      let stream = settings.$value.changes
      try await edit(dir, dir + "/etc/app/app.ini")
      // `eventually`: an edit that rewrites the file in place (truncate, then write) can be read half
      // done by the watcher's first re-read, which races the edit; the finished file must win.
      #expect(await eventually(stream, equals: "edited"), "\(name)")
      #expect(settings.$value.origin.path == dir + "/etc/app/app.ini")
    }
  }

  @Test func vimThroughASymlink() async throws {
    guard has("vim") else {
      Issue.record("vim is not installed (CI installs it)")
      return
    }
    try await withWatchedStore { dir, _, settings in
      let linked = settings.$value.changes
      try write("[app]\nvalue = real\n", to: dir + "/data/real.ini")
      try FileManager.default.removeItem(atPath: dir + "/etc/app/app.ini")
      try FileManager.default.createSymbolicLink(
        atPath: dir + "/etc/app/app.ini", withDestinationPath: dir + "/data/real.ini")
      #expect(await eventually(linked, equals: "real"))
      let stream = settings.$value.changes
      try await shell("vim -u NONE -i NONE -es -c '%s/real/edited/' -c 'wq' \(dir)/etc/app/app.ini")
      #expect(await next(stream) == "edited")
    }
  }

  @Test func gitCheckout() async throws {
    guard has("git") else {
      Issue.record("git is not installed")
      return
    }
    try await withWatchedStore { dir, _, settings in
      let etc = dir + "/etc/app"
      try await shell(
        "git init -q && git add app.ini && git -c user.name=t -c user.email=t@t commit -qm one", in: etc)
      let dirty = settings.$value.changes
      try await shell("printf '[app]\\nvalue = dirty\\n' > app.ini", in: etc)
      #expect(await next(dirty) == "dirty")
      let stream = settings.$value.changes
      try await shell("git checkout -- app.ini", in: etc)
      #expect(await next(stream) == "start")
    }
  }

  @Test func dropInsAppearAndToolTempNamesNeverLoad() async throws {
    try await withWatchedStore { dir, store, settings in
      let dropIns = dir + "/etc/app/app.conf.d"
      let stream = settings.$extra.changes
      // ansible and chef temp names, then the real rename: only the final name is loaded.
      try write("[app]\nextra = ansible-temp\n", to: dropIns + "/.ansible_tmpab12cd50-x.ini")
      try write("[app]\nextra = chef-temp\n", to: dropIns + "/.chef-50-x.ini")
      try write("[app]\nextra = vim-probe\n", to: dropIns + "/4913")
      try await shell("mv \(dropIns)/.ansible_tmpab12cd50-x.ini \(dropIns)/50-x.ini")
      #expect(await next(stream) == "ansible-temp")
      #expect(
        store.snapshot.sources.allSatisfy {
          !$0.document.path.contains(".chef") && !$0.document.path.hasSuffix("4913")
        })
    }
  }

  @Test func theDropInDirectoryIsDeletedAndRecreated() async throws {
    try await withWatchedStore { dir, _, settings in
      let dropIns = dir + "/etc/app/app.conf.d"
      let first = settings.$extra.changes
      try write("[app]\nextra = a\n", to: dropIns + "/a.ini")
      #expect(await next(first) == "a")
      let stream = settings.$extra.changes
      try await shell(
        "rm -rf \(dropIns) && mkdir \(dropIns) && printf '[app]\\nextra = b\\n' > \(dropIns)/b.ini")
      // The directory may be seen empty for a moment; what matters is that b.ini is found.
      #expect(await eventually(stream, equals: "b"))
    }
  }

  @Test func aFileDeletedAndRecreated() async throws {
    try await withWatchedStore { dir, _, settings in
      let file = dir + "/etc/app/app.ini"
      let stream = settings.$value.changes
      try FileManager.default.removeItem(atPath: file)
      #expect(await next(stream) == "default")  // after the grace period
      let again = settings.$value.changes
      try write("[app]\nvalue = back\n", to: file)
      #expect(await next(again) == "back")
    }
  }

  @Test func aDirectoryThatAppearsLater() async throws {
    try await withWatchedStore { dir, _, settings in
      let stream = settings.$value.changes
      // The user file's directory (dir/home) does not exist yet.
      try write("[app]\nvalue = user\n", to: dir + "/home/app.ini")
      #expect(await next(stream) == "user")
    }
  }

  /// An edit made after the store's first load and before its run loop set the watches (a deploy
  /// script writing while the program starts) is read when the loop starts, not lost until the next edit.
  @Test func anEditBetweenTheFirstLoadAndTheWatchIsNotLost() async throws {
    try await withTemporaryDirectory { dir in
      try write("[app]\nvalue = start\n", to: dir + "/etc/app.ini")
      let store = SettingsStore(
        layers: [
          FileLayer(scope: .system, files: [dir + "/etc/app.ini"]),
          FileLayer(scope: .user, files: [dir + "/home/app.ini"]),
        ])
      let settings = WatchedSettings(store: store)
      #expect(settings.value == "start")
      try write("[app]\nvalue = system\n", to: dir + "/etc/app.ini")
      try write("[app]\ncount = 3\n", to: dir + "/home/app.ini")
      let (ready, readiness) = AsyncStream<Void>.makeStream()
      let running = Task {
        await store.run(watcher: FileWatcher(), onReady: { readiness.yield() })
      }
      defer { running.cancel() }
      #expect(await next(ready) != nil)
      #expect(settings.value == "system")
      #expect(settings.count == 3)
    }
  }

  @Test func aBrokenEditThenAFix() async throws {
    try await withWatchedStore { dir, store, settings in
      let file = dir + "/etc/app/app.ini"
      let events = store.events
      try write("[app]\nvalue = broken\n[oops\n", to: file)
      var failure: StrataError?
      for await event in events {
        if case .failed(let error) = event {
          failure = error
          break
        }
      }
      #expect(failure?.location == file + ":3:6")
      #expect(settings.value == "start")
      let stream = settings.$value.changes
      try write("[app]\nvalue = fixed\n", to: file)
      #expect(await next(stream) == "fixed")
    }
  }

  @Test func theStoresOwnWriteFiresExactlyOnce() async throws {
    try await withWatchedStore { dir, store, settings in
      let events = store.events
      try await settings.$count.save(7)
      try await settings.$extra.save("x")  // a second write: exactly one event each, no echo from the watcher
      var seen: [StoreEvent] = []
      for await event in events {
        seen.append(event)
        if seen.count == 2 { break }
      }
      // A third, unrelated edit proves the watcher had time to report any echo before it.
      let stream = settings.$value.changes
      try write("[app]\nvalue = later\n", to: dir + "/etc/app/app.ini")
      #expect(await next(stream) == "later")
      #expect(store.generation == 4)  // load, two writes, the edit: no echo generation
    }
  }

  @Test func kubeletSwapsTwiceInARow() async throws {
    try await withTemporaryDirectory { dir in
      let volume = dir + "/secrets"
      try FileManager.default.createDirectory(atPath: volume, withIntermediateDirectories: true)
      try makeVolume(volume, ["token": "one"], generation: 1)
      let store = SettingsStore(layers: [
        FileLayer(scope: .system, files: [volume + "/config.json"]),
        KeyPerFileLayer(directory: volume, keyPrefix: "app"),
      ])
      struct Secrets: SettingsGroup {
        static var section: String { "app" }
        @Setting var token = ""
      }
      let secrets = Secrets(store: store)
      let (ready, readiness) = AsyncStream<Void>.makeStream()
      let running = Task { await store.run(watcher: FileWatcher(), onReady: { readiness.yield() }) }
      defer { running.cancel() }
      #expect(await next(ready) != nil)
      #expect(secrets.token == "one")
      for generation in 2...3 {
        let stream = secrets.$token.changes
        try makeVolume(volume, ["token": "v\(generation)"], generation: generation)
        try await shell("rm -rf \(volume)/..2026_11_21_\(generation - 1)")
        #expect(await next(stream) == "v\(generation)")
      }
    }
  }
}
