import Strata
import StrataPlatform

/// One write's worth of data: the fields check each other, so a torn or truncated file shows.
struct StressRecord: Codable, Sendable, Equatable {
  var counter = 0
  var payload = ""
  var check = ""

  /// The record the writer writes for `counter`: a payload whose length varies with it, and a check
  /// that names both.
  static func number(_ counter: Int) -> StressRecord {
    let length = 2_000 + (counter * 7_919) % 30_000
    let payload = String(repeating: "0123456789abcdef", count: length / 16 + 1).prefix(length)
    return StressRecord(counter: counter, payload: String(payload), check: "\(counter):\(length)")
  }
}

struct KilledSettings: SettingsGroup {
  static var section: String { "stress" }
  @Setting var record = StressRecord()
}

/// Writes records 1, 2, 3… (continuing from the file's) through `$record.set`, the store's atomic write
/// path. Prints `ready N` after the first write, where N is the counter the file held at start.
func runWriter(file: String, count: Int?) {
  let store = SettingsStore(layers: [FileLayer(scope: .user, files: [file])], writeTarget: .file(file))
  let settings = KilledSettings(store: store)
  let start = settings.record.counter
  var next = start + 1
  while count.map({ next <= start + $0 }) ?? true {
    do {
      try settings.$record.save(.number(next))
    } catch {
      say("error \(error)")
      exit(1)
    }
    if next == start + 1 { say("ready \(start)") }
    next += 1
  }
  say("done \(next - 1)")
}
