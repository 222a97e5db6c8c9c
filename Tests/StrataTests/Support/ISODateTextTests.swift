import Foundation
import Testing

@testable import Strata

/// Dates print and read in the proleptic Gregorian calendar everywhere, as property lists hold them.
@Suite struct ISODateTextTests {
  // Apple's distantPast: 0001-01-01 in the Julian calendar, 0000-12-30 in the proleptic Gregorian one.
  static let cases: [(seconds: Double, text: String)] = [
    (-62_135_769_600, "0000-12-30T00:00:00Z"),
    (-63_082_540_800 + 978_307_200, "0001-12-30T00:00:00Z"),  // biplist's BFPersistentEventInfo.plist
    (-12_219_292_800, "1582-10-15T00:00:00Z"),
    (-12_219_379_200, "1582-10-14T00:00:00Z"),  // a Julian printer says 1582-10-04
    (0, "1970-01-01T00:00:00Z"),
    (1_704_164_645, "2024-01-02T03:04:05Z"),
  ]

  @Test(arguments: cases)
  func printsAndReadsTheProlepticCalendar(seconds: Double, text: String) throws {
    let date = Date(timeIntervalSince1970: seconds)
    #expect(ISODateText.format(date) == text)
    #expect(ISODateText.parse(text) == date)
    #expect(SettingValue(.date(date), origin: .runtime).description == text)
  }

  @Test func jsonAndTheDumpAgreeWithThePlistForAnOldDate() throws {
    let plist = Array(
      """
      <?xml version="1.0" encoding="UTF-8"?>
      <plist version="1.0"><dict><key>when</key><date>0001-12-30T00:00:00Z</date></dict></plist>
      """.utf8)
    let root = try PropertyListFormat().parse(plist, path: "x.plist", options: ParseOptions()).root
    let json = String(decoding: try JSONFormat().serialize(root), as: UTF8.self)
    #expect(json.contains("\"0001-12-30T00:00:00Z\""), "\(json)")
    let back = try JSONFormat().parse(Array(json.utf8), path: "x.json", options: ParseOptions()).root
    let value = try #require(back.value(at: "when"))
    #expect(
      try SettingDecoder().decode(Date.self, from: value, key: "when")
        == root.value(at: "when").map {
          if case .date(let d) = $0.kind { return d } else { return Date.distantFuture }
        })
  }

  @Test func otherISOFormsStillRead() {
    #expect(ISODateText.parse("2024-01-02T03:04:05.5Z") == Date(timeIntervalSince1970: 1_704_164_645.5))
    #expect(ISODateText.parse("2024-01-02T04:04:05+01:00") == Date(timeIntervalSince1970: 1_704_164_645))
    #expect(ISODateText.parse("yesterday") == nil)
  }
}
