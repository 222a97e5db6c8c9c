import Foundation
import Testing

@testable import Strata

private let format = PropertyListFormat()

private func node(_ kind: SettingValue.Kind) -> SettingValue { SettingValue(kind, origin: .runtime) }

private func table(_ entries: [(String, SettingValue)]) -> SettingValue {
  node(.table(SettingTable(entries)))
}

/// A tree with every kind of value.
private let sample = table([
  ("name", node(.string("a < b & c > d\r\nline 2\ttab"))),
  ("port", node(.integer(-8080))),
  ("ratio", node(.double(0.1))),
  ("huge", node(.double(1e300))),
  ("on", node(.bool(true))),
  ("when", node(.date(Date(timeIntervalSince1970: 1_704_164_645)))),
  ("blob", node(.data(Data((0..<100).map { UInt8($0) })))),
  ("empty", node(.data(Data()))),
  ("list", node(.array([node(.integer(1)), node(.array([])), table([]), node(.string(""))]))),
  ("ünï 😀", table([("inner", node(.integer(Int.max)))])),
])

@Suite struct PropertyListFormatTests {
  @Test func selectsByExtensionAndName() {
    #expect(FormatRegistry.standard.format(forPath: "/etc/demo/app.PLIST") is PropertyListFormat)
    #expect(FormatRegistry.standard.format(named: "plist") is PropertyListFormat)
  }

  @Test func writesXMLInApplesLayout() throws {
    let tree = table([
      ("a", node(.string("x&y"))), ("n", node(.array([node(.integer(1)), node(.bool(false))]))),
      ("d", table([])), ("r", node(.double(2))),
    ])
    let xml = String(decoding: try format.serialize(tree), as: UTF8.self)
    #expect(
      xml == """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>a</key>
        \t<string>x&amp;y</string>
        \t<key>n</key>
        \t<array>
        \t\t<integer>1</integer>
        \t\t<false/>
        \t</array>
        \t<key>d</key>
        \t<dict/>
        \t<key>r</key>
        \t<real>2.0</real>
        </dict>
        </plist>

        """)
  }

  @Test func roundTripsXMLAndBinary() throws {
    let xml = try format.serialize(sample)
    let fromXML = try format.parse(xml, path: "x.plist", options: ParseOptions())
    #expect(fromXML.root == sample)
    #expect(fromXML.root.value(at: "port")?.origin == .file(path: "x.plist", line: 9, column: 2))
    let binary = try format.serializeBinary(sample)
    #expect(binary.starts(with: Array("bplist00".utf8)))
    #expect(try format.parse(binary, path: "b.plist", options: ParseOptions()).root == sample)
    // Writing what was read gives the same bytes.
    #expect(try format.serialize(fromXML.root) == xml)
  }

  @Test func roundTripsSpecialReals() throws {
    let reals: [Double] = [
      .nan, .infinity, -.infinity, -0.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 1.0 / 3,
    ]
    let tree = table(reals.enumerated().map { ("r\($0)", node(.double($1))) })
    for bytes in [try format.serialize(tree), try format.serializeBinary(tree)] {
      let root = try format.parse(bytes, path: "r", options: ParseOptions()).root
      for (i, expected) in reals.enumerated() {
        guard case .double(let value)? = root.table?["r\(i)"]?.kind else {
          Issue.record("r\(i) is missing")
          continue
        }
        #expect(value.bitPattern == expected.bitPattern || (value.isNaN && expected.isNaN), "r\(i)")
      }
    }
  }

  @Test func xmlTruncatesFractionalSecondsButBinaryKeepsThem() throws {
    let tree = table([
      ("later", node(.date(Date(timeIntervalSince1970: 1_000.75)))),
      ("earlier", node(.date(Date(timeIntervalSince1970: -0.25)))),
    ])
    let xml = try format.parse(format.serialize(tree), path: "x", options: ParseOptions()).root
    #expect(xml.table?["later"]?.kind == .date(Date(timeIntervalSince1970: 1_000)))
    #expect(xml.table?["earlier"]?.kind == .date(Date(timeIntervalSince1970: -1)))
    let text = String(decoding: try format.serialize(tree), as: UTF8.self)
    #expect(text.contains("<date>1969-12-31T23:59:59Z</date>"))
    #expect(try format.parse(format.serializeBinary(tree), path: "b", options: ParseOptions()).root == tree)
  }

  /// Found by fuzzing: a binary date of 1e300 seconds crashed the XML writer (`Int(Double)` overflow),
  /// and dates past 9999 were written as five-digit years that XML cannot read back.
  @Test func refusesDatesXMLCannotHoldInsteadOfCrashing() throws {
    let date = (0..<8).reversed().map { UInt8(truncatingIfNeeded: (1e300).bitPattern >> ($0 * 8)) }
    let huge = bplist([[0xD1, 1, 2], [0x51, UInt8(ascii: "k")], [0x33] + date])
    let root = try format.parse(huge, path: "b.plist", options: ParseOptions()).root
    #expect(throws: StrataError.self) { try format.serialize(root) }
    #expect(try format.parse(format.serializeBinary(root), path: "b", options: ParseOptions()).root == root)

    let cases: [(seconds: Double, text: String?)] = [
      (-62_167_219_200, "0000-01-01T00:00:00Z"), (253_402_300_799.5, "9999-12-31T23:59:59Z"),
      (-62_167_219_200.5, nil), (253_402_300_800, nil), (-1e300, nil), (1e300, nil),
    ]
    for (seconds, text) in cases {
      let tree = table([("when", node(.date(Date(timeIntervalSince1970: seconds))))])
      do {
        let xml = String(decoding: try format.serialize(tree), as: UTF8.self)
        #expect(text.map { xml.contains("<date>\($0)</date>") } == true, "\(seconds)")
        let back = try format.parse(Array(xml.utf8), path: "x", options: ParseOptions()).root
        #expect(back.value(at: "when")?.kind == .date(Date(timeIntervalSince1970: seconds.rounded(.down))))
      } catch {
        #expect(text == nil, "\(seconds): \(error)")
        #expect(error.code == .invalidValue)
      }
    }
  }

  @Test func largeCountsUseExtendedMarkersAndWideReferences() async throws {
    // Seconds in a debug build: on a thread of its own, not the cooperative pool's.
    let format = format
    let (tree, read) = try await onOwnThread { () throws -> (SettingValue, SettingValue) in
      let tree = table((0..<70_000).map { ("k\($0)", node(.integer($0 * 65_537))) })
      let binary = try format.serializeBinary(tree)
      return (tree, try format.parse(binary, path: "b", options: ParseOptions()).root)
    }
    #expect(read == tree)
  }

  @Test func refusesWhatCannotBeWritten() throws {
    func code(_ body: () throws(StrataError) -> [UInt8]) -> StrataError.Code? {
      do {
        _ = try body()
        return nil
      } catch {
        return error.code
      }
    }
    let array = node(.array([]))
    #expect(code { () throws(StrataError) in try format.serialize(array) } == .typeMismatch)
    #expect(code { () throws(StrataError) in try format.serializeBinary(array) } == .typeMismatch)
    let control = table([("bell", node(.string("\u{7}")))])
    #expect(code { () throws(StrataError) in try format.serialize(control) } == .invalidValue)
    #expect(
      try format.parse(format.serializeBinary(control), path: "b", options: ParseOptions()).root == control)
    var deep = node(.array([]))
    for _ in 0..<600 { deep = node(.array([deep])) }
    let tooDeep = table([("deep", deep)])
    #expect(code { () throws(StrataError) in try format.serialize(tooDeep) } == .nestingTooDeep)
    #expect(code { () throws(StrataError) in try format.serializeBinary(tooDeep) } == .nestingTooDeep)
  }

  @Test func readsUnsupportedBinaryVersionsClearly() {
    let error = parseError("bplist15xxxxxxxx", as: format)
    #expect(error?.code == .invalidPropertyList)
    #expect(error?.message.contains("bplist15") == true)
  }
}
