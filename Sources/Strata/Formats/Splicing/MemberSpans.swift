/// Where each member value of a document's top-level table lies in the file's bytes, in table order,
/// and where the members of its large member tables lie: kept with the document, so that an edit inside
/// one member parses only that member again.
struct MemberSpans: Sendable, Equatable {
  /// Each member value's first byte to just past its last.
  private(set) var ranges: [Range<Int>]
  /// The name of the format that found them (``ConfigFormat/name``): only it can parse a member alone.
  let format: String
  /// The spans of the members of a member table, by the member's position, for large ones.
  private(set) var nested: [Int: MemberSpans]

  init(_ ranges: [Range<Int>], format: String, nested: [Int: MemberSpans] = [:]) {
    self.ranges = ranges
    self.format = format
    self.nested = nested
  }

  /// The member whose span holds the edited bytes `lower..<upper` (offsets in the file before the edit;
  /// an empty region at a span's end, where bytes were inserted after its last one, counts), or `nil`.
  func member(holding lower: Int, _ upper: Int) -> Int? {
    // The last span that starts at or before `lower`.
    var low = 0
    var high = ranges.count
    while low < high {
      let middle = (low + high) / 2
      if ranges[middle].lowerBound <= lower { low = middle + 1 } else { high = middle }
    }
    guard low > 0 else { return nil }
    let index = low - 1
    return upper <= ranges[index].upperBound ? index : nil
  }

  /// The spans after member `index` became `range` in a file that grew by `delta` bytes (shrank, when
  /// negative): every later span moves by `delta`; the member's own nested spans become `nested` (`nil`:
  /// none).
  func resized(_ index: Int, to range: Range<Int>, by delta: Int, nested inner: MemberSpans?) -> MemberSpans {
    var moved = self
    moved.ranges[index] = range
    moved.nested[index] = inner
    guard delta != 0 else { return moved }
    for later in (index + 1)..<ranges.count {
      moved.ranges[later] = (ranges[later].lowerBound + delta)..<(ranges[later].upperBound + delta)
    }
    for (position, spans) in nested where position > index {
      moved.nested[position] = spans.shifted(by: delta)
    }
    return moved
  }

  /// Every span moved by `delta` bytes.
  private func shifted(by delta: Int) -> MemberSpans {
    MemberSpans(
      ranges.map { ($0.lowerBound + delta)..<($0.upperBound + delta) }, format: format,
      nested: nested.mapValues { $0.shifted(by: delta) })
  }
}
