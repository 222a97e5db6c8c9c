/// Where the fields of a struct setting came from: the layers' tables merge key by key and the default
/// fills in the rest (see "Structured values" in Declarations.md), so one value can have several origins.
extension SettingBox {
  /// The origin of each field the layers set, by full key (`http.tls.enabled`), when the running value
  /// was read from the snapshot's table at the setting's key; empty for any other value (a scalar, the
  /// default, a kept running value, a value written at run time).
  func fieldOrigins() -> [String: Origin] {
    guard let store else { return [:] }
    let key = self.key
    let origin = self.origin
    guard let tree = store.snapshot.value(forKey: key), tree.isTable, tree.origin == origin else {
      return [:]
    }
    var origins: [String: Origin] = [:]
    tree.forEachLeaf(prefix: key) { fieldKey, value in origins[fieldKey] = value.origin }
    return origins
  }

  /// The origin in words: `/etc/app/app.ini:2:8` for a value from one place; for a struct whose fields
  /// came from several places or in part from the default, each place with its fields
  /// (`/etc/app/app.ini:2:11 (enabled), default (others)`).
  func originDescription() -> String {
    let origins = fieldOrigins()
    guard !origins.isEmpty else { return origin.description }
    let fieldCount = (try? defaultValue.flatMap { try encode($0) })?.flatMap { tree -> Int? in
      var count = 0
      tree.forEachLeaf { _, _ in count += 1 }
      return count
    }
    let key = self.key
    var byPlace: [String: [String]] = [:]
    for (fieldKey, fieldOrigin) in origins {
      let place: String
      if case .file(let path, _, _) = fieldOrigin { place = path } else { place = fieldOrigin.description }
      byPlace[place, default: []].append(String(fieldKey.dropFirst(key.count + 1)))
    }
    let hasDefaults = fieldCount.map { $0 > origins.count } ?? false
    guard byPlace.count > 1 || hasDefaults else { return origin.description }
    var parts = byPlace.keys.sorted().map { place in
      let fields = byPlace[place]!.sorted()
      let shown =
        fields.prefix(4).joined(separator: ", ") + (fields.count > 4 ? ", and \(fields.count - 4) more" : "")
      return "\(place) (\(shown))"
    }
    if hasDefaults { parts.append("default (others)") }
    return "fields from " + parts.joined(separator: ", ")
  }
}
