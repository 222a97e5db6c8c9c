extension LayerConformance {
  /// One way in which a source does not conform: which check found it, and a sentence saying what.
  public struct Failure: Sendable, Hashable, CustomStringConvertible {
    /// The checks the kit runs.
    public enum Check: String, Sendable, Hashable, CustomStringConvertible {
      /// Loading: documents with tables at the root, no errors, file origins that name their document.
      case load
      /// Fetching: returns, and agrees with loading for a layer that does not wait.
      case fetch
      /// Cancellation: a cancelled fetch and a cancelled run loop end.
      case cancellation
      /// Running: a store's run loop over the layer gets ready.
      case run
      /// Change signals: a change reaches a running store, whose snapshot shows it.
      case change
      /// Errors: a broken source reports a position, and a store keeps its last good values.
      case error

      /// The check's name, such as `load`.
      public var description: String { rawValue }
    }

    /// The check that failed.
    public var check: Check
    /// What went wrong, as a sentence.
    public var message: String

    /// Creates a failure.
    public init(_ check: Check, _ message: String) {
      self.check = check
      self.message = message
    }

    /// `check: message`.
    public var description: String { "\(check): \(message)" }
  }
}
