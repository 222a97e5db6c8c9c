import Testing

@testable import Strata

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A type the program does not own: not Codable, no raw value.
struct HostPort: Sendable, Equatable {
  var host: String
  var port: Int

  init(host: String, port: Int) {
    self.host = host
    self.port = port
  }

  init?(parsing text: String) {
    guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
      colon != text.startIndex
    else { return nil }
    self.init(host: String(text[..<colon]), port: port)
  }
}

extension SettingCoding where Value == HostPort {
  static let hostPort = SettingCoding.text(expected: "HOST:PORT", { HostPort(parsing: $0) }) {
    "\($0.host):\($0.port)"
  }
}

struct ProxySettings: SettingsGroup {
  @Setting(coding: .hostPort) var upstream = HostPort(host: "localhost", port: 8080)
  @Setting(coding: .hostPort) var fallback: HostPort
}

/// Custom value coding for types the program does not own, given at the declaration.
@Suite struct SettingCodingTests {
  @Test func aCodingReadsWritesAndReportsWithPositions() throws {
    try withTemporaryDirectory { dir in
      try write("[proxy]\nupstream = backend.internal:9000\nfallback = spare:81\n", to: dir + "/app.ini")
      let store = SettingsStore(
        layers: [FileLayer(scope: .user, files: [dir + "/app.ini"])], writeTarget: .file(dir + "/app.ini"))
      let proxy = ProxySettings(store: store)
      #expect(proxy.upstream == HostPort(host: "backend.internal", port: 9000))
      #expect(proxy.fallback == HostPort(host: "spare", port: 81))
      #expect(proxy.$upstream.origin.description == dir + "/app.ini:2:12")
      // Written as its text, in place.
      try proxy.$upstream.save(HostPort(host: "other", port: 1))
      #expect(try String(contentsOfFile: dir + "/app.ini", encoding: .utf8).contains("upstream = other:1"))
      // A value that does not parse is reported with its position, and never quoted.
      try write("[proxy]\nupstream = nonsense\nfallback = spare:81\n", to: dir + "/app.ini")
      store.reload()
      #expect(proxy.upstream == HostPort(host: "other", port: 1))  // the running value is kept
      let problem = try #require(store.diagnostics.first { $0.error.message.contains("HOST:PORT") })
      #expect(
        problem.description.hasPrefix(dir + "/app.ini:2:12: error: expected HOST:PORT for proxy.upstream"))
      #expect(!problem.description.contains("nonsense"))
    }
  }
}
