import Foundation
import Testing

@testable import Strata

/// Whether two trees are the same node for node: content, key order, and the origin of every node.
private func sameTree(_ a: SettingValue, _ b: SettingValue) -> Bool {
  guard a.origin == b.origin else { return false }
  switch (a.kind, b.kind) {
  case (.table(let x), .table(let y)):
    return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && sameTree($0.value, $1.value) }
  case (.array(let x), .array(let y)):
    return x.count == y.count && zip(x, y).allSatisfy { sameTree($0, $1) }
  default:
    return a.kind == b.kind
  }
}

/// Parses `old`, splices the edit to `new` in, and returns the spliced document and spans (nil when the
/// splice declined), checking on the way that a splice agrees with a full parse of `new`.
private func splice(
  _ old: String, _ new: String, nestedThreshold: Int = 16_384,
  sourceLocation: SourceLocation = #_sourceLocation
) throws -> (document: Document, spans: MemberSpans)? {
  var format = JSONFormat()
  format.nestedSpanThreshold = nestedThreshold
  let oldBytes = Array(old.utf8)
  let newBytes = Array(new.utf8)
  let (document, spans) = try format.parseRecordingSpans(oldBytes, path: "t.json", options: ParseOptions())
  let spansFound = try #require(spans, sourceLocation: sourceLocation)
  let spliced = DocumentSplice.splice(
    document, spans: spansFound, oldBytes: oldBytes, newBytes: newBytes, format: format,
    options: ParseOptions())
  guard let spliced else { return nil }
  let full = try format.parseRecordingSpans(newBytes, path: "t.json", options: ParseOptions())
  #expect(sameTree(spliced.document.root, full.document.root), sourceLocation: sourceLocation)
  #expect(full.document.diagnostics.isEmpty, sourceLocation: sourceLocation)
  #expect(spliced.spans == full.spans, sourceLocation: sourceLocation)
  return spliced
}

@Suite struct DocumentSpliceTests {
  static let sections = """
    {
      "a": {"x": 1, "y": "two"},
      "b": {"x": 10, "y": "twenty", "z": [1, 2]},
      "c": {
        "x": 100,
        "y": "hundred"
      },
      "d": 5
    }

    """

  @Test func aValueEditParsesOnlyItsMemberAndKeepsTheOthersShared() throws {
    let new = Self.sections.replacingOccurrences(of: "\"x\": 10,", with: "\"x\": 12345,")
    let (document, _) = try #require(try splice(Self.sections, new))
    let old = try parse(Self.sections, as: JSONFormat(), path: "t.json")
    #expect(document.root.value(at: "b.x") == SettingValue(.integer(12345), origin: .runtime))
    #expect(position(document.root.value(at: "b.y")) == "3:26")
    // The members the edit did not touch are the old ones (the reload's comparison skips them unread).
    for key in ["a", "c"] {
      let mine = try #require(document.root.table?[key]?.table)
      let theirs = try #require(old.root.table?[key]?.table)
      #expect(mine == theirs)
    }
  }

  @Test func editsInsideAMultiLineMemberAndOfATopLevelScalarSplice() throws {
    let inner = Self.sections.replacingOccurrences(of: "\"hundred\"", with: "\"a \\\"quoted\\\" hundred\"")
    #expect(try splice(Self.sections, inner) != nil)
    let scalar = Self.sections.replacingOccurrences(
      of: "\"d\": 5", with: "\"d\": {\"deeper\": [true, false]}")
    #expect(try splice(Self.sections, scalar) != nil)
    let shorter = Self.sections.replacingOccurrences(of: "\"y\": \"twenty\", ", with: "")
    #expect(try splice(Self.sections, shorter) != nil)
  }

  @Test func editsThatMoveLinesKeysOrNeighboursAreParsedWhole() throws {
    // A new line: every later origin moves.
    let line = Self.sections.replacingOccurrences(of: "\"x\": 100,", with: "\"x\": 100,\n    \"w\": 0,")
    #expect(try splice(Self.sections, line) == nil)
    // A key.
    let key = Self.sections.replacingOccurrences(of: "\"b\":", with: "\"bb\":")
    #expect(try splice(Self.sections, key) == nil)
    // Two members.
    let two = Self.sections.replacingOccurrences(of: "\"y\": \"two\"}", with: "\"y\": \"2\"}")
      .replacingOccurrences(of: "\"twenty\"", with: "\"20\"")
    #expect(try splice(Self.sections, two) == nil)
    // A member that no longer parses: the whole parse reports it.
    let broken = Self.sections.replacingOccurrences(of: "\"x\": 10,", with: "\"x\": 10,,")
    #expect(try splice(Self.sections, broken) == nil)
    // A member becoming null (unset) changes the table's keys.
    let null = Self.sections.replacingOccurrences(of: "\"d\": 5", with: "\"d\": null")
    #expect(try splice(Self.sections, null) == nil)
  }

  @Test func anEditInsideALargeSectionParsesOnlyItsMember() throws {
    let old = """
      {
        "app": {
          "a": 1,
          "b": {"c": [1, 2], "d": "x"},
          "e": true
        }
      }

      """
    // Nested spans for every member table: `app`'s members are parsed alone.
    let edited = old.replacingOccurrences(of: "\"d\": \"x\"", with: "\"d\": \"longer\"")
    let (document, spans) = try #require(try splice(old, edited, nestedThreshold: 0))
    #expect(document.root.value(at: "app.b.d")?.kind == .string("longer"))
    #expect(spans.nested[0]?.ranges.count == 3)
    // An edit of an inner key, or across inner members, parses the file whole.
    let key = old.replacingOccurrences(of: "\"e\"", with: "\"f\"")
    #expect(try splice(old, key, nestedThreshold: 0) == nil)
    let across = old.replacingOccurrences(of: "1,\n    \"b\": {\"c\": [1", with: "2,\n    \"b\": {\"c\": [3")
    #expect(across != old)
    #expect(try splice(old, across, nestedThreshold: 0) == nil)
    // Without nested spans, `app` is the member parsed again.
    #expect(try splice(old, key) != nil)
  }

  @Test func blanksPutInFrontOfAValueMoveItsSpan() throws {
    // Found by the json-splice fuzz target: the document was right, the span kept its old start.
    let old = "{\n\"a\": \"b\"\n}"
    let (_, spans) = try #require(try splice(old, "{\n\"a\":  \"b\"\n}"))
    #expect(spans.ranges == [8..<11])
  }

  @Test func aMemberParsedWholeGetsTheNestedSpansAFullParseRecords() throws {
    // Found by the json-splice fuzz target: an empty object that gains a member on a blank line.
    let old = "{\n  \"server\": {\n  \n  }\n}\n"
    let new = "{\n  \"server\": {\n    \"maxConnections\": 42096\n  }\n}\n"
    let (_, spans) = try #require(try splice(old, new, nestedThreshold: 0))
    #expect(spans.nested[0]?.ranges.count == 1)
  }

  @Test func aMemberSharingItsLastLineWithAnotherIsParsedWhole() throws {
    let old = "{\"a\": 1, \"b\": 2}\n"
    // `b`'s column would move by the edit's length.
    #expect(try splice(old, "{\"a\": 100, \"b\": 2}\n") == nil)
    // The last member on the line may change.
    #expect(try splice(old, "{\"a\": 1, \"b\": 200}\n") != nil)
  }

  @Test func aWarningInTheEditedMemberMakesTheWholeParseReportIt() throws {
    let new = Self.sections.replacingOccurrences(of: "\"x\": 1, \"y\": \"two\"", with: "\"x\": 1, \"x\": 2")
    #expect(try splice(Self.sections, new) == nil)
    let warned = try parse(new, as: JSONFormat())
    #expect(warned.diagnostics.count == 1)
  }

  /// Random documents and random byte edits: whenever the splice takes an edit, its document must equal
  /// a full parse node for node (checked in `splice`); whenever the full parse fails or warns, the splice
  /// must have declined. And it must take a good share of the edits, or this checks nothing.
  /// With nested spans for every member table (threshold 0) and for none.
  @Test(arguments: [0, Int.max])
  func randomEditsSpliceExactlyAsAFullParseReads(nestedThreshold: Int) async throws {
    // 3,000 documents parsed twice and spliced in a debug build: on a thread of its own, not the
    // cooperative pool's. The checks are `splice`'s, with the edit named.
    try await checkedOnOwnThread { checks in
      var random = SplitMix64(seed: 0x5EED_0013)
      var spliced = 0
      let trials = 3_000
      var format = JSONFormat()
      format.nestedSpanThreshold = nestedThreshold
      for _ in 0..<trials {
        let old = Self.randomDocument(&random)
        let new = Self.randomEdit(of: old, &random)
        let (oldBytes, newBytes) = (Array(old.utf8), Array(new.utf8))
        let (document, spans) = try format.parseRecordingSpans(
          oldBytes, path: "t.json", options: ParseOptions())
        guard let spans else {
          checks.expect(false, "no spans recorded for \(old)")
          continue
        }
        let result = DocumentSplice.splice(
          document, spans: spans, oldBytes: oldBytes, newBytes: newBytes, format: format,
          options: ParseOptions())
        guard let result else { continue }
        spliced += 1
        // Whenever the splice takes an edit, the full parse succeeds without a warning and agrees.
        guard let full = try? format.parseRecordingSpans(newBytes, path: "t.json", options: ParseOptions())
        else {
          checks.expect(false, "the splice took an edit a full parse refuses: \(new)")
          continue
        }
        checks.expect(
          sameTree(result.document.root, full.document.root), "another tree than a full parse: \(new)")
        checks.expect(full.document.diagnostics.isEmpty, "the splice took an edit that warns: \(new)")
        checks.expect(result.spans == full.spans, "other spans than a full parse: \(new)")
      }
      checks.expect(spliced > trials / 10, "the splice took \(spliced) of \(trials) edits")
    }
  }

  private static let scalars = [
    "0", "-1", "12.5e-3", "true", "false", "\"\"", "\"text\"", "\"esc\\\"aped\\n\"", "\"é ü\"",
    "\"\\u00e9\"", "9223372036854775807", "18446744073709551615",
  ]

  private static func randomValue(_ random: inout SplitMix64, depth: Int, multiLine: Bool, indent: String)
    -> String
  {
    switch depth < 2 ? Int.random(in: 0..<5, using: &random) : 0 {
    case 0, 1: return scalars.randomElement(using: &random)!
    case 2:
      let count = Int.random(in: 0...3, using: &random)
      let elements = (0..<count).map { _ in
        randomValue(&random, depth: depth + 1, multiLine: false, indent: indent)
      }
      return "[" + elements.joined(separator: ", ") + "]"
    default:
      let count = Int.random(in: 0...4, using: &random)
      let inner = multiLine && Bool.random(using: &random)
      let separator = inner ? ",\n" + indent + "  " : ", "
      let members = (0..<count).map { index in
        "\"k\(index)\": " + randomValue(&random, depth: depth + 1, multiLine: inner, indent: indent + "  ")
      }
      guard count > 0 else { return "{}" }
      return inner
        ? "{\n" + indent + "  " + members.joined(separator: separator) + "\n" + indent + "}"
        : "{" + members.joined(separator: separator) + "}"
    }
  }

  private static func randomDocument(_ random: inout SplitMix64) -> String {
    let count = Int.random(in: 1...6, using: &random)
    var text = "{\n"
    for index in 0..<count {
      text += "  \"m\(index)\": " + randomValue(&random, depth: 0, multiLine: true, indent: "  ")
      if index + 1 < count {
        // Now and then two members share a line.
        text += Int.random(in: 0..<5, using: &random) == 0 ? ", " : ",\n"
      } else {
        text += "\n"
      }
    }
    return text + "}\n"
  }

  /// One edit of the text: a scalar replaced, bytes inserted or removed, at a random place.
  private static func randomEdit(of text: String, _ random: inout SplitMix64) -> String {
    var bytes = Array(text.utf8)
    let snippets =
      scalars + ["1e400", " ", "\n", ",", "}", "{", "\"", ":", "\"k9\": 1, ", "]", "x", "null", "\\"]
    let position = Int.random(in: 0...bytes.count, using: &random)
    let removed = min(Int.random(in: 0...4, using: &random), bytes.count - position)
    switch Int.random(in: 0..<3, using: &random) {
    case 0:
      // Replace a digit run or a string with another scalar, the commonest real edit.
      var start = position
      while start < bytes.count, !(bytes[start] == UInt8(ascii: "\"") || (0x30...0x39).contains(bytes[start]))
      {
        start += 1
      }
      guard start < bytes.count else { return text }
      var end = start + 1
      if bytes[start] == UInt8(ascii: "\"") {
        while end < bytes.count, bytes[end] != UInt8(ascii: "\"") || bytes[end - 1] == UInt8(ascii: "\\") {
          end += 1
        }
        end = min(end + 1, bytes.count)
      } else {
        while end < bytes.count, (0x30...0x39).contains(bytes[end]) { end += 1 }
      }
      bytes.replaceSubrange(start..<end, with: Array(scalars.randomElement(using: &random)!.utf8))
    case 1:
      bytes.replaceSubrange(
        position..<(position + removed), with: Array(snippets.randomElement(using: &random)!.utf8))
    default:
      bytes.removeSubrange(position..<(position + removed))
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}

@Suite struct MemberSpansTests {
  @Test func theMemberHoldingAnEditIsFoundByItsSpan() {
    let spans = MemberSpans([5..<9, 14..<20, 25..<26], format: "json")
    #expect(spans.member(holding: 5, 9) == 0)
    #expect(spans.member(holding: 9, 9) == 0)  // bytes inserted right after the member's last
    #expect(spans.member(holding: 16, 18) == 1)
    #expect(spans.member(holding: 8, 15) == nil)  // across two members
    #expect(spans.member(holding: 10, 11) == nil)  // between them
    #expect(spans.member(holding: 2, 3) == nil)  // before the first
    #expect(spans.member(holding: 25, 27) == nil)  // past the last one's end
  }

  @Test func resizingMovesTheMemberEndAndEveryLaterSpan() {
    let spans = MemberSpans([5..<9, 14..<20, 25..<26], format: "json")
    #expect(spans.resized(1, to: 14..<23, by: 3, nested: nil).ranges == [5..<9, 14..<23, 28..<29])
    #expect(spans.resized(0, to: 5..<7, by: -2, nested: nil).ranges == [5..<7, 12..<18, 23..<24])
    // Blanks put in front of a member move its start.
    #expect(spans.resized(1, to: 16..<21, by: 1, nested: nil).ranges == [5..<9, 16..<21, 26..<27])
  }

  @Test func resizingMovesTheNestedSpansOfLaterMembersAndReplacesTheEditedOnes() {
    let inner = { (base: Int) in MemberSpans([(base + 1)..<(base + 2)], format: "json") }
    let spans = MemberSpans([0..<4, 10..<20, 30..<40], format: "json", nested: [0: inner(0), 2: inner(30)])
    let resized = spans.resized(1, to: 10..<25, by: 5, nested: inner(10))
    #expect(resized.nested == [0: inner(0), 1: inner(10), 2: inner(35)])
    #expect(spans.resized(2, to: 30..<41, by: 1, nested: nil).nested == [0: inner(0)])
  }
}

@Suite struct ByteComparisonTests {
  @Test func commonEndsNeverOverlapAndMatchAByteByByteScan() {
    var random = SplitMix64(seed: 42)
    for _ in 0..<2_000 {
      let base = (0..<Int.random(in: 0...40, using: &random)).map { _ in
        UInt8.random(in: 97...99, using: &random)
      }
      var other = base
      let at = Int.random(in: 0...base.count, using: &random)
      let removed = Int.random(in: 0...(base.count - at), using: &random)
      other.replaceSubrange(
        at..<(at + removed),
        with: (0..<Int.random(in: 0...5, using: &random)).map { _ in UInt8.random(in: 97...99, using: &random)
        })
      let (prefix, suffix) = ByteComparison.commonEnds(base, other)
      var expectedPrefix = 0
      while expectedPrefix < min(base.count, other.count), base[expectedPrefix] == other[expectedPrefix] {
        expectedPrefix += 1
      }
      var expectedSuffix = 0
      while expectedSuffix < min(base.count, other.count) - expectedPrefix,
        base[base.count - 1 - expectedSuffix] == other[other.count - 1 - expectedSuffix]
      {
        expectedSuffix += 1
      }
      #expect(prefix == expectedPrefix && suffix == expectedSuffix)
      #expect(ByteComparison.equal(base, other) == (base == other))
    }
  }
}

@Suite struct FileLayerSpliceTests {
  /// Loads `path` through a cache as a reload does, and returns the document with the cache's entry.
  private func load(_ path: String, cache: DocumentCache) -> (Document?, DocumentCache.Entry?, [Diagnostic]) {
    var contents = LayerContents()
    FileLayer.loadFile(path, into: &contents, options: ParseOptions(), cache: cache)
    return (contents.documents.first, cache.lookup(path), contents.diagnostics)
  }

  @Test func successiveEditsOfOneFileSpliceAndAgreeWithAFreshParse() throws {
    try withTemporaryDirectory { dir in
      let path = dir + "/app.json"
      let cache = DocumentCache()
      var text = DocumentSpliceTests.sections
      try write(text, to: path)
      let first = load(path, cache: cache)
      #expect(first.1?.spans != nil)
      // Three edits that change lengths: the spans kept for the next edit must move with them.
      for (old, new) in [
        ("\"x\": 10,", "\"x\": 1000000,"), ("\"x\": 1,", "\"x\": -7,"),
        ("\"y\": \"hundred\"", "\"y\": \"h\""),
      ] {
        text = text.replacingOccurrences(of: old, with: new)
        try write(text, to: path)
        let (document, entry, diagnostics) = load(path, cache: cache)
        let fresh = try parse(text, as: JSONFormat(), path: path)
        #expect(diagnostics.isEmpty)
        #expect(try #require(document).root == fresh.root)
        #expect(position(document?.root.value(at: "c.y")) == position(fresh.root.value(at: "c.y")))
        #expect(position(document?.root.value(at: "b.z")) == position(fresh.root.value(at: "b.z")))
        #expect(
          entry?.spans
            == (try JSONFormat().parseRecordingSpans(Array(text.utf8), path: path, options: ParseOptions()))
            .spans)
      }
      // A broken edit is reported at its place, and the last good document stays.
      let good = text
      try write(text.replacingOccurrences(of: "\"x\": 100,", with: "\"x\": 1 00,"), to: path)
      let (kept, _, diagnostics) = load(path, cache: cache)
      #expect(diagnostics.map { position($0.error) } == ["5:12"])
      #expect(kept?.root == (try parse(good, as: JSONFormat(), path: path)).root)
    }
  }
}
