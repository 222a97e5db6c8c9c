import Testing

@testable import Strata

@Suite struct DotEnvErrorTests {
  func error(_ text: String) -> StrataError? { parseError(text, as: DotEnvFormat(), path: "/etc/a.env") }

  @Test func unterminatedQuotesPointAtTheOpeningQuote() throws {
    let double = try #require(error("A=1\nB=\"s3cret\nmore"))
    #expect(double.code == .unexpectedEnd && position(double) == "2:3")
    let single = try #require(error("B='s3cret"))
    #expect(single.code == .unexpectedEnd && position(single) == "1:3")
  }

  @Test func aMissingEqualsSignIsASyntaxError() throws {
    let missing = try #require(error("A=1\nPASSWORD s3cret\n"))
    #expect(missing.code == .syntax && position(missing) == "2:10")
    #expect(missing.message.contains("PASSWORD"))
    let bare = try #require(error("KEY\n"))
    #expect(bare.code == .syntax && position(bare) == "1:4")
  }

  @Test func invalidNamesAreSyntaxErrors() throws {
    #expect(error("1A=x").map(position) == "1:1")
    #expect(error("A$B=x").map(position) == "1:2")
    #expect(error("a..b=x").map(position) == "1:1")
    #expect(error("export   \n").map(position) == "1:10")
    #expect(error("A=\"x\" trailing").map(position) == "1:7")
  }

  @Test func nulBytesAndInvalidUTF8AreRefusedWithTheirPosition() throws {
    let nul = try #require(error("A=1\nB=x\u{0}y"))
    #expect(nul.code == .syntax && position(nul) == "2:4")
    let bytes: [UInt8] = Array("A=1\nB=ab".utf8) + [0xC3, 0x28]
    do {
      _ = try DotEnvFormat().parse(bytes, path: "/a.env", options: ParseOptions())
      Issue.record("invalid UTF-8 was accepted")
    } catch {
      #expect(error.code == .invalidUTF8 && position(error) == "2:5")
    }
  }

  @Test func errorsNeverRepeatTheValue() {
    let secret = "hunter2-s3cret"
    for text in [
      "A=\"\(secret)", "A='\(secret)", "A=\"\(secret)\" \(secret)", "A \(secret)", "A=\(secret)\u{0}",
    ] {
      let found = error(text)
      #expect(found != nil)
      #expect(found?.description.contains(secret) == false, "\(found?.description ?? "")")
    }
  }

  @Test func namesDeeperThanTheLimitAreRefused() throws {
    let key = Array(repeating: "a", count: 600).joined(separator: ".")
    #expect(error(key + "=1")?.code == .nestingTooDeep)
  }
}
