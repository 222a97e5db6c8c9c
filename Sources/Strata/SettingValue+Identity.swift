extension SettingValue {
  /// Whether two trees are equal in content and in every origin.
  func isIdentical(to other: SettingValue) -> Bool {
    guard origin == other.origin else { return false }
    switch (kind, other.kind) {
    case (.table(let a), .table(let b)):
      if a.sharesStorage(with: b) { return true }
      return a.count == b.count
        && zip(a.storage, b.storage).allSatisfy { $0.key == $1.key && $0.value.isIdentical(to: $1.value) }
    case (.array(let a), .array(let b)):
      return a.count == b.count && zip(a, b).allSatisfy { $0.isIdentical(to: $1) }
    default:
      return kind == other.kind
    }
  }
}
