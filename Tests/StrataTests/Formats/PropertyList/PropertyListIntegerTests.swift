import Foundation
import Testing

@testable import Strata

/// Property lists hold unsigned 64-bit integers; a blank file is an empty configuration in every format.
@Suite struct PropertyListIntegerTests {
  @Test func unsignedSixtyFourBitIntegersLoadExactlyAndRoundTrip() throws {
    let xml = """
      <?xml version="1.0" encoding="UTF-8"?>
      <plist version="1.0"><dict>
      <key>max</key><integer>18446744073709551615</integer>
      <key>above</key><integer>9223372036854775808</integer>
      <key>top</key><integer>9223372036854775807</integer>
      <key>min</key><integer>-9223372036854775808</integer>
      </dict></plist>
      """
    let root = try PropertyListFormat().parse(Array(xml.utf8), path: "p", options: ParseOptions()).root
    #expect(root.value(at: "max")?.kind == .unsignedInteger(UInt.max))
    #expect(root.value(at: "above")?.kind == .unsignedInteger(UInt(Int.max) + 1))
    #expect(root.value(at: "top")?.kind == .integer(Int.max))
    #expect(root.value(at: "min")?.kind == .integer(Int.min))
    #expect(
      PropertyListFormat().parseErrorText(
        "<plist><dict><key>x</key><integer>18446744073709551616</integer></dict></plist>"
      )
      .contains("out of the range"))
    // Both serializers write them back as integers.
    for bytes in [try PropertyListFormat().serialize(root), try BinaryPropertyListSerializer.serialize(root)]
    {
      let back = try PropertyListFormat().parse(bytes, path: "p", options: ParseOptions()).root
      #expect(back == root)
    }
    // A UInt64 setting decodes it; an Int64 one says it is out of range.
    #expect(try SettingDecoder().decode(UInt64.self, from: root.value(at: "max")!, key: "max") == UInt64.max)
    #expect(throws: StrataError.self) {
      try SettingDecoder().decode(Int64.self, from: root.value(at: "max")!, key: "max")
    }
  }

  @Test func pythonsPlistlibAgrees() async throws {
    try await withTemporaryDirectory { dir in
      let script = """
        import plistlib, sys
        data = {"max": 2**64 - 1, "above": 2**63, "neg": -5}
        open(sys.argv[1], "wb").write(plistlib.dumps(data, fmt=plistlib.FMT_BINARY))
        open(sys.argv[2], "wb").write(plistlib.dumps(data))
        """
      let run = try await Spawn.run(
        "/usr/bin/env", ["python3", "-c", script, dir + "/b.plist", dir + "/x.plist"])
      guard run.status == 0 else {
        Issue.record("python3 is needed for this comparison (CI installs it): \(run.errors)")
        return
      }
      for name in ["b.plist", "x.plist"] {
        let root = try #require(try Formats.load(path: dir + "/" + name)).root
        #expect(root.value(at: "max")?.kind == .unsignedInteger(UInt.max), "\(name)")
        #expect(root.value(at: "above")?.kind == .unsignedInteger(UInt(1) << 63), "\(name)")
        #expect(root.value(at: "neg")?.kind == .integer(-5), "\(name)")
      }
    }
  }

  @Test(arguments: ["app.json", "app.plist", "app.ini"])
  func aBlankFileIsAnEmptyConfigurationLikeAnEmptyOne(name: String) throws {
    try withTemporaryDirectory { dir in
      for content in ["", " \n\t\r\n", "\u{FEFF}\n  \n"] {
        try write(content, to: dir + "/" + name)
        let snapshot = LayerStack(layers: [FileLayer(scope: .system, files: [dir + "/" + name])]).load()
        #expect(snapshot.diagnostics.isEmpty, "\(name) \(content.debugDescription): \(snapshot.diagnostics)")
        #expect(snapshot.keys.isEmpty)
      }
    }
  }
}

extension PropertyListFormat {
  fileprivate func parseErrorText(_ text: String) -> String {
    do {
      _ = try parse(Array(text.utf8), path: "p", options: ParseOptions())
      return "parsed"
    } catch {
      return error.message
    }
  }
}
