import Logging
import Synchronization

/// A swift-log handler that keeps every record it is given, for tests.
struct LoggingRecorder: LogHandler {
  /// One record.
  struct Record: Sendable {
    var level: Logger.Level
    var message: String
    var metadata: Logger.Metadata
    /// The handler's own level when it wrote the record.
    var handlerLevel: Logger.Level
  }

  /// The records, shared by every copy of the handler.
  final class Storage: Sendable {
    let records = Mutex<[Record]>([])
    /// Everything recorded so far.
    var all: [Record] { records.withLock { $0 } }
    /// The records whose message contains `text`.
    func matching(_ text: String) -> [Record] { all.filter { $0.message.contains(text) } }
  }

  let storage: Storage
  var metadata: Logger.Metadata = [:]
  var logLevel: Logger.Level = .trace

  init(storage: Storage = Storage()) {
    self.storage = storage
  }

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) {
    let record = Record(
      level: event.level, message: "\(event.message)",
      metadata: metadata.merging(event.metadata ?? [:]) { $1 }, handlerLevel: logLevel)
    storage.records.withLock { $0.append(record) }
  }

  /// A logger writing to a new recorder, and the recorder's storage.
  static func logger() -> (Logger, Storage) {
    let storage = Storage()
    return (Logger(label: "test", factory: { _ in LoggingRecorder(storage: storage) }), storage)
  }
}
