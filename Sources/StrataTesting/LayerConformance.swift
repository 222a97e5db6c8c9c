public import Strata

/// A conformance kit for ``Strata/Layer`` implementations: runs a source through what Strata expects
/// of every source — it loads, reports errors with positions, signals changes, survives cancellation —
/// and returns what went wrong as values, so that it works from Swift Testing and XCTest alike.
/// Here it runs on `PushingSource`, the source that Strata's "Layers and sources" article builds:
///
/// <!-- snippet: Tests/DocSnippets/TestingSourcesSnippets.swift#conformance -->
/// ```swift
/// import StrataTesting  // .product(name: "StrataTesting", package: "Strata") in your test target
/// import Testing
///
/// @Test func pushingSourceConforms() async {
///   let source = PushingSource()
///   let kit = LayerConformance(layer: source, change: { source.push("9000", forName: "port") })
///   let failures = await kit.run(timeout: .seconds(300))  // generous: a CI machine may be busy
///   #expect(failures.isEmpty, "\(failures)")
/// }
/// ```
///
/// The checks, in order (see ``Failure/Check``):
/// 1. ``Failure/Check/load``: ``Layer/load(_:)`` returns documents whose roots are tables, with no error
///    diagnostics, and every file origin names its document's path (or a file it included, or a file
///    in the directory it is).
/// 2. ``Failure/Check/fetch``: ``Layer/fetch(_:)`` returns, and for a layer that does not load
///    asynchronously it agrees with ``Layer/load(_:)``.
/// 3. ``Failure/Check/cancellation``: a fetch in a cancelled task returns, and cancelling the task that
///    runs a ``Strata/SettingsStore``'s run loop over the layer ends it (once the checks below are
///    done: one run serves them all, since a source may offer its change stream only once).
///    ``Failure/Check/run``: that run loop gets ready.
/// 4. ``Failure/Check/change`` (with `change`, for a layer whose ``Layer/follow(signal:)`` signals): after
///    `change`, a store running over the layer publishes a new generation that shows the change.
/// 5. ``Failure/Check/error`` (with `breakIt`): the next load reports an error whose ``Strata/StrataError``
///    has a path and a line, and the store keeps its last good values and emits a
///    ``Strata/StoreEvent/failed(_:)`` event.
///
/// `change` and `breakIt` mutate the source: run the kit on a fresh one.
public struct LayerConformance: Sendable {
  /// The source under test.
  public let layer: any Layer
  /// The parsing options the source is loaded with (and the store is made with).
  public let options: ParseOptions
  /// Makes the source's contents change (writes a file, pushes a value).
  public let change: (@Sendable () async throws -> Void)?
  /// Makes the source fail to load (writes a syntax error).
  public let breakIt: (@Sendable () async throws -> Void)?

  /// Describes how to drive the source under test.
  /// - Parameters:
  ///   - layer: the source, in a state that loads without errors.
  ///   - options: the parsing options to load it with.
  ///   - change: makes the source's contents change, so that its loaded values differ (writes a file,
  ///     pushes a value); `nil` for a source that never changes by itself.
  ///   - breakIt: makes the source's contents fail to load, with a position (writes a syntax error);
  ///     `nil` to skip the error check.
  public init(
    layer: any Layer, options: ParseOptions = ParseOptions(),
    change: (@Sendable () async throws -> Void)? = nil,
    breakIt: (@Sendable () async throws -> Void)? = nil
  ) {
    self.layer = layer
    self.options = options
    self.change = change
    self.breakIt = breakIt
  }

  /// Runs every check and returns the failures: none when the source conforms, else one readable
  /// sentence each.
  /// - Parameter timeout: how long any one wait may last (a fetch, a signal, the end of the run loop).
  ///   Every task the kit starts is cancelled before it returns.
  public func run(timeout: Duration = .seconds(30)) async -> [Failure] {
    var failures = checkLoad()
    failures += await checkFetch(timeout: timeout)
    failures += await checkCancellation(timeout: timeout)
    failures += await checkRunningStore(timeout: timeout)
    return failures
  }

  /// A context to load the layer alone.
  var context: LoadContext { LoadContext(options: options) }
}
