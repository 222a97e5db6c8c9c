/// Records, while a JSON file is parsed, where each member value of the top-level object lies, and
/// where the members of each large member object lie, for ``DocumentSplice``.
struct JSONSpanRecorder {
  /// The size in bytes from which a member object's own members are recorded too, so that an edit in
  /// a large section parses one of its members again rather than the whole section.
  let nestedThreshold: Int
  private var top: [Range<Int>] = []
  /// `false` once a top-level member is `null` (left out of the table: the spans would not match it).
  private var topMatches = true
  private var nested: [Int: MemberSpans] = [:]
  /// The members of the top-level member being read, while it is an object.
  private var inner: [Range<Int>] = []
  private var innerMatches = true
  private var memberStart = 0
  private var innerStart = 0

  init(nestedThreshold: Int) { self.nestedThreshold = nestedThreshold }

  /// A value starts at `position` with `depth` containers open around it.
  mutating func valueStarts(at position: Int, depth: Int) {
    if depth == 1 {
      memberStart = position
      inner.removeAll(keepingCapacity: true)
      innerMatches = true
    } else if depth == 2 {
      innerStart = position
    }
  }

  /// The value of an object member at `depth` ended just before `position`; `isNull`: it was `null`;
  /// `tableCount`: its number of keys when it is a table (asked only of large members).
  mutating func memberEnds(at position: Int, depth: Int, isNull: Bool, tableCount: () -> Int?) {
    if depth == 2 {
      if isNull { innerMatches = false } else { inner.append(innerStart..<position) }
      return
    }
    guard depth == 1, topMatches else { return }
    guard !isNull else {
      topMatches = false
      return
    }
    if innerMatches, position - memberStart >= nestedThreshold, !inner.isEmpty, tableCount() == inner.count {
      nested[top.count] = MemberSpans(inner, format: JSONFormat.name)
    }
    top.append(memberStart..<position)
  }

  /// The spans, when they match the finished top-level table one to one (a repeated key does not).
  func spans(for root: SettingValue?) -> MemberSpans? {
    guard topMatches, top.count == root?.table?.count else { return nil }
    return MemberSpans(top, format: JSONFormat.name, nested: nested)
  }
}
