import Strata
import Synchronization

/// A layer edited between loads: each load returns the fixture with `server.port` set to the next of
/// two values, so every reload of a store over it publishes exactly one change.
final class EditedLayer: Layer {
  var scope: Scope { .user }
  var name: String { "edited" }
  /// The two versions of the document, parsed once.
  private let versions: [Document]
  /// How many loads were made.
  private let loads = Atomic(0)

  init() {
    versions = [8443, 9443].map { Document(path: "edited", root: Fixtures.serverTable(port: $0)) }
  }

  func load(_ context: LoadContext) -> LayerContents {
    let index = loads.wrappingAdd(1, ordering: .relaxed).oldValue % 2
    return LayerContents(documents: [versions[index]])
  }
}
