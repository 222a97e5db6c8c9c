import Testing

@testable import Strata

@Suite struct SettingKeyTests {
  @Test(arguments: ["a", "a.b", "a..b", ".a", "a.", "é.ß.日本", "e\u{301}.x", "👩‍👩‍👧.k"])
  func unquotedKeysSplitAtEveryDot(key: String) {
    #expect(
      SettingKey.names(in: key)
        == key.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
  }

  @Test(arguments: [
    (["server", "port"], "server.port"),
    (["a.b"], #""a.b""#),
    (["www", "listen.owner"], #"www."listen.owner""#),
    (["./package.json", "name"], #""./package.json".name"#),
    ([""], #""""#),
    (["a", "", "b"], #"a."".b"#),
    ([#""quoted""#], #""\"quoted\"""#),
    ([#"back\slash.dot"#], #""back\\slash.dot""#),
    ([#"C:\dir"#], #"C:\dir"#),
    (["with space", "x"], "with space.x"),
    (["a\"b"], "a\"b"),
  ])
  func aKeyJoinsItsNamesAndSplitsBackToThem(names: [String], key: String) {
    #expect(SettingKey.join(names) == key)
    #expect(SettingKey.names(in: key) == names)
  }

  @Test func theEmptyKeyIsTheRoot() {
    #expect(SettingKey.join([String]()) == "")
    #expect(SettingKey.names(in: "") == [])
    #expect(SettingKey.appending("a.b", to: "") == #""a.b""#)
    #expect(SettingKey.appending("port", to: "server") == "server.port")
  }

  @Test func readingIsLenientWithWhatAPersonTypes() {
    // A quote left open runs to the end; text after a closing quote stays with its name.
    #expect(SettingKey.names(in: #""a.b"#) == ["a.b"])
    #expect(SettingKey.names(in: #""a"x.b"#) == ["ax", "b"])
    #expect(SettingKey.names(in: #""a\q""#) == [#"a\q"#])
    #expect(SettingKey.names(in: "a.") == ["a", ""])
  }

  @Test func parentsLastNamesAndAncestry() {
    #expect(SettingKey.parent(of: #"www."listen.owner""#) == "www")
    #expect(SettingKey.parent(of: #""a.b""#) == nil)
    #expect(SettingKey.lastName(of: #"www."listen.owner""#) == "listen.owner")
    #expect(SettingKey.isKey("a.b.c", within: "a.b"))
    #expect(SettingKey.isKey("a.b", within: "a.b"))
    #expect(SettingKey.isKey("a.b", within: ""))
    #expect(!SettingKey.isKey("a.bc", within: "a.b"))
    #expect(SettingKey.isKey(#""a.b".c"#, within: #""a.b""#))
    #expect(!SettingKey.isKey(#""a.b".c"#, within: "a"))
    #expect(!SettingKey.isKey("a.b", within: #""a.b""#))
  }

  @Test func everyNameSequenceHasOneKey() {
    // Random names from an alphabet heavy in the characters that matter; join then split is identity,
    // and different name sequences never share a key.
    var generator = SystemRandomNumberGenerator()
    let alphabet: [Character] = [".", "\"", "\\", "a", "b", " "]
    var seen: [String: [String]] = [:]
    for _ in 0..<2000 {
      let names = (0..<Int.random(in: 1...4, using: &generator)).map { _ in
        String((0..<Int.random(in: 0...4, using: &generator)).map { _ in alphabet.randomElement()! })
      }
      let key = SettingKey.join(names)
      #expect(SettingKey.names(in: key) == names, "\(names) → \(key)")
      if let other = seen[key] { #expect(other == names, "\(names) and \(other) share \(key)") }
      seen[key] = names
    }
  }

  @Test func environmentNamesUseTheNames() {
    #expect(
      EnvironmentNames.variableName(forKey: "server.maxConnections", prefix: "DEMO")
        == "DEMO_SERVER_MAX_CONNECTIONS")
    #expect(
      EnvironmentNames.variableName(forKey: #"www."listen.owner""#, prefix: "FPM") == "FPM_WWW_LISTEN_OWNER")
    #expect(
      EnvironmentNames.variableName(forKey: #""./package.json".name"#, prefix: "X") == "X_PACKAGE_JSON_NAME")
    #expect(EnvironmentNames.fallbackKey(forVariable: "DEMO_DB__POOL_SIZE", prefix: "DEMO") == "db.pool_size")
  }
}

/// The one-pass environment name of an ASCII key is the names' names joined by `_`.
@Suite struct EnvironmentNameOfAKeyTests {
  @Test func theWholeKeyConvertsAsItsNamesDo() {
    let parts = [
      "a", "B", "maxConnections", "TLSCert", "http2Port", "x-y", "_z", "q_", "-", "A1", "9b", "ABc", "", "é",
    ]
    var checked = 0
    for first in parts {
      for second in parts {
        for third in ["", "cert", "Key"] {
          let key = third.isEmpty ? first + "." + second : first + "." + second + "." + third
          let joined = SettingKey.names(in: key).map(EnvironmentNames.screamingSnake).filter { !$0.isEmpty }
            .joined(separator: "_")
          #expect(EnvironmentNames.unprefixedName(forKey: key) == joined, "\(key)")
          checked += 1
        }
      }
    }
    #expect(checked == parts.count * parts.count * 3)
  }
}
