import Foundation
import Strata
import Testing

/// The samples of the TOMLFormat article, run: each checks what the article says.
@Suite struct TOMLFormatSnippets {
  let file = Array(
    """
    [server]
    port = 8080            # the listener
    started = 1979-05-27T07:32:00Z
    maintenance = 1979-05-27
    """.utf8)

  @Test func datesAndEdits() throws {
    // snippet: read
    let toml = FormatRegistry.standard.format(named: "toml")!
    let root = try toml.parse(file, path: "/etc/demo/demo.toml", options: ParseOptions()).root
    let port = root.value(at: "server.port")  // .integer(8080) at /etc/demo/demo.toml:2:8
    let started = root.value(at: "server.started")  // .date: an offset date-time is an instant
    let maintenance = root.value(at: "server.maintenance")  // .string("1979-05-27"): a local date
    // snippet: end
    #expect(port?.kind == .integer(8080))
    #expect(port?.origin == .file(path: "/etc/demo/demo.toml", line: 2, column: 8))
    #expect(started?.typeName == "date")
    #expect(maintenance?.kind == .string("1979-05-27"))

    let directory = FileManager.default.temporaryDirectory.path + "/toml-snippet-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/demo.toml"
    try Data(file).write(to: URL(fileURLWithPath: path))
    // snippet: edit
    let store = SettingsStore(layers: [FileLayer(scope: .user, files: [path])], writeTarget: .file(path))
    try store.saveValue(9000, forKey: "server.port")
    // port = 9000            # the listener   (every other byte as it was)
    // snippet: end
    let edited = try String(contentsOfFile: path, encoding: .utf8)
    #expect(edited.contains("port = 9000            # the listener\n"))
    #expect(edited.contains("maintenance = 1979-05-27"))
  }
}
