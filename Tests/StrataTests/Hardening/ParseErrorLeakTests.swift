import Testing

@testable import Strata

/// A parse error says where and what kind of thing is wrong, never the text of a value: the value may be
/// a password that a careless edit broke.
@Suite struct ParseErrorLeakTests {
  static let secret = "S3CR3Tpw"

  static let cases: [(format: String, text: String)] = [
    ("json", #"{"password": S3CR3Tpw}"#),
    ("json", #"{"password": "S3CR3Tpw\q"}"#),
    ("json", #"{"password": "S3CR3Tpw"#),
    ("json", #"{"password": tS3CR3Tpw}"#),
    ("plist", "<plist><dict><key>password</key><string>p&S3CR3Tpw;</string></dict></plist>"),
    ("plist", "<plist><dict><key>password</key><string>&#xS3CR3Tpw;</string></dict></plist>"),
    ("plist", "<plist><dict><key>pin</key><real>S3CR3Tpw</real></dict></plist>"),
    ("plist", "<plist><dict><key>pin</key><date>S3CR3Tpw</date></dict></plist>"),
    ("plist", "<plist><dict><key>pin</key><integer>S3CR3Tpw</integer></dict></plist>"),
    ("plist", "<plist><dict><key>pin</key><data>S3CR3Tpw!</data></dict></plist>"),
    ("plist", "<plist><dict><key>pin</key><true>S3CR3Tpw</true></dict></plist>"),
    ("plist", "<plist><dict><key>password</key><string>S3CR3Tpw<x/></string></dict></plist>"),
    ("plist", "<plist><dict><key>password</key>S3CR3Tpw</dict></plist>"),
    ("ini", "[db]\npassword = \"S3CR3Tpw\\q\"\n"),
    ("ini", "[db]\npassword = \"S3CR3Tpw\n"),
    ("ini", "[db]\npassword = 'S3CR3Tpw' x\n"),
    ("ini", "[db]\npassword = \"S3CR3Tpw\" trailing\n"),
    ("ini", "[db]\npassword = \"\\uS3CR\"\n"),
    ("dotenv", "DB__PASSWORD=\"S3CR3Tpw\n"),
    ("dotenv", "DB__PASSWORD='S3CR3Tpw\n"),
    ("dotenv", "DB__PASSWORD='S3CR3Tpw' x\n"),
    ("dotenv", "DB__PASSWORD=\"S3CR3Tpw\" trailing\n"),
    ("dotenv", "DB__PASSWORD S3CR3Tpw\n"),
    ("dotenv", "DB PASSWORD=S3CR3Tpw\n"),
    ("dotenv", "DB__PASSWORD=S3CR3Tpw\u{0}\n"),
  ]

  @Test(arguments: cases)
  func aParseErrorNeverQuotesTheValue(format name: String, text: String) throws {
    let format = try #require(FormatRegistry.standard.format(named: name))
    do {
      let document = try format.parse(Array(text.utf8), path: "/etc/app/app.\(name)", options: ParseOptions())
      Issue.record("parsed: \(document.root)")
    } catch {
      #expect(error.line > 0, "no position: \(error)")
      for shown in [
        error.description, error.message, WatchLines.error(error), Diagnostic(.error, error).description,
      ] {
        #expect(!shown.contains("S3CR3T") && !shown.contains("3CR3T"), "leaked: \(shown)")
      }
    }
  }
}
