import Foundation
import Testing

@testable import Strata

@Suite struct FileLayerTests {
  func load(_ layer: FileLayer, root: String) -> LayerContents {
    layer.load(LoadContext(options: ParseOptions(resolvePath: rootResolver(root))))
  }

  @Test func mainFilesLoadInOrderAndMissingOnesAreAbsent() throws {
    try withTemporaryDirectory { root in
      try write(#"{"a": 1, "b": 1}"#, to: root + "/etc/x/x.json")
      try write("b = 2\n", to: root + "/etc/x/x.ini")
      let layer = FileLayer(scope: .system, files: ["/etc/x/x.plist", "/etc/x/x.json", "/etc/x/x.ini"])
      let contents = load(layer, root: root)
      #expect(contents.diagnostics.isEmpty)
      #expect(contents.documents.map(\.path) == ["/etc/x/x.json", "/etc/x/x.ini"])
      let s = Snapshot(
        generation: 1, sources: contents.documents.map { Snapshot.Source(scope: .system, document: $0) })
      #expect(s.entry(forKey: "b")?.origin == .file(path: "/etc/x/x.ini", line: 1, column: 5))
      #expect(s.entry(forKey: "a")?.origin.path == "/etc/x/x.json")
    }
  }

  @Test func dropInsSortByNameAndToolTempFilesAreNeverLoaded() throws {
    try withTemporaryDirectory { root in
      let dir = root + "/etc/x/x.conf.d"
      for name in [
        "20-b.ini", "10-a.json", "4913", "20-b.ini~", ".#20-b.ini", ".chef-30-c.ini", ".20-b.ini.Ab12Cd",
        "sedXy12Z",
      ] {
        try write(name.hasSuffix(".json") ? #"{"n": "\#(name)"}"# : "n = \(name)\n", to: dir + "/" + name)
      }
      let contents = load(
        FileLayer(scope: .system, files: [], dropInDirectory: "/etc/x/x.conf.d"), root: root)
      #expect(contents.documents.map(\.path) == ["/etc/x/x.conf.d/10-a.json", "/etc/x/x.conf.d/20-b.ini"])
      // Nothing is skipped silently: each skipped name is a note (not an error or a warning).
      #expect(contents.diagnostics.allSatisfy { $0.severity == .note && $0.error.code == .skipped })
      #expect(
        Set(contents.diagnostics.compactMap(\.error.path))
          == Set(
            ["4913", "20-b.ini~", ".#20-b.ini", ".chef-30-c.ini", ".20-b.ini.Ab12Cd", "sedXy12Z"].map {
              "/etc/x/x.conf.d/" + $0
            }))
    }
  }

  @Test func systemDropInsReplaceAndMaskVendorOnes() throws {
    try withTemporaryDirectory { root in
      let vendor = root + "/usr/lib/x/x.conf.d"
      let system = root + "/etc/x/x.conf.d"
      try write("k = vendor-a\n", to: vendor + "/a.ini")
      try write("k = vendor-b\n", to: vendor + "/b.ini")
      try write("k = vendor-c\n", to: vendor + "/c.ini")
      try write("k = vendor-d\n", to: vendor + "/d.ini")
      try write("", to: system + "/b.ini")  // empty: masks
      try FileManager.default.createSymbolicLink(atPath: system + "/c.ini", withDestinationPath: "/dev/null")
      try write("k = system-d\n", to: system + "/d.ini")  // replaces
      let vendorLayer = FileLayer(
        scope: .vendor, files: [], dropInDirectory: "/usr/lib/x/x.conf.d",
        overridingDropInDirectory: "/etc/x/x.conf.d")
      let systemLayer = FileLayer(scope: .system, files: [], dropInDirectory: "/etc/x/x.conf.d")
      #expect(load(vendorLayer, root: root).documents.map(\.path) == ["/usr/lib/x/x.conf.d/a.ini"])
      #expect(load(systemLayer, root: root).documents.map(\.path) == ["/etc/x/x.conf.d/d.ini"])
    }
  }

  @Test func aBrokenFileIsReportedAndTheOthersStillLoad() throws {
    try withTemporaryDirectory { root in
      try write("{\n  \"a\": 1,\n  \"b\": tru\n}\n", to: root + "/etc/x/x.conf.d/10-broken.json")
      try write("c = 3\n", to: root + "/etc/x/x.conf.d/20-fine.ini")
      let contents = load(
        FileLayer(scope: .system, files: [], dropInDirectory: "/etc/x/x.conf.d"), root: root)
      #expect(contents.documents.map(\.path) == ["/etc/x/x.conf.d/20-fine.ini"])
      let diagnostic = try #require(contents.diagnostics.first)
      #expect(diagnostic.severity == .error)
      #expect(diagnostic.error.path == "/etc/x/x.conf.d/10-broken.json")
      #expect(diagnostic.error.line == 3)
      #expect(diagnostic.error.column == 8)
    }
  }

  @Test func anEmptyMainFileIsAnEmptyLayerNotAnError() throws {
    try withTemporaryDirectory { root in
      try write("", to: root + "/etc/x/x.json")
      let contents = load(FileLayer(scope: .system, files: ["/etc/x/x.json"]), root: root)
      #expect(contents.diagnostics.isEmpty)
      #expect(contents.documents.first?.root.table?.isEmpty == true)
    }
  }

  @Test func aDirectoryWhereAFileShouldBeIsAnError() throws {
    try withTemporaryDirectory { root in
      try FileManager.default.createDirectory(
        atPath: root + "/etc/x/x.json", withIntermediateDirectories: true)
      let contents = load(FileLayer(scope: .system, files: ["/etc/x/x.json"]), root: root)
      #expect(contents.documents.isEmpty)
      #expect(contents.diagnostics.first?.error.code == .unreadable)
      #expect(
        contents.diagnostics.first?.description == "/etc/x/x.json: error: not a regular file: a directory")
    }
  }

  @Test func aFileWhereTheDropInDirectoryShouldBeIsAnError() throws {
    try withTemporaryDirectory { root in
      try write("x", to: root + "/etc/x/x.conf.d")
      let contents = load(
        FileLayer(scope: .system, files: [], dropInDirectory: "/etc/x/x.conf.d"), root: root)
      #expect(contents.diagnostics.first?.error.code == .unreadable)
    }
  }

  @Test func tooManyDropInsIsAnErrorAndTheFirstOnesLoad() throws {
    try withTemporaryDirectory { root in
      for i in 1...5 { try write("k\(i) = 1\n", to: root + "/d/\(i).ini") }
      let contents = load(
        FileLayer(scope: .system, files: [], dropInDirectory: "/d", maxDropIns: 3), root: root)
      #expect(contents.documents.count == 3)
      #expect(contents.diagnostics.first?.error.code == .tooManyFiles)
    }
  }

  @Test func sizeLimitAndUnknownExtensionAndRequiredFiles() throws {
    try withTemporaryDirectory { root in
      try write(#"{"a": "0123456789"}"#, to: root + "/big.json")
      try write("a = 1", to: root + "/x.yaml")
      var options = ParseOptions(resolvePath: rootResolver(root))
      options.maxFileSize = 10
      let layer = FileLayer(
        scope: .user, files: ["/big.json", "/x.yaml", "/missing.json"], requiresFiles: true)
      let contents = layer.load(LoadContext(options: options))
      #expect(contents.diagnostics.map(\.error.code) == [.fileTooLarge, .unsupportedFormat, .notFound])
      #expect(contents.diagnostics.map(\.error.path) == ["/big.json", "/x.yaml", "/missing.json"])
    }
  }
}

@Suite struct StandardLayoutTests {
  @Test func everyLayerInScopeOrder() throws {
    try withTemporaryDirectory { root in
      try write(#"{"port": 1, "host": "vendor", "name": "vendor"}"#, to: root + "/usr/lib/app/app.json")
      try write("port = 2\nhost = system\n", to: root + "/etc/app/app.ini")
      try write(#"{"port": 3}"#, to: root + "/etc/app/app.conf.d/10-port.json")
      try write(#"{"port": 4}"#, to: root + "/home/me/.config/app/app.json")
      let layout = StandardLayout(
        app: "app", root: root, environment: ["HOME": "/home/me", "APP_HOST": "env"])
      let s = layout.stack().load()
      #expect(s.diagnostics.isEmpty)
      #expect(s.entry(forKey: "port")?.origin.path == "/home/me/.config/app/app.json")
      #expect(
        s.entry(forKey: "port")?.shadowed.map(\.value.origin.path) == [
          "/etc/app/app.conf.d/10-port.json", "/etc/app/app.ini", "/usr/lib/app/app.json",
        ])
      #expect(s.entry(forKey: "host")?.origin == .environment(variable: "APP_HOST"))
      #expect(s.entry(forKey: "name")?.scope == .vendor)
    }
  }

  @Test func xdgConfigHomeWinsOverHome() {
    let layout = StandardLayout(app: "app", environment: ["HOME": "/home/me", "XDG_CONFIG_HOME": "/cfg"])
    #expect(layout.userDirectory == "/cfg/app")
    #expect(
      StandardLayout(app: "app", environment: ["HOME": "/home/me"]).userDirectory == "/home/me/.config/app")
    #expect(StandardLayout(app: "app", environment: ["XDG_CONFIG_HOME": "relative"]).userDirectory == nil)
    #expect(layout.layers.map(\.scope) == [.vendor, .system, .user, .environment])
  }
}
