import Strata

extension LayerConformance {
  /// Check 1: the layer loads documents with tables at the root, without errors, and every file origin
  /// names its document.
  func checkLoad() -> [Failure] {
    let contents = layer.load(context)
    var failures: [Failure] = []
    for diagnostic in contents.diagnostics where diagnostic.severity == .error {
      failures.append(Failure(.load, "load reported an error for a source that should load: \(diagnostic)"))
    }
    if !layer.loadsAsynchronously && contents.documents.isEmpty {
      failures.append(Failure(.load, "load returned no documents"))
    }
    for document in contents.documents {
      if document.root.table == nil {
        failures.append(
          Failure(
            .load, "the root of document \(document.path) is a \(document.root.typeName), not a table"))
      }
      if let stray = strayFileOrigin(in: document.root, of: document) {
        failures.append(
          Failure(
            .load,
            "a value of document \(document.path) has origin \(stray), which names neither the document's "
              + "path nor a file it included"))
      }
    }
    return failures
  }

  /// Check 2: `fetch` returns within the timeout and, for a layer that does not wait, agrees with
  /// `load`.
  func checkFetch(timeout: Duration) async -> [Failure] {
    let layer = self.layer
    let context = self.context
    let outcome = await bounded(by: Deadline(timeout)) { await layer.fetch(context) }
    guard case .finished(let fetched) = outcome else {
      return [Failure(.fetch, "fetch did not return within \(timeout)")]
    }
    guard !layer.loadsAsynchronously else {
      return fetched.documents.compactMap { document in
        document.root.table != nil
          ? nil
          : Failure(.fetch, "the root of fetched document \(document.path) is not a table")
      }
    }
    let loaded = layer.load(context)
    let fetchedPaths = fetched.documents.map(\.path)
    let loadedPaths = loaded.documents.map(\.path)
    guard fetchedPaths == loadedPaths else {
      return [
        Failure(
          .fetch,
          "fetch returned documents \(fetchedPaths) but load returned \(loadedPaths) for a layer that "
            + "does not load asynchronously")
      ]
    }
    return zip(fetched.documents, loaded.documents).compactMap { fetched, loaded in
      fetched.root == loaded.root
        ? nil
        : Failure(
          .fetch,
          "fetch and load disagree on document \(fetched.path): \(fetched.root) against \(loaded.root)")
    }
  }

  /// The first file origin in `value` that names neither `document`'s path, nor a file it included,
  /// nor a file in the directory it is (a key-per-file directory).
  private func strayFileOrigin(in value: SettingValue, of document: Document) -> Origin? {
    if let path = value.origin.path, path != document.path, !document.includedFiles.contains(path),
      !path.hasPrefix(document.path.hasSuffix("/") ? document.path : document.path + "/")
    {
      return value.origin
    }
    switch value.kind {
    case .table(let table):
      for (_, child) in table {
        if let stray = strayFileOrigin(in: child, of: document) { return stray }
      }
    case .array(let elements):
      for element in elements {
        if let stray = strayFileOrigin(in: element, of: document) { return stray }
      }
    default: break
    }
    return nil
  }
}
