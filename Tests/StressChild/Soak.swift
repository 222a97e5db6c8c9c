import Strata
import StrataPlatform

struct SoakSettings: SettingsGroup {
  static var section: String { "soak" }
  @Setting var value = 0
  @Setting var name = ""
  @Setting var flags: [String] = []
}

/// Resident memory in bytes (`/proc/self/statm`, second field, in pages).
func residentBytes() -> Int {
  guard let file = fopen("/proc/self/statm", "r") else { return -1 }
  defer { fclose(file) }
  var size = 0
  var resident = 0
  guard
    withUnsafeMutablePointer(
      to: &size,
      { sizePointer in
        withUnsafeMutablePointer(to: &resident) { residentPointer in
          withVaList([sizePointer, residentPointer]) { vfscanf(file, "%ld %ld", $0) }
        }
      }) == 2
  else { return -1 }
  return resident * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// The open file descriptors (`/proc/self/fd`, without the one used to list it).
func openDescriptors() -> Int {
  guard let directory = opendir("/proc/self/fd") else { return -1 }
  defer { closedir(directory) }
  var count = 0
  while readdir(directory) != nil { count += 1 }
  return count - 3  // ".", "..", and the listing's own descriptor
}

func writeFile(_ text: String, to path: String) {
  let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
  guard fd >= 0 else { return }
  defer { close(fd) }
  let bytes = Array(text.utf8)
  _ = bytes.withUnsafeBytes { Syscall.writeAll(fd, $0) }
}

/// Reload cycles (each a real change), stream subscriptions opened and cancelled (typed changes,
/// values, store events, and streams dropped unread), and watcher start/stop cycles; prints RSS and
/// descriptor counts after a warm-up and at the end: `rss_before=… rss_after=… fd_before=… fd_after=…`.
func runSoak(directory: String, reloads: Int, subscriptions: Int) async {
  let file = directory + "/soak.ini"
  writeFile("[soak]\nvalue = 0\nname = n0\nflags = a, b\n", to: file)
  let store = SettingsStore(layers: [FileLayer(scope: .system, files: [file])])
  let settings = SoakSettings(store: store)
  // One long-lived subscriber, as a program has: it must see the reloads.
  let received = Counter()
  let listener = Task {
    for await _ in settings.$value.changes { received.increment() }
  }

  var edit = 0
  func reloadCycles(_ count: Int) {
    for _ in 0..<count {
      edit += 1
      writeFile("[soak]\nvalue = \(edit)\nname = n\(edit)\nflags = a, b, \(edit)\n", to: file)
      store.reload()
    }
  }

  func subscriptionCycles(_ count: Int) async {
    for index in 0..<count {
      let changes = settings.$value.changes
      let waiting = Task {
        var iterator = changes.makeAsyncIterator()
        return await iterator.next()
      }
      waiting.cancel()
      _ = await waiting.value
      let events = store.events
      let draining = Task { for await _ in events {} }
      draining.cancel()
      await draining.value
      _ = settings.$name.values  // dropped unread
      _ = store.events  // dropped unread
      if index % 100 == 0 { await watcherCycle() }
    }
  }

  func watcherCycle() async {
    let ready = Flag()
    let running = Task { await store.run(onReady: { ready.set() }) }
    while !ready.isSet { await Task.yield() }
    running.cancel()
    await running.value
  }

  // Warm up: caches, the shared inotify hub and its thread, the concurrency runtime's pools.
  reloadCycles(200)
  await subscriptionCycles(200)
  let rssBefore = residentBytes()
  let fdBefore = openDescriptors()
  let clock = ContinuousClock()
  let started = clock.now
  reloadCycles(reloads)
  await subscriptionCycles(subscriptions)
  let elapsed = (clock.now - started).components
  let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds / 1_000_000_000_000_000) / 1_000
  let rssAfter = residentBytes()
  let fdAfter = openDescriptors()
  // The long-lived subscriber saw the last value (a deadline, not a sleep: it returns when it has).
  let deadline = clock.now + .seconds(30)
  while settings.value != edit || received.value == 0, clock.now < deadline { await Task.yield() }
  listener.cancel()
  say(
    "rss_before=\(rssBefore) rss_after=\(rssAfter) fd_before=\(fdBefore) fd_after=\(fdAfter) "
      + "reloads=\(reloads) subscriptions=\(subscriptions) generation=\(store.snapshot.generation) "
      + "received=\(received.value) value=\(settings.value) edits=\(edit) seconds=\(seconds)")
}
