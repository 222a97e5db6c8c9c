/// Where each member value of a document's top-level table lies in the file's bytes, in table order:
/// kept with the document, so that an edit inside one member parses only that member again.
struct MemberSpans: Sendable, Equatable {
  /// Each member value's first byte to just past its last.
  private(set) var ranges: [Range<Int>]
  /// The name of the format that found them (``ConfigFormat/name``): only it can parse a member alone.
  let format: String

  init(_ ranges: [Range<Int>], format: String) {
    self.ranges = ranges
    self.format = format
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

  /// The spans after member `index` grew by `delta` bytes (shrank, when negative): its end and every
  /// later span move.
  func resized(_ index: Int, by delta: Int) -> MemberSpans {
    guard delta != 0 else { return self }
    var moved = self
    moved.ranges[index] = ranges[index].lowerBound..<(ranges[index].upperBound + delta)
    for later in (index + 1)..<ranges.count {
      moved.ranges[later] = (ranges[later].lowerBound + delta)..<(ranges[later].upperBound + delta)
    }
    return moved
  }
}
