extension SettingValue {
  /// Whether two trees are equal in content and in every origin.
  func isIdentical(to other: SettingValue) -> Bool {
    if case .text(let a, let aStart, let aCount, let aLine, let aColumn) = storage,
      case .text(let b, let bStart, let bCount, let bLine, let bColumn) = other.storage,
      a === b
    {
      return aStart == bStart && aCount == bCount && aLine == bLine && aColumn == bColumn
    }
    guard origin == other.origin else { return false }
    switch (table, other.table) {
    case (let a?, let b?):
      if a.sharesStorage(with: b) { return true }
      return a.count == b.count
        && zip(a.storage, b.storage).allSatisfy { $0.key == $1.key && $0.value.isIdentical(to: $1.value) }
    case (nil, nil):
      if case .node(.array(let a), _) = storage, case .node(.array(let b), _) = other.storage {
        return a.count == b.count && zip(a, b).allSatisfy { $0.isIdentical(to: $1) }
      }
      return self == other
    default:
      return false
    }
  }
}
