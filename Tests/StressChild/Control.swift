import Strata
import StrataPlatform
import Synchronization

struct ChildLogSettings: SettingsGroup {
  static var section: String { "log" }
  @Setting var level = "info"
}

/// A clock the parent moves: `DIR/advance` holds seconds to add.
final class ChildClock: ControlClock {
  private let now = Mutex(0.0)
  var seconds: Double { now.withLock { $0 } }
  func advance(by seconds: Double) { now.withLock { $0 += seconds } }
}

/// Serves a store over `DIR/app.ini` (a `log` group) on `DIR/control.sock`, with a clock the parent
/// moves by writing seconds to `DIR/advance` (the file is removed and `advanced N` printed once the
/// clock has moved and the socket's thread looked at it). Prints `ready`, then `event …` for each store
/// event; runs until killed.
func runControl(directory: String) async {
  let store = SettingsStore(layers: [FileLayer(scope: .user, files: [directory + "/app.ini"])])
  let log = ChildLogSettings(store: store)
  store.observeEvents { say("event \($0)") }
  let clock = ChildClock()
  let server: ControlServer
  do {
    server = try store.startControl(at: directory + "/control.sock", clock: clock)
  } catch {
    say("error \(error)")
    exit(1)
  }
  let advance = directory + "/advance"
  _ = DetachedThread.start {
    while true {
      usleep(20_000)
      let fd = open(advance, O_RDONLY)
      guard fd >= 0 else { continue }
      var bytes = [UInt8](repeating: 0, count: 64)
      let count = Syscall.read(fd, &bytes, bytes.count)
      Syscall.close(fd)
      let text = String(decoding: bytes[..<max(0, count)], as: UTF8.self)
      guard text.hasSuffix("\n"), let seconds = Double(text.dropLast()) else { continue }  // half written
      unlink(advance)
      clock.advance(by: seconds)
      server.wake()
      say("advanced \(seconds)")
    }
  }
  say("ready \(log.level)")
  await store.run()
}
