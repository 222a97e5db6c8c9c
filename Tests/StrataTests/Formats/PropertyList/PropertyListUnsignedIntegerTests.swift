import Foundation
import Testing

@testable import Strata

/// Property lists hold integers from -2^63 up to 2^64-1; values above `Int.max` are `unsignedInteger`.
@Suite struct PropertyListUnsignedIntegerTests {
  let format = PropertyListFormat()

  func xml(_ body: String) -> [UInt8] {
    Array(
      """
      <?xml version="1.0" encoding="UTF-8"?>
      <plist version="1.0"><dict>\(body)</dict></plist>
      """.utf8)
  }

  /// A binary plist `{"k": <16-byte integer high:low>}`.
  func binary(high: UInt64, low: UInt64) -> [UInt8] {
    func bigEndian(_ v: UInt64) -> [UInt8] {
      (0..<8).reversed().map { UInt8(truncatingIfNeeded: v >> (8 * $0)) }
    }
    return bplist([[0xD1, 1, 2], [0x51, 0x6B], [0x14] + bigEndian(high) + bigEndian(low)])
  }

  @Test(arguments: [
    ("9223372036854775807", SettingValue.Kind.integer(Int.max)),
    ("9223372036854775808", .unsignedInteger(9223372036854775808)),
    ("18446744073709551615", .unsignedInteger(18446744073709551615)),
    ("0xFFFFFFFFFFFFFFFF", .unsignedInteger(18446744073709551615)),
    ("-9223372036854775808", .integer(Int.min)),
  ])
  func xmlIntegersLoadExactly(text: String, kind: SettingValue.Kind) throws {
    let root = try format.parse(
      xml("<key>k</key><integer>\(text)</integer>"), path: "x.plist", options: ParseOptions()
    ).root
    #expect(root.value(at: "k")?.kind == kind)
  }

  @Test func binarySixteenByteIntegersLoadFromInt64MinToUInt64Max() throws {
    let cases: [(UInt64, UInt64, SettingValue.Kind)] = [
      (0, UInt64.max, .unsignedInteger(18446744073709551615)),
      (0, 1 << 63, .unsignedInteger(9223372036854775808)),
      (0, 42, .integer(42)),
      (UInt64.max, UInt64(bitPattern: -5), .integer(-5)),
    ]
    for (high, low, kind) in cases {
      let root = try format.parse(binary(high: high, low: low), path: "b.plist", options: ParseOptions()).root
      #expect(root.value(at: "k")?.kind == kind, "\(high):\(low)")
    }
    for (high, low) in [(UInt64(1), UInt64(0)), (UInt64.max, UInt64(5))] {
      #expect(throws: StrataError.self) {
        try format.parse(binary(high: high, low: low), path: "b.plist", options: ParseOptions())
      }
    }
  }

  @Test func theLargestValueDecodesIntoAUInt64AndNotIntoAnInt() throws {
    let root = try format.parse(
      xml("<key>k</key><integer>18446744073709551615</integer>"), path: "x.plist", options: ParseOptions()
    ).root
    let value = try #require(root.value(at: "k"))
    #expect(try SettingDecoder().decode(UInt64.self, from: value, key: "k") == UInt64.max)
    #expect(throws: StrataError.self) { try SettingDecoder().decode(Int.self, from: value, key: "k") }
  }

  @Test func theValueSurvivesBothSerializers() throws {
    let root = try format.parse(
      xml("<key>k</key><integer>18446744073709551615</integer>"), path: "x.plist", options: ParseOptions()
    ).root
    for bytes in [try format.serialize(root), try format.serializeBinary(root)] {
      let again = try format.parse(bytes, path: "again.plist", options: ParseOptions()).root
      #expect(again == root)
      let value = try #require(again.value(at: "k"))
      #expect(try SettingDecoder().decode(UInt64.self, from: value, key: "k") == UInt64.max)
    }
  }
}
