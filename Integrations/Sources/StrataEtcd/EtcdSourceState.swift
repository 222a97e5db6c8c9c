import Strata
import Synchronization

/// What an etcd source knows, shared by every copy of the layer: the keys below the prefix as of a
/// revision (from a range read, then kept current by the watch's events), the tree built from them,
/// the last good contents, an outage, and the retry a failed fetch is owed.
///
/// The keys are current when a watch is open that delivers every event after their revision: then a
/// fetch that answers the watch's signal builds the tree from them without asking etcd. Otherwise
/// (no watch, a watch opened from a later revision, a compaction) a fetch reads the prefix again.
final class EtcdSourceState: Sendable {
  /// A key's change that a watch brought, not yet applied to the tree.
  private enum Change {
    case put(EtcdConnection.Entry)
    case delete
  }

  private struct Values {
    /// The keys below the prefix, as a tree, as of `revision` once `read` and `changes` are applied
    /// (0: never read).
    var tree: EtcdTree
    /// A whole read not yet applied to the tree (the next rebuild replaces every key with it).
    var read: [EtcdConnection.Entry]?
    /// The watch's changes not yet applied to the tree (after `read`), the last for each key.
    var changes: [[UInt8]: Change] = [:]
    /// How many keys etcd holds below the prefix, as of `revision` (a range read's count, then
    /// counted through the watch's creations and deletions).
    var keyCount = 0
    var revision = 0
    /// The newest revision an answer of etcd carried.
    var serverRevision = 0
    /// When etcd last showed that the keys are current (`nil`: never).
    var lastContact: ContinuousClock.Instant?
    /// The member the open watch is on (`nil`: none).
    var member: String?
    /// The cluster the keys were read from (0: none, or not said).
    var cluster: UInt64 = 0
    /// A reset of etcd's data (another cluster, a revision gone back, a prefix emptied at once) that a
    /// read must judge, or that was refused (`nil`: none): the keys are not current meanwhile.
    var reset: EtcdReset?
    /// Whether the watch reported a failure that no fetch has returned yet.
    var failurePending = false
    /// The revision after which the open watch delivers every event (`nil`: no watch is open).
    var watchCovers: Int?
    /// Whether the next watch may resume from `revision + 1` (`false` after a compaction).
    var resumable = true
    /// Whether the watch signalled a change that no fetch has answered yet.
    var signalPending = false
    var contents = LayerContents()
    var lastDocuments: [Document] = []
    var valueDiagnostics: [Diagnostic] = []
    var failures = 0
    var watchStatus = EtcdWatchStatus()
    /// The retry the last failed fetch is owed (`nil`: none, or the contents are good again).
    var retry: EtcdRetryDue?
    var nextRetryTicket = 0
    /// The retry schedules of the layer's running ``EtcdLayer/follow(signal:)`` calls, by id.
    var followers: [Int: AsyncStream<EtcdRetryDue>.Continuation] = [:]
    var nextFollowerID = 0

    /// Whether the keys are current: a watch is open that delivers everything after `revision`.
    var isCurrent: Bool { reset == nil && (watchCovers.map { $0 <= revision && revision > 0 } ?? false) }

    /// The last good document with `error`: the contents until the source reads etcd again.
    mutating func report(_ error: StrataError) -> LayerContents {
      contents = LayerContents(
        documents: lastDocuments, diagnostics: valueDiagnostics + [Diagnostic(.error, error)])
      return contents
    }

    /// etcd answered now, at `serverRevision` (0: not said).
    mutating func contact(serverRevision: Int) {
      lastContact = .now
      self.serverRevision = max(self.serverRevision, serverRevision)
    }

    /// Replaces the keys with a whole read (applied at the next rebuild).
    mutating func replaceKeys(_ entries: [EtcdConnection.Entry]) {
      read = entries
      changes = [:]
      keyCount = entries.count
    }

    /// Builds the contents: applies the read and the changes not applied yet to the tree (parsing
    /// only the keys they name); clears any outage.
    mutating func rebuild(options: ParseOptions, documentPath: String, isSecret: Bool) -> LayerContents {
      if let read {
        tree.replaceAll(read, options: options)
        self.read = nil
      }
      for (key, change) in changes {
        switch change {
        case .put(let entry): tree.put(entry, options: options)
        case .delete: tree.delete(key)
        }
      }
      changes = [:]
      let (root, diagnostics) = tree.contents
      var document = Document(path: documentPath, root: root)
      document.isSecret = isSecret
      lastDocuments = [document]
      valueDiagnostics = diagnostics
      failures = 0
      retry = nil
      contents = LayerContents(documents: lastDocuments, diagnostics: diagnostics)
      return contents
    }
  }

  private let values: Mutex<Values>
  /// The document's path: `etcd:/config/myapp/`.
  let documentPath: String
  /// Whether every value is a secret.
  let isSecret: Bool
  /// Whether a reset of etcd's data is taken (`false`: refused, the last good values kept).
  let followsReset: Bool

  init(tree: sending EtcdTree, isSecret: Bool, followsReset: Bool = false) {
    documentPath = "etcd:" + tree.label
    values = Mutex(Values(tree: tree))
    self.isSecret = isSecret
    self.followsReset = followsReset
  }

  /// The last contents: the last good document, with the current problems.
  var contents: LayerContents { values.withLock { $0.contents } }

  /// The contents built from the keys the watch keeps current, when it does and has signalled a
  /// change since the last fetch; `nil` when a fetch must read the prefix.
  func contentsFromWatch(options: ParseOptions) -> LayerContents? {
    values.withLock { state in
      guard state.isCurrent && state.signalPending else { return nil }
      state.signalPending = false
      return state.rebuild(options: options, documentPath: documentPath, isSecret: isSecret)
    }
  }

  /// Takes a range read whose answer carried `header`: the keys replace the known ones, unless a watch
  /// keeps them current and has already brought newer ones, or the read shows a reset of etcd's data
  /// (see ``EtcdReset``): unless the source follows resets, the known keys then stay, with an error
  /// that names the old and new cluster and revisions.
  func read(_ entries: [EtcdConnection.Entry], header: EtcdConnection.Header, options: ParseOptions)
    -> LayerContents
  {
    values.withLock { state in
      state.signalPending = false
      state.failurePending = false
      state.watchStatus.reads += 1
      state.contact(serverRevision: header.revision)
      let trusted = state.reset == nil ? state.watchCovers : nil
      let held = EtcdReset.Held(cluster: state.cluster, revision: state.revision, keys: state.keyCount)
      if !followsReset,
        let refused = EtcdReset.judge(
          held: held, trustedWatch: trusted, previous: state.reset, found: header, keys: entries.count,
          prefix: label)
      {
        state.reset = refused
        state.retry = nil
        return state.report(refused.error(path: documentPath))
      }
      if header.revision >= state.revision || trusted == nil {
        state.replaceKeys(entries)
        state.revision = header.revision
        state.cluster = header.cluster
      }
      state.reset = nil
      return state.rebuild(options: options, documentPath: documentPath, isSecret: isSecret)
    }
  }

  /// The prefix, as the document's path names it.
  private var label: String { String(documentPath.dropFirst("etcd:".count)) }

  /// Takes a failed read: the last good document stays, with an error that says why, and a retry is
  /// due after the retry policy's delay (it replaces any retry due before). A running
  /// ``EtcdLayer/follow(signal:)`` hears of it and signals the store when it is due; one that starts
  /// later hears of it when it starts.
  func failed(_ error: StrataError, retry policy: EtcdRetry) -> LayerContents {
    let (contents, due, followers) = values.withLock { state in
      state.failurePending = false
      state.failures += 1
      _ = state.report(error)
      defer { state.nextRetryTicket += 1 }
      let due = EtcdRetryDue(
        ticket: state.nextRetryTicket,
        deadline: .now + policy.wait(afterFailures: state.failures))
      state.retry = due
      return (state.contents, due, Array(state.followers.values))
    }
    for follower in followers { follower.yield(due) }
    return contents
  }

  /// Whether `due` is still the retry owed (no later failure replaced it, no good read answered it);
  /// if so, it is taken: its follower signals the store.
  func takeRetry(_ due: EtcdRetryDue) -> Bool {
    values.withLock { state in
      guard state.retry?.ticket == due.ticket else { return false }
      state.retry = nil
      return true
    }
  }

  /// The revision a new watch starts from: the one after the keys' revision (`nil`: from now, when
  /// nothing was read, the history was compacted, or a reset is suspected or refused).
  func watchStart() -> Int? {
    values.withLock { $0.resumable && $0.reset == nil && $0.revision > 0 ? $0.revision + 1 : nil }
  }

  /// A watch was created on the member at `endpoint`: from `start`, or from now, the answer's header
  /// being `header`. A watch that resumes on another cluster, or past the server's revision (the
  /// server lost its history), is refused (`false`): the next starts from now, and the next fetch
  /// reads the prefix and judges the reset.
  func watchCreated(start: Int?, header: EtcdConnection.Header, endpoint: String) -> Bool {
    values.withLock { state in
      let otherCluster = state.cluster != 0 && header.cluster != 0 && header.cluster != state.cluster
      if let start, state.reset == nil, otherCluster || (header.revision > 0 && start > header.revision + 1) {
        state.resumable = false
        state.reset = .suspected
        state.watchStatus.historyLosses += 1
        return false
      }
      state.watchCovers = start.map { $0 - 1 } ?? header.revision
      state.resumable = true
      state.signalPending = true
      state.watchStatus.isConnected = true
      state.watchStatus.connections += 1
      state.member = endpoint
      state.contact(serverRevision: header.revision)
      state.watchStatus.startRevisions.append(start)
      state.watchStatus.members.append(endpoint)
      return true
    }
  }

  /// Whether `events` delete every known key, two or more, in one change (a prefix emptied at once,
  /// as a mistaken `del --prefix` does): if so, and resets are not followed, the keys are no longer
  /// current and the next fetch reads the prefix and judges it.
  func suspectsEmptying(_ events: [EtcdWire.Event]) -> Bool {
    values.withLock { state in
      let revisions = Set(events.map { $0.kv?.mod_revision?.value ?? 0 })
      guard !followsReset, state.isCurrent, state.keyCount > 1, revisions.count == 1,
        events.allSatisfy({ $0.type == "DELETE" })
      else { return false }
      // etcd tells deletions of existing keys only: as many keys deleted as are known is every one.
      let deleted = Set(events.compactMap { EtcdWire.bytes(base64: $0.kv?.key) })
      guard deleted.count >= state.keyCount else { return false }
      state.reset = .suspected
      state.signalPending = true
      return true
    }
  }

  /// The watch was lost and no member took it over: the last good document stays, with `error`, and
  /// the next fetch returns it without asking etcd (``takePendingFailure()``); the watch, which tries
  /// again, signals when it is back.
  func watchLost(_ error: StrataError) {
    values.withLock { state in
      _ = state.report(error)
      state.failurePending = true
    }
  }

  /// The contents with the failure the watch reported, once, when no fetch returned it yet.
  func takePendingFailure() -> LayerContents? {
    values.withLock { state in
      guard state.failurePending else { return nil }
      state.failurePending = false
      return state.contents
    }
  }

  /// An error of this source: etcd could not be read, for `reasons` (each member tried and why).
  func unreadable(_ reasons: String) -> StrataError {
    StrataError(
      .unreadable,
      "etcd cannot be read (\(reasons)); the last good values are kept, and the source tries again",
      path: documentPath)
  }

  /// Applies one batch of a watch's events (puts and deletes at `revision`s after the keys'); when the
  /// keys are not current (the watch began after them), the next fetch reads the prefix instead.
  func apply(_ events: [EtcdWire.Event]) throws {
    try values.withLock { state in
      state.signalPending = true
      guard state.isCurrent else { return }
      let base = state.revision
      for event in events {
        guard let kv = event.kv, let key = EtcdWire.bytes(base64: kv.key) else { continue }
        let revision = kv.mod_revision?.value ?? 0
        guard revision > base else { continue }
        if event.type == "DELETE" {
          state.changes[key] = .delete
          state.keyCount -= 1  // etcd tells deletions of existing keys only
        } else {
          if kv.create_revision?.value == revision { state.keyCount += 1 }
          guard let value = EtcdWire.bytes(base64: kv.value) else {
            throw EtcdConnection.Failure(description: "the server sent a value that is not base64")
          }
          state.changes[key] = .put(EtcdConnection.Entry(key: key, value: value, modRevision: revision))
        }
        state.revision = max(state.revision, revision)
      }
    }
  }

  /// A progress notice: the watch has sent every event up to `revision`.
  func progressed(to revision: Int) {
    values.withLock { state in
      if state.isCurrent { state.revision = max(state.revision, revision) }
    }
  }

  /// The watch's start revision was compacted away: the next watch starts from now, and the next
  /// fetch reads the prefix.
  func compacted() {
    values.withLock { state in
      state.watchCovers = nil
      state.resumable = false
      state.watchStatus.compactions += 1
    }
  }

  /// The watch ended.
  func watchEnded() {
    values.withLock { state in
      state.watchCovers = nil
      state.watchStatus.isConnected = false
      state.member = nil
    }
  }

  /// etcd answered the watch (a message whose header says `serverRevision`; 0: not said) or its
  /// check: while the watch is open, the keys are current.
  func contact(serverRevision: Int) {
    values.withLock { state in
      if state.watchStatus.isConnected { state.contact(serverRevision: serverRevision) }
    }
  }

  /// What the layer knows of etcd now, with `authentications` tokens asked for.
  func status(authentications: Int) -> EtcdStatus {
    values.withLock { state in
      EtcdStatus(
        isWatching: state.watchStatus.isConnected, member: state.member, revision: state.revision,
        serverRevision: state.serverRevision, lastContact: state.lastContact, reads: state.watchStatus.reads,
        watchesOpened: state.watchStatus.connections, compactions: state.watchStatus.compactions,
        authentications: authentications)
    }
  }

  /// What the watch has done so far.
  var watchStatus: EtcdWatchStatus { values.withLock { $0.watchStatus } }

  /// The revision the known keys reflect (0: none read).
  var revision: Int { values.withLock { $0.revision } }

  /// Registers a follower: the retries due from now on (and the one due now, if any) come on the
  /// stream until ``unfollow(_:)``. Returns the id for ``unfollow(_:)``.
  ///
  /// Each retry comes on the stream (none is dropped): they are yielded after the lock is released,
  /// so two may come out of order, and the one still owed, whichever it is, must reach the follower.
  func follow() -> (id: Int, retries: AsyncStream<EtcdRetryDue>) {
    let (retries, continuation) = AsyncStream<EtcdRetryDue>.makeStream()
    let (id, due) = values.withLock { state in
      defer { state.nextFollowerID += 1 }
      state.followers[state.nextFollowerID] = continuation
      return (state.nextFollowerID, state.retry)
    }
    if let due { continuation.yield(due) }
    return (id, retries)
  }

  /// How many followers are registered (for tests).
  var followerCount: Int { values.withLock { $0.followers.count } }

  /// Forgets the follower `id` and ends its stream.
  func unfollow(_ id: Int) {
    let continuation = values.withLock { $0.followers.removeValue(forKey: id) }
    continuation?.finish()
  }
}

/// A fetch of the prefix is due again at `deadline` (a failed fetch's retry); `ticket` tells it from
/// the retries due before and after it.
struct EtcdRetryDue: Sendable {
  let ticket: Int
  let deadline: ContinuousClock.Instant
}

/// What a source's watch (and its reads of the whole prefix) have done: for tests and diagnostics.
package struct EtcdWatchStatus: Sendable, Hashable {
  /// Whether a watch is open now.
  package var isConnected = false
  /// How many watches were opened (created by the server).
  package var connections = 0
  /// How many watches the server cancelled because their start revision was compacted away.
  package var compactions = 0
  /// How many watches found another cluster, or the server's revision behind the keys' (its history
  /// was lost).
  package var historyLosses = 0
  /// The revision each watch started from (`nil`: from now), in order.
  package var startRevisions: [Int?] = []
  /// The endpoint of the member each watch was opened on, in order.
  package var members: [String] = []
  /// How many times the source read the whole prefix.
  package var reads = 0
}
