import FoundationEssentials

/// The parser targets. Each parses the input, which must give a document or a ``StrataError``, and
/// then checks the round trip the format promises: serializing what was read and parsing the result
/// gives back the same content.
enum FormatTargets {
  /// JSON: any value (JSONTestSuite has scalars at the top), then a document; objects round-trip
  /// through both the pretty and the one-line writer.
  static func json(_ bytes: [UInt8]) {
    let anyValue = Result { () throws(StrataError) in
      try JSONParser.parseValue(bytes, path: "/fuzz/input.json", maxDepth: ParseOptions().maxDepth)
    }
    let document = Result { () throws(StrataError) in
      try JSONFormat().parse(bytes, path: "/fuzz/input.json", options: ParseOptions())
    }
    switch (anyValue, document) {
    case (.failure(let error), .success):
      check(false, "a document parses but the same text as a value does not: \(error)")
    case (.success(let result), .failure(let error)):
      // The document parser differs only in wanting an object at the top.
      check(result.value?.isTable != true, "an object parses as a value but not as a document: \(error)")
    case (.failure(let error), .failure):
      _ = error.description
    case (.success(let result), .success(let document)):
      check(result.value.map { $0 == document.root } ?? false, "value and document parses differ")
      let format = JSONFormat()
      let pretty = expectSuccess("JSON serialize") { () throws(StrataError) in
        try format.serialize(document.root)
      }
      let line = expectSuccess("JSON serializeLine") { () throws(StrataError) in
        try JSONSerializer.serializeLine(document.root)
      }
      for text in [pretty, Array(line.utf8)] {
        let reread = expectSuccess("JSON re-parse of\n\(String(decoding: text, as: UTF8.self))") {
          () throws(StrataError) in try format.parse(text, path: "/fuzz/again.json", options: ParseOptions())
        }
        check(
          TreeComparison().same(document.root, reread.root),
          "JSON round trip changed \(TreeComparison.describe(document.root)) "
            + "into \(TreeComparison.describe(reread.root))")
      }
    }
  }

  /// Property lists. The binary target puts `bplist00` in front of inputs that lack the magic, so that
  /// every input reaches the binary parser; the XML target skips binary inputs.
  static func propertyList(_ input: [UInt8], binary: Bool) {
    var bytes = input
    if binary {
      if !bytes.starts(with: "bplist".utf8) { bytes = Array("bplist00".utf8) + bytes }
    } else if bytes.starts(with: "bplist".utf8) {
      return
    }
    let format = PropertyListFormat()
    let document: Document
    do {
      document = try format.parse(bytes, path: "/fuzz/input.plist", options: ParseOptions())
    } catch {
      _ = error.description
      return
    }
    let root = document.root

    // The other writers take any tree: JSON refuses only non-finite doubles, INI only shapes it lacks.
    do {
      _ = try JSONFormat().serialize(root)
    } catch {
      check(error.code == .invalidValue, "JSON serialize of a property list failed: \(error)")
    }
    _ = try? INIFormat().serialize(root)

    // Binary keeps everything: the same tree comes back, dates to the last bit.
    let binaryBytes = expectSuccess("serializeBinary") { () throws(StrataError) in
      try format.serializeBinary(root)
    }
    let fromBinary = expectSuccess("re-parse of serializeBinary's output") { () throws(StrataError) in
      try format.parse(binaryBytes, path: "/fuzz/again.plist", options: ParseOptions())
    }
    check(
      TreeComparison().same(root, fromBinary.root),
      "binary round trip changed \(TreeComparison.describe(root)) into \(TreeComparison.describe(fromBinary.root))"
    )

    // XML cannot hold most control characters or five-digit years (documented), and keeps dates to
    // the second.
    let xml: [UInt8]
    do {
      xml = try format.serialize(root)
    } catch {
      check(
        error.code == .invalidValue && root.hasWhatXMLCannotHold,
        "XML serialize failed: \(error) for \(TreeComparison.describe(root))")
      return
    }
    check(!root.hasWhatXMLCannotHold, "XML serialize wrote a value it promises to refuse")
    let fromXML = expectSuccess("re-parse of\n\(String(decoding: xml, as: UTF8.self))") {
      () throws(StrataError) in try format.parse(xml, path: "/fuzz/again.plist", options: ParseOptions())
    }
    check(
      TreeComparison(wholeSecondDates: true).same(root, fromXML.root),
      "XML round trip changed \(TreeComparison.describe(root)) into \(TreeComparison.describe(fromXML.root))")
  }

  /// INI, with includes confined to the sandbox. Every parsed tree is strings, arrays of strings and
  /// tables, all of which INI can write; the round trip may reorder a table's keys (scalars first).
  static func ini(_ bytes: [UInt8]) {
    let format = INIFormat()
    let document: Document
    do {
      document = try format.parse(bytes, path: "/input.ini", options: IncludeSandbox.options)
    } catch {
      _ = error.description
      return
    }
    let text = expectSuccess("INI serialize of \(TreeComparison.describe(document.root))") {
      () throws(StrataError) in try format.serialize(document.root)
    }
    let reread = expectSuccess("INI re-parse of\n\(String(decoding: text, as: UTF8.self))") {
      () throws(StrataError) in try format.parse(text, path: "/again.ini", options: IncludeSandbox.options)
    }
    check(
      TreeComparison(ignoresTableOrder: true).same(document.root, reread.root),
      "INI round trip changed \(TreeComparison.describe(document.root)) "
        + "into \(TreeComparison.describe(reread.root))\nvia\n\(String(decoding: text, as: UTF8.self))")
  }

  /// The result of a step that must not fail for an input the parser accepted.
  static func expectSuccess<T>(_ what: @autoclosure () -> String, _ body: () throws(StrataError) -> T) -> T {
    do {
      return try body()
    } catch {
      fatalError("invariant failed: \(what()) threw \(error)")
    }
  }
}
