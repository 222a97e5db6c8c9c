import Foundation
import Testing

/// `config-dump-yaml`, the tool built with YAML registered, run as a process on YAML files.
@Suite struct ConfigDumpYAMLTests {
  /// Runs the built tool with `arguments`; its exit status, standard output and standard error.
  static func run(_ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
      .deletingLastPathComponent().appendingPathComponent("config-dump-yaml")
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    let exit = ProcessExit()
    process.terminationHandler = { _ in exit.finish() }
    try process.run()
    // Each pipe is read to its end on a thread of its own (never a thread of the cooperative pool).
    async let outputData = Self.readToEnd(output.fileHandleForReading)
    async let errorData = Self.readToEnd(errors.fileHandleForReading)
    if !(await exit.wait(timeout: .seconds(60))) {
      process.terminate()
      await exit.wait()
    }
    let (outputText, errorText) = await (outputData, errorData)
    return (
      process.terminationStatus, String(decoding: outputText, as: UTF8.self),
      String(decoding: errorText, as: UTF8.self)
    )
  }

  /// Everything a pipe gives until it closes, read on a dedicated thread.
  static func readToEnd(_ handle: FileHandle) async -> Data {
    await withCheckedContinuation { continuation in
      Thread { continuation.resume(returning: handle.readDataToEndOfFile()) }.start()
    }
  }

  static func temporaryFile(_ text: String, name: String) throws -> String {
    let directory = FileManager.default.temporaryDirectory.path + "/config-dump-yaml-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let path = directory + "/" + name
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  @Test func itReadsYAMLWithOriginsAndTheOtherFormatsStill() async throws {
    let yaml = try Self.temporaryFile("server:\n  host: example.com\n  port: 8080\n", name: "app.yaml")
    let json = try Self.temporaryFile("{\"server\": {\"port\": 9090}}\n", name: "local.json")
    defer {
      try? FileManager.default.removeItem(atPath: (yaml as NSString).deletingLastPathComponent)
      try? FileManager.default.removeItem(atPath: (json as NSString).deletingLastPathComponent)
    }
    let result = try await Self.run(["--show-origin", yaml, json])
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.output.contains("server.host"))
    #expect(result.output.contains("\(yaml):2:9"))
    #expect(result.output.contains("\(json):1:21"))
    let help = try await Self.run(["--help"])
    #expect(help.output.contains(".yaml .yml"))
  }

  @Test func aBrokenYAMLFileIsReportedWithItsPosition() async throws {
    let yaml = try Self.temporaryFile("server:\n  port: 1\n  port: 2\n", name: "app.yml")
    defer { try? FileManager.default.removeItem(atPath: (yaml as NSString).deletingLastPathComponent) }
    let result = try await Self.run(["--check", yaml])
    #expect(result.status == 1)
    // --check prints its findings on standard output.
    #expect(result.output.contains("\(yaml):3:3: error: duplicate key 'port' (first at \(yaml):2:3)"))
  }
}
