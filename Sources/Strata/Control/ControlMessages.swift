/// The control protocol's messages: one JSON object on one line each way (see the catalog's
/// OperatingAService article). A client sends one ``ControlRequest`` and reads one ``ControlResponse``;
/// then the service closes the connection.
package enum ControlProtocol {
  /// The protocol's version; a request of another version is refused with both numbers.
  package static let version = 1
  /// The longest request line, not counting its newline (a candidate file for a plan travels inside
  /// it).
  package static let maxRequestBytes = 1 << 20
  /// How long a client may take to send its whole request (from the accept), and then to read the
  /// whole answer (from when it is ready).
  package static let connectionTimeout: Duration = .seconds(5)
  /// How many connections are served at once. One more takes the slot of the oldest that has not sent
  /// a whole request yet (which is told so and closed); only when every slot is being answered is it
  /// answered "busy".
  package static let maxConnections = 8
  /// The socket's name in the runtime directory.
  package static let socketName = "control.sock"
}

/// What a client asks: `status`, `plan`, `set` or `unset`.
package struct ControlRequest: Codable, Sendable, Equatable {
  /// The protocol version the client speaks (``ControlProtocol/version``).
  package var version: Int
  /// `status`, `plan`, `set` or `unset`.
  package var request: String
  /// `plan`: the candidate's own name; the file it stands for is the service's file of that path,
  /// else of that last component (unless `target` says).
  package var path: String?
  /// `plan`: the service's file the candidate stands for.
  package var target: String?
  /// `plan`: the candidate's text.
  package var content: String?
  /// `set`, `unset`: the setting's key.
  package var key: String?
  /// `set`: the value, as on a command line (`debug`, `8080`, `true`).
  package var value: String?
  /// `set`: how long the override lasts, in seconds.
  package var seconds: Double?

  package init(
    request: String, path: String? = nil, target: String? = nil, content: String? = nil, key: String? = nil,
    value: String? = nil, seconds: Double? = nil
  ) {
    version = ControlProtocol.version
    self.request = request
    self.path = path
    self.target = target
    self.content = content
    self.key = key
    self.value = value
    self.seconds = seconds
  }
}

/// The answer: `ok` with what was asked for, or `ok: false` with an error (and the limit that was hit,
/// when one was).
package struct ControlResponse: Codable, Sendable {
  package var version = ControlProtocol.version
  package var ok: Bool
  package var error: String?
  /// The limit a refused request hit: `maxRequestBytes`, `connectionTimeout`, `maxConnections`.
  package var limit: String?
  package var status: ControlStatus?
  package var plan: ControlPlan?
  package var override: ControlOverride?

  package init(
    ok: Bool, error: String? = nil, limit: String? = nil, status: ControlStatus? = nil,
    plan: ControlPlan? = nil,
    override: ControlOverride? = nil
  ) {
    self.ok = ok
    self.error = error
    self.limit = limit
    self.status = status
    self.plan = plan
    self.override = override
  }

  /// A refusal.
  package static func failure(_ message: String, limit: String? = nil) -> ControlResponse {
    ControlResponse(ok: false, error: message, limit: limit)
  }
}

/// A setting's value as the service uses it (redacted for secrets), and where it came from.
package struct ControlValue: Codable, Sendable, Equatable {
  package var key: String
  /// `nil` for a required setting with no value.
  package var value: String?
  package var origin: String
}

/// A value that would change (or differs): the running one and the other, each with its origin.
package struct ControlDifference: Codable, Sendable, Equatable {
  package var key: String
  package var running: String?
  package var runningOrigin: String
  /// The value of the files (or the candidate); `nil` when nothing sets it and it has no default.
  package var other: String?
  package var otherOrigin: String
}

/// A problem: a rejected value, an unknown key, a file that does not parse.
package struct ControlProblem: Codable, Sendable, Equatable {
  package var key: String?
  /// `file:line:column` when known.
  package var location: String?
  package var message: String

  init(key: String?, _ error: StrataError) {
    self.key = key
    location = error.location
    message = error.message
  }

  /// `file:line:column: message`, as the library's errors print.
  package var description: String { location.map { "\($0): \(message)" } ?? message }
}

/// A time-limited override, set through the socket.
package struct ControlOverride: Codable, Sendable, Equatable {
  package var key: String
  package var value: String
  /// Seconds until it expires (by the service's clock).
  package var remainingSeconds: Double
}

/// What `status` answers: the live configuration.
package struct ControlStatus: Codable, Sendable {
  package var app: String?
  package var pid: Int32
  package var generation: Int
  /// When the generation was published (ISO 8601, UTC).
  package var loadedAt: String
  /// The running value of every declared setting (or, with none declared, of every key).
  package var settings: [ControlValue]
  package var overrides: [ControlOverride]
  /// Rejected edits standing now: the setting keeps its running value (or, at start-up, a lower one).
  package var rejected: [ControlProblem]
  /// Changes to restart-required settings: `other` is what a restart picks up.
  package var pendingRestarts: [ControlDifference]
  /// Settings whose running value differs from what the files on disk give now.
  package var differsFromDisk: [ControlDifference]
  /// Files that fail to load now (their last good contents stay in use).
  package var failing: [ControlProblem]
  /// Declared settings the program has not read since it started (`nil`: a service that does not say).
  package var neverRead: [String]? = nil
  /// Keys the layers set that no declared setting reads, each with where and a "did you mean".
  package var unknownKeys: [ControlProblem]? = nil
  /// The keys a rollback put back (the service turned unhealthy), with their values and origins.
  package var rolledBack: [ControlValue]? = nil
  /// Why they were rolled back.
  package var rollbackReason: String? = nil
  /// Where the service writes its history (`config-dump --pid N --history` reads it there), while it
  /// writes one.
  package var historyDirectory: String? = nil
}

/// What `plan` answers: what applying a candidate file would do. Nothing is applied.
package struct ControlPlan: Codable, Sendable {
  /// The service's file the candidate stands for.
  package var target: String
  /// Values that would change.
  package var changes: [ControlDifference]
  /// Restart-required values that would change at the next start only.
  package var pendingRestart: [ControlDifference]
  /// Values that would be rejected (the running value kept), with why.
  package var rejected: [ControlProblem]
  /// Keys of the candidate no setting declares, with a "did you mean".
  package var unknownKeys: [ControlProblem]
  /// Why the candidate as a whole would be refused (it does not parse): then nothing of it applies.
  package var errors: [ControlProblem]
}
