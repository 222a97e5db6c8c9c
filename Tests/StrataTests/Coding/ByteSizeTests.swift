import Foundation
import Testing

@testable import Strata

/// `ByteSize` settings: SI units are powers of 1000 and IEC units powers of 1024, a lone `K`/`M`/`G` is
/// refused, a fraction must come to whole bytes, and each refusal is located and says how to write a size.
@Suite struct ByteSizeTests {
  struct UploadSettings: SettingsGroup {
    static var section: String { "upload" }
    @Setting var maxBody = ByteSize(bytes: 10 << 20)
    @Setting var spool: ByteSize? = nil
    @Setting(validation: .range(ByteSize(bytes: 1)...ByteSize(bytes: 1 << 30))) var chunk = ByteSize(
      bytes: 4096)
  }

  @Test(arguments: [
    ("0", 0), ("4096", 4096), ("1B", 1), ("10kB", 10_000), ("10KB", 10_000), ("10MB", 10_000_000),
    ("10mb", 10_000_000), ("2GB", 2_000_000_000), ("1TB", 1_000_000_000_000),
    ("3EB", 3_000_000_000_000_000_000),
    ("512KiB", 524_288), ("10MiB", 10_485_760), ("10 MiB", 10_485_760), ("64Ki", 65_536),
    ("1Gi", 1_073_741_824),
    ("1.5GiB", 1_610_612_736), ("1.5KB", 1500), ("0.5KiB", 512), ("2.000MB", 2_000_000), ("+7", 7),
    ("  1kib ", 1024), ("7EiB", 7 << 60), ("0.000000000000000001EB", 1),
  ])
  func sizeTextReadsAsItsStandardSays(text: String, bytes: Int) throws {
    #expect(try ByteSizeText.parse(text) == bytes)
  }

  @Test(arguments: [
    ("10M", ByteSizeText.Failure.ambiguousUnit), ("1k", .ambiguousUnit), ("2G", .ambiguousUnit),
    ("0.1KiB", .notWhole), ("1.5", .notWhole), ("0.3B", .notWhole), ("-5MB", .negative),
    ("8EiB", .outOfRange), ("10EB", .outOfRange), ("99999999999999999999", .outOfRange), ("", .malformed),
    ("MB", .malformed), ("ten MB", .malformed), ("10 MBs", .malformed), ("10Mbit", .malformed),
    ("1.MB", .malformed), (".5MB", .malformed), ("1e6", .malformed), ("10_000", .malformed),
    (String(repeating: "1", count: 65), .malformed),
  ])
  func otherTextIsRefusedWithItsReason(text: String, reason: ByteSizeText.Failure) {
    #expect(throws: reason) { try ByteSizeText.parse(text) }
  }

  /// Every size is written in the largest unit that holds it exactly, and reads back as itself.
  @Test func aSizeIsWrittenExactlyAndReadsBack() throws {
    #expect(
      [0, 1, 1000, 1024, 1500, 1_000_000, 10 << 20, 1_024_000, 3 << 40, Int.max].map {
        ByteSize(bytes: $0).description
      } == ["0B", "1B", "1kB", "1KiB", "1500B", "1MB", "10MiB", "1000KiB", "3TiB", "\(Int.max)B"])
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<5_000 {
      let bytes = Int.random(in: 0...Int.max, using: &generator) >> Int.random(in: 0...62, using: &generator)
      let unit = [1, 1000, 1024, 1_000_000, 1 << 20].randomElement(using: &generator)!
      let size = (bytes / unit) * unit
      #expect(try ByteSizeText.parse(ByteSizeText.format(size)) == size, "\(size)")
    }
    #expect(ByteSize(bytes: 1000) < ByteSize(bytes: 1024))
  }

  @Test func settingsReadSizesFromEverySourceAndReportBadOnesWhereTheyAre() throws {
    try withTemporaryDirectory { dir in
      try write("[upload]\nmaxBody = 25MB\nspool = 512KiB\n", to: dir + "/app.ini")
      try write(#"{"upload": {"chunk": 65536}}"#, to: dir + "/app.json")
      let store = SettingsStore(
        layers: [
          FileLayer(scope: .system, files: [dir + "/app.ini", dir + "/app.json"]),
          EnvironmentLayer(prefix: "APP", variables: ["APP_UPLOAD_SPOOL": "1 MiB"]),
        ], writeTarget: .file(dir + "/app.ini"))
      let upload = UploadSettings(store: store)
      #expect(upload.maxBody.bytes == 25_000_000)
      #expect(upload.$maxBody.origin == .file(path: dir + "/app.ini", line: 2, column: 11))
      #expect(upload.spool?.bytes == 1 << 20)
      #expect(upload.$spool.origin == .environment(variable: "APP_UPLOAD_SPOOL"))
      #expect(upload.chunk.bytes == 65_536)  // a JSON number is bytes
      #expect(store.diagnostics.isEmpty, "\(store.diagnostics)")

      // A write says it in the largest exact unit, and reads back.
      try upload.$maxBody.save(ByteSize(bytes: 64 << 20))
      #expect(try String(contentsOfFile: dir + "/app.ini", encoding: .utf8).contains("maxBody = 64MiB"))
      #expect(upload.maxBody.bytes == 64 << 20)

      // Each bad edit keeps the running value and says where it is and how to write a size.
      try write("[upload]\nmaxBody = 10M\nspool = 512KiB\n", to: dir + "/app.ini")
      try write(#"{"upload": {"chunk": "2GiB"}}"#, to: dir + "/app.json")
      store.reload()
      #expect(upload.maxBody.bytes == 64 << 20)
      #expect(upload.chunk.bytes == 65_536)
      let messages = store.diagnostics.map(\.description)
      #expect(
        messages.contains(
          "\(dir)/app.ini:2:11: error: expected ByteSize for upload.maxBody, found \"10M\" (a lone K, M or G "
            + "means 1000ⁿ to some programs and 1024ⁿ to others; " + ByteSizeText.forms + ")"), "\(messages)")
      #expect(
        messages.contains(
          "\(dir)/app.json:1:22: error: invalid value \"2GiB\" for upload.chunk: must be in 1B...1GiB"),
        "\(messages)")
    }
  }

  @Test func theSchemaTypesASizeAndItsPatternAgreesWithTheReader() throws {
    let store = SettingsStore.inMemory()
    let upload = UploadSettings(store: store)
    let schema = withExtendedLifetime(upload) { store.jsonSchema(title: "t") }
    let field = try #require(schema.value(atComponents: ["properties", "upload", "properties", "maxBody"]))
    #expect(field.value(at: "format")?.kind == .string("byte-size"))
    guard case .string(let pattern)? = field.value(at: "pattern")?.kind else {
      Issue.record("no pattern in \(field)")
      return
    }
    let regex = try NSRegularExpression(pattern: pattern)
    for text in ["10MB", "512KiB", "1.5GiB", "64Ki", "4096", "10 mb", "10M", "ten", "1.MB", "10Mbit"] {
      let matches = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
      let reads = (try? ByteSizeText.parse(text)) != nil
      #expect(matches == reads, "\(text)")
    }
  }
}
