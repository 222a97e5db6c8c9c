import Foundation
import Testing

@testable import Strata

@Suite struct TOMLSerializerTests {
  @Test func aParsedDocumentWritesAndReadsBackTheSame() throws {
    let text = """
      title = "a \\"quoted\\" \\u0001 line\\n"
      "a.b" = 1
      when = 1979-05-27T07:32:00.25Z
      floats = [inf, -0.5, 1e100]
      mixed = [1, "x", { k = [] }]
      [server]
      port = 8080
      [server.tls]
      on = true
      [[backends]]
      host = "one"
      [[backends]]

      """
    let root = try parseTOML(text)
    let written = try TOMLFormat().serialize(root)
    let reread = try TOMLFormat().parse(written, path: "/x.toml", options: ParseOptions()).root
    #expect(reread == root, "\(String(decoding: written, as: UTF8.self))")
  }

  @Test func anInstantPastYear9999InUTCIsWrittenAtAnOffsetThatKeepsFourDigits() throws {
    let root = try parseTOML("late = 9999-12-31T23:59:59-07:00\nearly = 0000-01-01T00:00:00+05:00\n")
    let written = String(decoding: try TOMLFormat().serialize(root), as: UTF8.self)
    #expect(written.contains("late = 9999-12-31T07:00:59-23:59"))
    #expect(written.contains("early = 0000-01-01T18:59:00+23:59"))
    #expect(try parseTOML(written) == root)
  }

  @Test func whatTOMLCannotHoldIsRefused() throws {
    let big = SettingValue(
      .table(SettingTable([("n", SettingValue(.unsignedInteger(UInt.max), origin: .runtime))])),
      origin: .runtime)
    #expect(throws: StrataError.self) { try TOMLFormat().serialize(big) }
    let far = SettingValue(
      .table(SettingTable([("d", SettingValue(.date(Date(timeIntervalSince1970: 4e11)), origin: .runtime))])),
      origin: .runtime)
    #expect(throws: StrataError.self) { try TOMLFormat().serialize(far) }
    #expect(throws: StrataError.self) {
      try TOMLFormat().serialize(SettingValue(.integer(1), origin: .runtime))
    }
  }
}
