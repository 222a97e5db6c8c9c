import Strata
import Synchronization

/// What an etcd source remembers between loads, shared by every copy of the layer: the tree of its
/// last read, the last good contents, the outage (if any), the watch's revision, and the store's
/// signal stream (to ask for another fetch after a failed one).
final class EtcdSourceState: Sendable {
  private struct Values: Sendable {
    var tree: EtcdTree
    var contents = LayerContents()
    var lastDocuments: [Document] = []
    var valueDiagnostics: [Diagnostic] = []
    var outage: Diagnostic?
    var failures = 0
    var watchRevision = 0
    var watchStatus = EtcdWatchStatus()
    var signal: (id: Int, continuation: AsyncStream<LayerChange>.Continuation)?
    var nextSignalID = 0
    var retry: Task<Void, Never>?
  }

  private let values: Mutex<Values>
  /// The document's path: `etcd:/config/myapp/`.
  let documentPath: String

  init(tree: EtcdTree) {
    values = Mutex(Values(tree: tree))
    documentPath = "etcd:" + tree.label
  }

  /// The last contents: the last good document, with the current problems.
  var contents: LayerContents { values.withLock { $0.contents } }

  /// Takes a successful range read: builds the tree, clears any outage.
  func read(_ entries: [EtcdConnection.Entry], options: ParseOptions) -> LayerContents {
    values.withLock { state in
      let (root, diagnostics) = state.tree.build(entries, options: options)
      state.lastDocuments = [Document(path: documentPath, root: root)]
      state.valueDiagnostics = diagnostics
      state.outage = nil
      state.failures = 0
      state.retry?.cancel()
      state.retry = nil
      state.contents = LayerContents(documents: state.lastDocuments, diagnostics: diagnostics)
      return state.contents
    }
  }

  /// Takes a failed read: the last good document stays, with an error that says why; when a store
  /// listens, it is asked to fetch again after the retry policy's delay.
  func failed(_ error: StrataError, retry policy: EtcdRetry) -> LayerContents {
    values.withLock { state in
      state.outage = Diagnostic(.error, error)
      state.failures += 1
      state.contents = LayerContents(
        documents: state.lastDocuments, diagnostics: state.valueDiagnostics + [state.outage!])
      if let continuation = state.signal?.continuation {
        let delay = policy.delay(afterFailures: state.failures)
        state.retry?.cancel()
        state.retry = Task {
          try? await Task.sleep(for: delay)
          if !Task.isCancelled { continuation.yield(.changed) }
        }
      }
      return state.contents
    }
  }

  /// The revision the watch has seen up to (0: none).
  var watchRevision: Int {
    get { values.withLock { $0.watchRevision } }
    set { values.withLock { $0.watchRevision = newValue } }
  }

  /// What the watch has done so far.
  var watchStatus: EtcdWatchStatus {
    values.withLock { $0.watchStatus }
  }

  /// Records a change of the watch's status.
  func updateWatchStatus(_ body: (inout EtcdWatchStatus) -> Void) {
    values.withLock { body(&$0.watchStatus) }
  }

  /// Raises the watch's revision to `revision`, if it is higher.
  func sawRevision(_ revision: Int) {
    values.withLock { $0.watchRevision = max($0.watchRevision, revision) }
  }

  /// Remembers the stream a store listens to; returns an id for ``detach(_:)``.
  func attach(_ continuation: AsyncStream<LayerChange>.Continuation) -> Int {
    values.withLock { state in
      defer { state.nextSignalID += 1 }
      state.signal = (state.nextSignalID, continuation)
      return state.nextSignalID
    }
  }

  /// Forgets the stream `id`, and any retry it was to get.
  func detach(_ id: Int) {
    values.withLock { state in
      guard state.signal?.id == id else { return }
      state.signal = nil
      state.retry?.cancel()
      state.retry = nil
    }
  }
}

/// What a source's watch has done: for tests and diagnostics.
package struct EtcdWatchStatus: Sendable, Hashable {
  /// Whether a watch is open now.
  package var isConnected = false
  /// How many watches were opened (created by the server).
  package var connections = 0
  /// How many watches the server cancelled because their start revision was compacted away.
  package var compactions = 0
  /// The revision each watch started from (`nil`: from now), in order.
  package var startRevisions: [Int?] = []
}
